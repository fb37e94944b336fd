//! A teach block's suggestion must be of the field's type.

use learnables::{Learnable, TeachBlock};

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "{chapter}"
)]
struct RoutingRule {
    /// HS chapter
    chapter: u8,
}

fn main() {
    // A chapter is a u8: a string cannot be suggested for it.
    let _ = TeachBlock::builder::<RoutingRule>(["85"])
        .suggest(RoutingRule::FIELDS.chapter, "eighty-five")
        .build();
}
