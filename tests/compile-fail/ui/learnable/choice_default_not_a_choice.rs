//! A choice field's `default` must be one of its type's choices (checked at compile time).

use learnables::{Choice, Learnable};

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter} goes to the {desk} desk"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
    /// Desk
    #[learnable(default = "urgent")]
    pub desk: Desk,
}

#[derive(Choice, Clone, Copy)]
pub enum Desk {
    General,
    DangerousGoods,
}

fn main() {}
