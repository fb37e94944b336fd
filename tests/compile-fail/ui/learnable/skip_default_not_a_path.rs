//! On a skipped field, `default` names a function, as serde's does: a value is refused.

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
    #[learnable(skip, default = "3")]
    pub retries: u8,
}

fn main() {}
