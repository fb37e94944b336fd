//! A `chrono::NaiveDate` lesson field (feature `chrono`): of kind `date`,
//! which the teacher's page shows as a date picker and any other client,
//! as the spec requires of a kind it does not know, as text. Read and
//! written as `YYYY-MM-DD`, as `NaiveDate`'s `FromStr` and `Display` do.

use chrono::NaiveDate;
use serde_json::Value;

use super::probe::{FieldOps, Probe, parse_text};
use super::spec::FieldSpec;
use super::write::as_display;
use crate::lesson_error::LessonProblem;

/// What a date field takes, in words (chrono's own reason, such as "input
/// contains invalid characters", is for developers).
const DATE_REASON: &str = "it must be a date written as YYYY-MM-DD, such as 2027-01-31";

fn parse_date(value: &Value, field: &FieldSpec) -> Result<NaiveDate, LessonProblem> {
    parse_text::<NaiveDate>(value, field).map_err(|problem| match problem {
        LessonProblem::Invalid {
            field,
            label,
            value,
            ..
        } => LessonProblem::Invalid {
            field,
            label,
            value,
            reason: DATE_REASON.to_owned(),
        },
        other => other,
    })
}

fn take_date(value: Value, field: &FieldSpec) -> Result<NaiveDate, LessonProblem> {
    parse_date(&value, field)
}

impl Probe<NaiveDate> {
    /// A date is a `date` field, read from `YYYY-MM-DD`.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{Learnable, LessonValue};
    /// #[derive(Learnable, Debug)]
    /// #[learnable(collection = "reviews", entry = "broker", teaches = "When a broker is reviewed",
    ///     how = "A date per broker", decided_by = "rules", describes = "Review on {on}")]
    /// struct Review {
    ///     /// Review date
    ///     on: chrono::NaiveDate,
    /// }
    /// assert_eq!(Review::descriptor().lesson_fields[0].kind.as_str(), "date");
    /// let value = LessonValue::try_from(serde_json::json!({"on": "2027-01-31"})).unwrap();
    /// assert_eq!(Review::from_lesson_value(&value).unwrap().on.to_string(), "2027-01-31");
    /// let typo = LessonValue::try_from(serde_json::json!({"on": "31/01/2027"})).unwrap();
    /// assert_eq!(
    ///     Review::from_lesson_value(&typo).unwrap_err().problems()[0].in_words(),
    ///     "Review date: \"31/01/2027\" is not accepted: it must be a date written as YYYY-MM-DD, \
    ///      such as 2027-01-31"
    /// );
    /// ```
    pub const OPS: FieldOps<NaiveDate> = FieldOps {
        kind: "date",
        choices: None,
        descriptions: None,
        aliases: &[],
        parse: parse_date,
        take: take_date,
        display: as_display::<NaiveDate>,
        value_type: None,
        least: None,
        most: None,
    };
}
