//! `entry_key` on one lesson field that every lesson has: not twice, not on
//! an optional field, not on a skipped one.

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
    /// HS chapter
    #[learnable(entry_key)]
    pub chapter: u8,
    /// Heading
    #[learnable(entry_key)]
    pub heading: u16,
    /// Note
    #[learnable(entry_key)]
    pub note: Option<String>,
    #[learnable(skip, entry_key)]
    pub cache: u8,
}

fn main() {}
