//! A `pattern` that is no regular expression is an error on its string.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "clearances",
    entry = "broker",
    teaches = "How much a broker may clear",
    how = "A table per broker, kept by the compliance team",
    decided_by = "rules",
    describes = "{entry}: {country}"
)]
pub struct Clearance {
    /// Country
    #[learnable(pattern = "[A-Z{2")]
    pub country: String,
}

fn main() {}
