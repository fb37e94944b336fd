//! A default the field's standard type does not parse, each at its literal.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    #[learnable(default = "abc")]
    pub chapter: u8,
    /// Ratio (read as a lesson is: finite)
    #[learnable(default = "NaN")]
    pub ratio: f32,
    /// Parcels
    #[learnable(default = "0")]
    pub parcels: std::num::NonZeroU32,
    /// Class
    #[learnable(default = "ab")]
    pub class: char,
    /// Weight
    #[learnable(default = "heavy")]
    pub weight: Option<f64>,
    /// Owner (any text parses as a String)
    #[learnable(default = "")]
    pub owner: String,
}

fn main() {}
