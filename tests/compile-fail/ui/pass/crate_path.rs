//! `crate = "..."` points the generated code at `learnables` under another path,
//! for a crate that re-exports it.

mod reexport {
    pub use learnables as inner;
}

use learnables::{Choice, Learnable};

#[derive(Learnable)]
#[learnable(
    crate = "reexport::inner",
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
    pub desk: Desk,
}

#[derive(Choice, Clone, Copy)]
#[choice(crate = reexport::inner)]
pub enum Desk {
    General,
}

fn main() {
    let rule = RoutingRule {
        chapter: 84,
        desk: Desk::General,
    };
    assert_eq!(rule.describes("84"), "Chapter 84 goes to the general desk");
    assert_eq!(
        RoutingRule::descriptor().lesson_fields[1].kind.as_str(),
        "choice"
    );
}
