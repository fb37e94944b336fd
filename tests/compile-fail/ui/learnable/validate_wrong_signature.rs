//! `validate` names a function of the wrong signature.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter}",
    validate = check
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn check(_: &RoutingRule) -> bool {
    true
}

fn main() {}
