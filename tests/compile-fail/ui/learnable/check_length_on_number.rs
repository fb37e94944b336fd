//! `length` on a number field is an error at `length`.

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
    #[learnable(length(max = 3))]
    pub amount: u32,
}

fn main() {}
