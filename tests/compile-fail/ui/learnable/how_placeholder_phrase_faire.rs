//! `how` may not be the placeholder "À faire".

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "À faire",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
