//! A `describes` placeholder must name a field (or be `{entry}`).

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chaptr} goes to the {colour} desk"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
    /// Desk
    pub desk: String,
}

fn main() {}
