//! `kind = "text"` on a `Choice`: free text that refuses all but the choices.

use learnables::{Choice, Learnable};

#[derive(Choice)]
pub enum Desk {
    General,
    DangerousGoods,
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
    /// Desk
    #[learnable(kind = "text")]
    pub desk: Desk,
}

fn main() {}
