//! `skip` is a bare flag.

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
    pub chapter: u8,
    #[learnable(skip = "yes")]
    pub hits: u32,
    #[learnable(skip(true))]
    pub misses: u32,
}

fn main() {}
