//! `#[derive(Learnable)]` takes a struct with named fields, not a tuple struct.

use learnables::Learnable;

#[derive(Learnable)]
pub struct RoutingRule(pub u8, pub String);

fn main() {}
