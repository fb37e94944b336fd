//! A field named `entry` beside `{entry}` is refused.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "clearances",
    entry = "broker",
    teaches = "How much a broker may clear",
    how = "A table per broker, kept by the compliance team",
    decided_by = "rules",
    describes = "{entry}: {entry}"
)]
pub struct Clearance {
    /// Entry
    pub entry: String,
}

fn main() {}
