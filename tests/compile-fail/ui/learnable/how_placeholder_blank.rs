//! `how` must be prose: empty or blank is refused.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Empty {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "   \n\t ",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Blank {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
