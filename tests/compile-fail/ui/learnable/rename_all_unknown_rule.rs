//! `rename_all` on a learnable takes serde's rules, by serde's names; another name is an error listing them.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "refund_limits",
    entry = "shop",
    teaches = "Up to how much a shop refunds",
    how = "A limit per shop, kept by the finance team",
    decided_by = "rules",
    describes = "{entry} refunds up to {amount_eur} EUR",
    rename_all = "camelcase"
)]
pub struct Limit {
    /// Limit in euros
    pub amount_eur: u32,
}

fn main() {}
