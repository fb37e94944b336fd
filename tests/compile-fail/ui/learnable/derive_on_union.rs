//! `#[derive(Learnable)]` takes a struct with named fields, not a union.

use learnables::Learnable;

#[derive(Learnable)]
pub union RoutingRule {
    pub chapter: u8,
}

fn main() {}
