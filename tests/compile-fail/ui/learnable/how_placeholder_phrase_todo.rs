//! `how` may not be the placeholder "T O D O".

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "T O D O",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
