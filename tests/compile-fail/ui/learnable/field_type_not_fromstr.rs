//! A lesson field's type must derive `Choice` or implement `FromStr` and `Display`.

use learnables::Learnable;

pub struct Desk {
    pub name: String,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
    /// Desk
    pub desk: Desk,
    /// Desks
    pub others: Option<Vec<Desk>>,
}

fn main() {}
