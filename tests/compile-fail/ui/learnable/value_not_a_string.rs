//! A string key given a number, a name, a list, a boolean or no value.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = 7,
    entry,
    teaches = which_desk,
    how("A table keyed on the HS chapter"),
    decided_by = "rules",
    describes = "Chapter {chapter}",
)]
pub struct RoutingRule {
    /// HS chapter
    #[learnable(label("Chapter"))]
    pub chapter: u8,
    /// Desk
    #[learnable(default = true)]
    pub desk: String,
}

fn main() {}
