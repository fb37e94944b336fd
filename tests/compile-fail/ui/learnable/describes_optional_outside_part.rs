//! An optional field in `describes` must be in a `[...]` part.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "clearances",
    entry = "broker",
    teaches = "How much a broker may clear",
    how = "A table per broker, kept by the compliance team",
    decided_by = "rules",
    describes = "{entry}: {deputy}"
)]
pub struct Clearance {
    /// Limit in euros
    pub amount: u32,
    /// Deputy
    pub deputy: Option<String>,
}

fn main() {}
