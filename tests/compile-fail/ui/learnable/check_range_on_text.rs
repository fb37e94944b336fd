//! `range` on a text field is an error at `range`.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "clearances",
    entry = "broker",
    teaches = "How much a broker may clear",
    how = "A table per broker, kept by the compliance team",
    decided_by = "rules",
    describes = "{entry}: {note}"
)]
pub struct Clearance {
    /// Note
    #[learnable(range(min = 1, max = 10))]
    pub note: String,
}

fn main() {}
