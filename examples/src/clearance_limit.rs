use learnables::Learnable;

/// How much a broker may clear without a second signature.
///
/// ```
/// use learnables::Learnable;
/// use learnables_examples::ClearanceLimit;
/// let limit = ClearanceLimit { amount_eur: 25_000, review_after: None };
/// assert_eq!(limit.describes("broker-17"), "broker-17 may now clear up to EUR 25000 alone");
/// ```
#[derive(Learnable, Debug, Clone, PartialEq)]
#[learnable(
    collection = "clearance_limits",
    entry = "broker",
    teaches = "How much a broker may clear without a second signature",
    how = "A fixed amount per broker, set by the compliance team; brokers without one need a \
           second signature for everything",
    decided_by = "rules",
    skills("clear-declaration", "route-declaration"),
    describes_with = describe_limit
)]
pub struct ClearanceLimit {
    /// Limit in euros
    #[learnable(rename = "amountEur")]
    pub amount_eur: u32,
    /// Review date
    ///
    /// When compliance looks at this limit again (YYYY-MM-DD).
    #[learnable(kind = "date")]
    pub review_after: Option<String>,
}

/// Phrases a clearance limit for a person: the `describes_with` hook.
pub fn describe_limit(limit: &ClearanceLimit, broker: &str) -> String {
    match &limit.review_after {
        Some(date) => format!(
            "{broker} may now clear up to EUR {} alone, until a review on {date}",
            limit.amount_eur
        ),
        None => format!(
            "{broker} may now clear up to EUR {} alone",
            limit.amount_eur
        ),
    }
}
