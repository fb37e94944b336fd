//! `how` may not be the placeholder "<describe how the agent decides>".

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "<describe how the agent decides>",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
