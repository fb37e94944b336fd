//! `#[derive(Learnable)]` takes a struct with named fields, not a unit struct.

use learnables::Learnable;

#[derive(Learnable)]
pub struct RoutingRule;

fn main() {}
