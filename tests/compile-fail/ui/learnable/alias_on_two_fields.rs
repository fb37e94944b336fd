//! One alias reads as one field only.

use learnables::Learnable;

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
    #[learnable(alias = "code")]
    pub chapter: u8,
    /// Desk
    #[learnable(alias = "team", alias = "code")]
    pub desk: String,
}

fn main() {}
