//! Placeholders in scripts written without spaces are placeholders too.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "待定",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "clearance_limits",
    entry = "broker",
    teaches = "How much a broker may clear",
    how = "検討中です",
    decided_by = "rules",
    describes = "{amount}"
)]
pub struct Limit {
    /// Amount
    pub amount: u32,
}

#[derive(Learnable)]
#[learnable(
    collection = "tariffs",
    entry = "tariff",
    teaches = "Which tariff applies",
    how = "ยังไม่มี",
    decided_by = "rules",
    describes = "{rate}"
)]
pub struct Tariff {
    /// Rate
    pub rate: u32,
}

fn main() {}
