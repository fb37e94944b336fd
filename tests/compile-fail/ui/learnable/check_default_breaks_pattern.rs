//! A `default` that does not match its own `pattern` is an error on the default.

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
    #[learnable(pattern = "^[A-Z]{2}$", default = "nl")]
    pub country: String,
}

fn main() {}
