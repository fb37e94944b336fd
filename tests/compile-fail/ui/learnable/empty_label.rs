//! An explicit `label` must not be empty.

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
    #[learnable(label = "")]
    pub chapter: u8,
    /// Desk
    #[learnable(label = "  ")]
    pub desk: String,
}

fn main() {}
