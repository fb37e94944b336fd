//! `collection`, `entry`, `teaches`, `decided_by` and skill ids must not be blank.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "",
    entry = " ",
    teaches = "",
    how = "A table keyed on the HS chapter",
    decided_by = "\t",
    skills("route-declaration", ""),
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
