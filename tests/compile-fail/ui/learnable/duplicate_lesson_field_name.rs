//! Two lesson fields with one name, by `rename` or by a raw identifier.

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
    /// Chapter again
    #[learnable(rename = "chapter")]
    pub chapter_again: u8,
    /// Type
    pub r#type: String,
    /// Kind
    #[learnable(rename = "type")]
    pub kind: String,
}

fn main() {}
