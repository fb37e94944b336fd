//! `teaches` follows the placeholder rule `how` does.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "TODO",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
