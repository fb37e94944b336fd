//! `describes_with` names the phrasing function, as a bare path or a string.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes_with = phrasing::bare,
)]
pub struct Bare {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "desk_rules",
    entry = "desk rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes_with = "phrasing::quoted"
)]
pub struct Quoted {
    /// HS chapter
    pub chapter: u8,
}

mod phrasing {
    pub fn bare(rule: &super::Bare, entry: &str) -> String {
        format!("Rule {entry}: chapter {}", rule.chapter)
    }

    pub fn quoted(rule: &super::Quoted, entry: &str) -> String {
        format!("Desk rule {entry}: chapter {}", rule.chapter)
    }
}

fn main() {
    assert_eq!(Bare { chapter: 84 }.describes("84"), "Rule 84: chapter 84");
    assert_eq!(
        Quoted { chapter: 85 }.describes("x"),
        "Desk rule x: chapter 85"
    );
}
