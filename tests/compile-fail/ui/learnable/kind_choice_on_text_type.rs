//! `kind = "choice"` on a type that is not a `Choice`: a choice field
//! without choices.

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
    /// Desk
    #[learnable(kind = "choice")]
    pub desk: String,
}

fn main() {}
