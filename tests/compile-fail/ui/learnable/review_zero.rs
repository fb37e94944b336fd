//! `review = 0` asks for no approval: leave it out, or ask for 1 or more.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "clearance_limits",
    entry = "broker",
    teaches = "How much a broker may clear without a second signature",
    how = "A fixed amount per broker, set by the compliance team",
    decided_by = "rules",
    describes = "{entry} clears up to {euros} euros",
    review = 0
)]
pub struct ClearanceLimit {
    /// Euros
    pub euros: u32,
}

fn main() {}
