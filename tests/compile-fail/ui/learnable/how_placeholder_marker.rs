//! `how` must be prose: a placeholder marker alone is refused, in any case.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "TODO",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Todo {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "TBD",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Tbd {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "tba",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Tba {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "FIXME",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Fixme {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "XXX",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Xxx {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "N/A",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct NotApplicable {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "placeholder",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Placeholder {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "Lorem ipsum dolor sit amet...",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct LoremIpsum {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
