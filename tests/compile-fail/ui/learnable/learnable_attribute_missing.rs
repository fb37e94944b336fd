//! Without any `#[learnable(...)]`, every required key is reported, at the struct's name.

use learnables::Learnable;

#[derive(Learnable)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

fn main() {}
