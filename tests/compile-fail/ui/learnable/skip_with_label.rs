//! A lesson field's key on a skipped field would have no effect: refused.

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
    pub amount: u32,
    #[learnable(skip, label = "Retries")]
    pub retries: u8,
}

fn main() {}
