//! The clearance limit: how much a broker may clear without a second
//! signature, a learnable with a number, a date and a note, reviewed: a
//! lesson for it is learned once a teacher other than its author approves.

use chrono::NaiveDate;
use learnables::{FieldErrors, Learnable};

/// How much a broker may clear without a second signature.
///
/// ```
/// use learnables::{Learnable, LessonValue};
/// use learnables_examples::ClearanceLimit;
/// let limit = ClearanceLimit { amount_eur: 25_000, review_after: None };
/// assert_eq!(limit.describes("broker-17"), "broker-17 may now clear up to EUR 25000 alone");
///
/// let not_a_date = LessonValue::try_from(
///     serde_json::json!({"amountEur": "9000", "review_after": "not a date"}),
/// )
/// .unwrap();
/// assert_eq!(ClearanceLimit::from_lesson_value(&not_a_date).unwrap_err().field(), Some("review_after"));
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
    describes_with = describe_limit,
    validate = review_needed,
    // Money: one person's lesson waits until another teacher approves it.
    review
)]
pub struct ClearanceLimit {
    /// Limit in euros
    #[learnable(rename = "amountEur")]
    pub amount_eur: u32,
    /// Review date
    ///
    /// When compliance looks at this limit again (YYYY-MM-DD).
    pub review_after: Option<NaiveDate>,
}

/// The amount above which a limit must name a review date.
pub const REVIEW_REQUIRED_ABOVE_EUR: u32 = 100_000;

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

/// The rule across fields (the `validate` hook): a limit above
/// [`REVIEW_REQUIRED_ABOVE_EUR`] must name a review date.
///
/// ```
/// use learnables::{Learnable, LessonValue};
/// use learnables_examples::ClearanceLimit;
/// let value = LessonValue::try_from(serde_json::json!({"amountEur": "250000"})).unwrap();
/// let error = ClearanceLimit::from_lesson_value(&value).unwrap_err();
/// assert_eq!(error.field(), Some("review_after"));
/// ```
pub fn review_needed(limit: &ClearanceLimit) -> Result<(), FieldErrors> {
    if limit.amount_eur > REVIEW_REQUIRED_ABOVE_EUR && limit.review_after.is_none() {
        return Err(FieldErrors::new().field(
            ClearanceLimit::FIELDS.review_after,
            format!(
                "a limit above EUR {REVIEW_REQUIRED_ABOVE_EUR} needs a review date: give the \
                 date compliance looks at it again"
            ),
        ));
    }
    Ok(())
}
