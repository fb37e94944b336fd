//! A teach block cannot suggest a field of another learnable.

use learnables::{Learnable, TeachBlock};

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "{desk}"
)]
struct RoutingRule {
    /// Desk
    desk: String,
}

#[derive(Learnable)]
#[learnable(
    collection = "clearance_limits",
    entry = "broker",
    teaches = "How much a broker may clear",
    how = "A fixed amount per broker",
    decided_by = "rules",
    describes = "{amount}"
)]
struct ClearanceLimit {
    /// Amount
    amount: u32,
}

fn main() {
    // A routing rule's teach block cannot suggest a clearance limit's field.
    let _ = TeachBlock::builder::<RoutingRule>(["85"])
        .suggest(ClearanceLimit::FIELDS.amount, 10)
        .build();
}
