//! A `kind` the library does not know is refused, with a did-you-mean.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "clearances",
    entry = "broker",
    teaches = "How much a broker may clear",
    how = "A table per broker, kept by the compliance team",
    decided_by = "rules",
    describes = "{entry}: {on}"
)]
pub struct Clearance {
    /// Review date
    #[learnable(kind = "Date")]
    pub on: String,
}

fn main() {}
