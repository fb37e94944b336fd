//! `how` must be prose: a marker followed by more text is still a placeholder.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "TODO: write this",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct TodoWithText {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "FIXME - describe the table",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct FixmeWithText {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "tbd, ask the desk leads",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct TbdWithText {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
