//! A teach block cannot suggest a field its learnable does not have.

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
    let _ = TeachBlock::builder::<RoutingRule>(["85"])
        .suggest(RoutingRule::FIELDS.desk, 1)
        .build();
}
