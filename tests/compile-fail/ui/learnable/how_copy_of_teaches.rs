//! `how` must say how, not repeat what `teaches` says is decided.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "Which desk handles a declaration",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Copy {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "which desk  handles a declaration.",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct CopyInOtherCase {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
