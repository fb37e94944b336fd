//! `describes` and `describes_with` exclude each other.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter}",
    describes_with = phrase,
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn phrase(rule: &RoutingRule, _entry: &str) -> String {
    format!("Chapter {}", rule.chapter)
}

fn main() {}
