//! A misspelt key, on the struct or on a field, is refused with a suggestion.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describe = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    #[learnable(lable = "Chapter")]
    pub chapter: u8,
}

fn main() {}
