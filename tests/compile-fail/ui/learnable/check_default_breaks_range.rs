//! A `default` outside its own `range` is an error on the default.

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
    #[learnable(range(min = 100, max = 1000000), default = "50")]
    pub amount: u32,
}

fn main() {}
