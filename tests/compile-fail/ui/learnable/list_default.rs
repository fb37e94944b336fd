//! A list field takes no `default`.

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
    #[learnable(default = "kim")]
    pub approvers: Vec<String>,
}

fn main() {}
