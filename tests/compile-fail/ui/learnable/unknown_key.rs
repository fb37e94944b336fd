//! A key the derive does not know, with nothing close to suggest.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter}",
    priority = "high"
)]
pub struct RoutingRule {
    /// HS chapter
    #[learnable(colour = "red")]
    pub chapter: u8,
}

fn main() {}
