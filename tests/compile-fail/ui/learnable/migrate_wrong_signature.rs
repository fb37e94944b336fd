//! `migrate` takes a function from a stored map to a map or a reason.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter}",
    migrate = from_old
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn from_old(old: &str) -> String {
    old.to_owned()
}

fn main() {}
