//! `describes_with` names a `fn(&Self, &str) -> String`; the compiler checks the signature.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes_with = phrase,
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn phrase(rule: &RoutingRule) -> String {
    format!("Chapter {}", rule.chapter)
}

fn main() {}
