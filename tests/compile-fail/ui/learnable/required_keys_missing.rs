//! Every required key is reported when missing, at the attribute.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(describes = "Chapter {chapter}")]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
