//! `#[derive(Learnable)]` takes a struct with named fields, not an enum.

use learnables::Learnable;

#[derive(Learnable)]
pub enum RoutingRule {
    Chapter(u8),
}

fn main() {}
