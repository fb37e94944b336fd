//! `review` takes a whole number of approvals, not a string.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "clearance_limits",
    entry = "broker",
    teaches = "How much a broker may clear without a second signature",
    how = "A fixed amount per broker, set by the compliance team",
    decided_by = "rules",
    describes = "{entry} clears up to {euros} euros",
    review = "two"
)]
pub struct ClearanceLimit {
    /// Euros
    pub euros: u32,
}

fn main() {}
