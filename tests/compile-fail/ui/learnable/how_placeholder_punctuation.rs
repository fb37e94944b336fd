//! `how` must be prose: punctuation alone has no words.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "...",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Ellipsis {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "?",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct QuestionMark {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
