//! `range` takes `min` and `max` only.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "clearances",
    entry = "broker",
    teaches = "How much a broker may clear",
    how = "A table per broker, kept by the compliance team",
    decided_by = "rules",
    describes = "{entry}: {amount}"
)]
pub struct Clearance {
    /// Limit in euros
    #[learnable(range(least = 1))]
    pub amount: u32,
}

fn main() {}
