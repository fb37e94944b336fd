//! A skipped field takes its `Default` value when a lesson is parsed.

use learnables::Learnable;

pub struct Cache {
    pub hits: u32,
}

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
    pub chapter: u8,
    #[learnable(skip)]
    pub cache: Cache,
}

fn main() {}
