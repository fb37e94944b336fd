//! The entry's key cannot be a list.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "clearances",
    entry = "broker",
    teaches = "How much a broker may clear",
    how = "A table per broker, kept by the compliance team",
    decided_by = "rules",
    describes = "{entry}: {approvers}"
)]
pub struct Clearance {
    /// Approvers
    #[learnable(entry_key)]
    pub approvers: Vec<String>,
}

fn main() {}
