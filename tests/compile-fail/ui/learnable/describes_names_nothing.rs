//! A template naming no field nor the entry is refused.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "clearances",
    entry = "broker",
    teaches = "How much a broker may clear",
    how = "A table per broker, kept by the compliance team",
    decided_by = "rules",
    describes = "a clearance"
)]
pub struct Clearance {
    /// Limit in euros
    pub amount: u32,
}

fn main() {}
