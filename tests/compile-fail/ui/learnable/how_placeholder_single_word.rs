//! `how` must be prose: a single bare word says nothing about how.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "rules",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Rules {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "Model.",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Model {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
