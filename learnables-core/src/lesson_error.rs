//! What is wrong with a lesson, in words a teacher understands.

use std::fmt;

/// Everything wrong with a lesson: every bad field, not only the first.
///
/// ```
/// # extern crate learnables_core as learnables;
/// # use learnables::{Learnable, LessonValue};
/// #[derive(Learnable, Debug)]
/// #[learnable(collection = "limits", entry = "limit", teaches = "How much a broker may clear",
///             how = "A fixed amount per broker, set by the compliance team", decided_by = "rules",
///             describes = "{entry} may clear up to {amount}")]
/// struct Limit {
///     /// Amount in euros
///     amount: u32,
/// }
/// let value = LessonValue::try_from(serde_json::json!({"amount": "lots"})).unwrap();
/// let error = Limit::from_lesson_value(&value).unwrap_err();
/// assert_eq!(error.field(), Some("amount"));
/// assert_eq!(
///     error.to_string(),
///     "`amount` (Amount in euros): \"lots\" is not accepted: it must be a whole number from 0 to \
///      4,294,967,295"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LessonError {
    problems: Vec<LessonProblem>,
}

/// One thing wrong with a lesson.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LessonProblem {
    /// The lesson names another collection than the learnable it was given to.
    WrongCollection {
        /// The learnable's collection.
        expected: String,
        /// The lesson's collection.
        found: String,
    },
    /// A required field has no value.
    Missing {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
    },
    /// A key that is not one of the learnable's fields.
    UnknownField {
        /// The key, as sent.
        field: String,
        /// The field names the learnable has.
        known: Vec<String>,
    },
    /// A value of a JSON type the field cannot hold (an array, an object, ...).
    WrongType {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
        /// The JSON type found ("an array", ...).
        found: &'static str,
    },
    /// A value that is not one of the field's choices.
    NotAChoice {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
        /// The value sent (shortened if long).
        value: String,
        /// The choices the field accepts.
        choices: Vec<String>,
    },
    /// A value the field's type does not accept.
    Invalid {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
        /// The value sent (shortened if long).
        value: String,
        /// The field type's own reason.
        reason: String,
    },
    /// A field the learnable's own check refuses though the lesson leaves
    /// it out (a rule across fields: "a limit above ... needs a review date").
    Refused {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
        /// The learnable's reason.
        reason: String,
    },
    /// The value of the entry's key field names another entry than the
    /// lesson's.
    EntryMismatch {
        /// The key field's name.
        field: String,
        /// The key field's label.
        label: String,
        /// The lesson's entry (shortened if long).
        entry: String,
        /// The key field's value in the lesson (shortened if long).
        value: String,
    },
    /// The lesson's entry is not a value of the entry's key field.
    BadEntry {
        /// The key field's name.
        field: String,
        /// The key field's label.
        label: String,
        /// The lesson's entry (shortened if long).
        entry: String,
        /// The key field type's own reason.
        reason: String,
    },
    /// A field given twice in one value, under its name and an earlier
    /// name (an `alias`).
    GivenTwice {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
        /// The key it was given under the second time.
        again_as: String,
    },
    /// A value below the field's `minimum` (a number's, or a date's).
    BelowMinimum {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
        /// The value sent (shortened if long).
        value: String,
        /// The least value, as a person reads it ("1,000").
        minimum: String,
    },
    /// A value above the field's `maximum`.
    AboveMaximum {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
        /// The value sent (shortened if long).
        value: String,
        /// The greatest value, as a person reads it ("1,000,000").
        maximum: String,
    },
    /// A text of fewer characters, or a list of fewer items, than the
    /// field's `minLength`.
    TooShort {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
        /// The fewest characters, or items.
        min_length: u64,
        /// Whether they are a list's items (else a text's characters).
        items: bool,
    },
    /// A text of more characters, or a list of more items, than the
    /// field's `maxLength`.
    TooLong {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
        /// The most characters, or items.
        max_length: u64,
        /// Whether they are a list's items (else a text's characters).
        items: bool,
    },
    /// A text that does not match the field's `pattern`.
    NoMatch {
        /// The field's name.
        field: String,
        /// The field's label.
        label: String,
        /// The value sent (shortened if long).
        value: String,
        /// The pattern (shortened if long).
        pattern: String,
    },
    /// A stored value the type does not read, which its `migrate` function
    /// could not make into one it does.
    NotMigrated {
        /// What the migration said.
        reason: String,
    },
}

impl LessonProblem {
    /// The lesson field at fault, if one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            LessonProblem::WrongCollection { .. } | LessonProblem::NotMigrated { .. } => None,
            LessonProblem::Missing { field, .. }
            | LessonProblem::UnknownField { field, .. }
            | LessonProblem::WrongType { field, .. }
            | LessonProblem::NotAChoice { field, .. }
            | LessonProblem::Invalid { field, .. }
            | LessonProblem::Refused { field, .. }
            | LessonProblem::EntryMismatch { field, .. }
            | LessonProblem::BadEntry { field, .. }
            | LessonProblem::GivenTwice { field, .. }
            | LessonProblem::BelowMinimum { field, .. }
            | LessonProblem::AboveMaximum { field, .. }
            | LessonProblem::TooShort { field, .. }
            | LessonProblem::TooLong { field, .. }
            | LessonProblem::NoMatch { field, .. } => Some(field),
        }
    }
}

impl LessonProblem {
    /// Why the value was refused, without naming the field.
    pub(crate) fn reason(&self) -> String {
        match self {
            LessonProblem::Invalid { reason, .. } | LessonProblem::Refused { reason, .. } => {
                reason.clone()
            }
            LessonProblem::NotAChoice { choices, .. } => {
                format!("it is not one of the choices: {}", choices.join(", "))
            }
            LessonProblem::BelowMinimum { .. }
            | LessonProblem::AboveMaximum { .. }
            | LessonProblem::TooShort { .. }
            | LessonProblem::TooLong { .. }
            | LessonProblem::NoMatch { .. } => self.limit(),
            other => other.to_string(),
        }
    }

    /// What a field's check asks, without naming the field: "at most
    /// 1,000,000", "at least 2 characters", "does not match the pattern ...".
    fn limit(&self) -> String {
        let unit = |count: u64, items: bool| match (count, items) {
            (1, true) => "1 item".to_owned(),
            (1, false) => "1 character".to_owned(),
            (count, true) => format!("{count} items"),
            (count, false) => format!("{count} characters"),
        };
        match self {
            LessonProblem::BelowMinimum { minimum, .. } => format!("at least {minimum}"),
            LessonProblem::AboveMaximum { maximum, .. } => format!("at most {maximum}"),
            LessonProblem::TooShort {
                min_length, items, ..
            } => format!("at least {}", unit(*min_length, *items)),
            LessonProblem::TooLong {
                max_length, items, ..
            } => format!("at most {}", unit(*max_length, *items)),
            LessonProblem::NoMatch { value, pattern, .. } => {
                format!("{value:?} does not match the pattern {pattern}")
            }
            other => other.to_string(),
        }
    }
}

impl LessonProblem {
    /// The problem in a teacher's words: the field named by its label,
    /// never its key, and no code quoting (what a teach form shows next to
    /// the field; [`Display`](fmt::Display) is for the developer and names
    /// the key too).
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::LessonProblem;
    /// let missing = LessonProblem::Missing { field: "amountEur".into(), label: "Limit in euros".into() };
    /// assert_eq!(missing.in_words(), "Limit in euros is needed");
    /// assert_eq!(missing.to_string(), "`amountEur` (Limit in euros) is missing; it is required");
    /// ```
    pub fn in_words(&self) -> String {
        match self {
            LessonProblem::Missing { label, .. } => format!("{label} is needed"),
            LessonProblem::UnknownField { field, .. } => format!(
                "the lesson holds {:?}, which the agent does not know",
                shortened(field)
            ),
            LessonProblem::WrongType { label, found, .. } => {
                format!("{label} must be given as text, not as {found}")
            }
            LessonProblem::NotAChoice {
                label,
                value,
                choices,
                ..
            } => format!(
                "{label}: {value:?} is not one of the choices ({})",
                choices.join(", ")
            ),
            LessonProblem::Invalid {
                label,
                value,
                reason,
                ..
            } => format!("{label}: {value:?} is not accepted: {reason}"),
            LessonProblem::Refused { label, reason, .. } => format!("{label}: {reason}"),
            LessonProblem::EntryMismatch {
                label,
                entry,
                value,
                ..
            } => format!(
                "{label} says {value:?}, but the lesson is about {entry:?}: leave {label} out, \
                 or teach {value:?} instead"
            ),
            LessonProblem::BadEntry {
                label,
                entry,
                reason,
                ..
            } => format!("{label}: {entry:?} is not accepted: {reason}"),
            LessonProblem::GivenTwice {
                label, again_as, ..
            } => format!(
                "{label} is given twice, once under its earlier name {:?}: give it once",
                shortened(again_as)
            ),
            LessonProblem::BelowMinimum { label, .. }
            | LessonProblem::AboveMaximum { label, .. }
            | LessonProblem::TooShort { label, .. }
            | LessonProblem::TooLong { label, .. }
            | LessonProblem::NoMatch { label, .. } => format!("{label}: {}", self.limit()),
            LessonProblem::WrongCollection { .. } | LessonProblem::NotMigrated { .. } => {
                self.to_string()
            }
        }
    }
}

impl fmt::Display for LessonProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LessonProblem::WrongCollection { expected, found } => write!(
                f,
                "this lesson is for the collection `{}`, but it was given to `{expected}`",
                shortened(found)
            ),
            LessonProblem::Missing { field, label } => {
                write!(f, "`{field}` ({label}) is missing; it is required")
            }
            LessonProblem::UnknownField { field, known } => {
                write!(
                    f,
                    "`{}` is not a field of this lesson; the fields are: {}",
                    shortened(field),
                    known.join(", ")
                )?;
                if let Some(near) =
                    learnables_rules::closest(field, known.iter().map(String::as_str))
                {
                    write!(f, " (did you mean `{near}`?)")?;
                }
                Ok(())
            }
            LessonProblem::WrongType {
                field,
                label,
                found,
            } => write!(
                f,
                "`{field}` ({label}) must be given as text, not as {found}"
            ),
            LessonProblem::NotAChoice {
                field,
                label,
                value,
                choices,
            } => write!(
                f,
                "`{field}` ({label}): {value:?} is not one of the choices: {}",
                choices.join(", ")
            ),
            LessonProblem::Invalid {
                field,
                label,
                value,
                reason,
            } => write!(
                f,
                "`{field}` ({label}): {value:?} is not accepted: {reason}"
            ),
            LessonProblem::Refused {
                field,
                label,
                reason,
            } => write!(f, "`{field}` ({label}): {reason}"),
            LessonProblem::EntryMismatch {
                field,
                label,
                entry,
                value,
            } => write!(
                f,
                "`{field}` ({label}): the value says {value:?} but the lesson's entry is \
                 {entry:?}; teach entry {value:?}, or set `{field}` to {entry:?}"
            ),
            LessonProblem::BadEntry {
                field,
                label,
                entry,
                reason,
            } => write!(
                f,
                "the lesson's entry {entry:?} is not a `{field}` ({label}): {reason}"
            ),
            LessonProblem::GivenTwice {
                field,
                label,
                again_as,
            } => write!(
                f,
                "`{field}` ({label}) is given twice, the second time as `{}` (its earlier \
                 name); give it once",
                shortened(again_as)
            ),
            LessonProblem::BelowMinimum {
                field,
                label,
                value,
                ..
            }
            | LessonProblem::AboveMaximum {
                field,
                label,
                value,
                ..
            } => write!(
                f,
                "`{field}` ({label}): {value:?} is not accepted: it must be {}",
                self.limit()
            ),
            LessonProblem::TooShort { field, label, .. }
            | LessonProblem::TooLong { field, label, .. } => {
                write!(f, "`{field}` ({label}) must have {}", self.limit())
            }
            LessonProblem::NoMatch { field, label, .. } => {
                write!(f, "`{field}` ({label}): {}", self.limit())
            }
            LessonProblem::NotMigrated { reason } => write!(
                f,
                "a stored value does not read as this type, and its migration refused it: {}",
                shortened(reason)
            ),
        }
    }
}

impl LessonError {
    /// An error of one or more problems; `None` when there are none.
    pub fn from_problems(problems: Vec<LessonProblem>) -> Option<LessonError> {
        (!problems.is_empty()).then_some(LessonError { problems })
    }

    /// The error of a lesson given to the wrong learnable.
    pub fn wrong_collection(expected: &str, found: &str) -> LessonError {
        LessonError {
            problems: vec![LessonProblem::WrongCollection {
                expected: expected.to_owned(),
                found: shortened(found),
            }],
        }
    }

    /// The lesson field at fault (the first, when several are), if one is.
    pub fn field(&self) -> Option<&str> {
        self.problems.iter().find_map(LessonProblem::field)
    }

    /// Every problem found, in the order of the lesson's keys and then of the
    /// learnable's fields.
    pub fn problems(&self) -> &[LessonProblem] {
        &self.problems
    }
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problems.as_slice() {
            [one] => one.fmt(f),
            many => {
                write!(f, "{} problems in the lesson:", many.len())?;
                for (index, problem) in many.iter().enumerate() {
                    write!(f, " {}) {problem}", index + 1)?;
                    if index + 1 < many.len() {
                        f.write_str(";")?;
                    }
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for LessonError {}

/// What a `#[learnable(validate = path)]` function refuses: one reason per
/// field at fault, reported like the field's own errors.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{FieldErrors, Learnable, LessonValue};
/// #[derive(Learnable, Debug)]
/// #[learnable(collection = "ranges", entry = "range", teaches = "Which weights a desk takes",
///     how = "A range of weights per desk, kept by the operations team", decided_by = "rules",
///     describes = "{entry}: {min} to {max} kg", validate = ordered)]
/// struct Range {
///     /// Lightest, in kg
///     min: u32,
///     /// Heaviest, in kg
///     max: u32,
/// }
///
/// fn ordered(range: &Range) -> Result<(), FieldErrors> {
///     if range.max < range.min {
///         return Err(FieldErrors::new().field(Range::FIELDS.max, "is less than the lightest"));
///     }
///     Ok(())
/// }
///
/// let value = LessonValue::try_from(serde_json::json!({"min": "10", "max": "5"})).unwrap();
/// let error = Range::from_lesson_value(&value).unwrap_err();
/// assert_eq!(error.field(), Some("max"));
/// assert_eq!(
///     error.to_string(),
///     "`max` (Heaviest, in kg): \"5\" is not accepted: is less than the lightest"
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldErrors {
    errors: Vec<(&'static str, String)>,
}

impl FieldErrors {
    /// No errors yet.
    pub fn new() -> FieldErrors {
        FieldErrors::default()
    }

    /// Adds a reason why `field`'s value is refused.
    pub fn field<L, V>(mut self, field: crate::FieldRef<L, V>, reason: impl Into<String>) -> Self {
        self.errors.push((field.name(), reason.into()));
        self
    }

    /// Whether no field is refused.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// Each field refused, by name, with its reason.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> {
        self.errors
            .iter()
            .map(|(field, reason)| (*field, reason.as_str()))
    }
}

impl fmt::Display for FieldErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, (field, reason)) in self.errors.iter().enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            write!(f, "`{field}`: {reason}")?;
        }
        Ok(())
    }
}

impl std::error::Error for FieldErrors {}

/// The longest piece of a value that an error message repeats.
const SHOWN_CHARS: usize = 80;

/// `text` as an error message may repeat it: at most `SHOWN_CHARS`
/// characters, the cut marked with an ellipsis.
pub fn shortened(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_shortened_on_a_char_boundary() {
        let long = "é".repeat(200);
        let short = shortened(&long);
        assert_eq!(short.chars().count(), SHOWN_CHARS + 1);
        assert!(short.ends_with('…'));
        assert_eq!(shortened("84"), "84");
    }

    #[test]
    fn several_problems_are_numbered() {
        let error = LessonError::from_problems(vec![
            LessonProblem::Missing {
                field: "a".into(),
                label: "A".into(),
            },
            LessonProblem::Missing {
                field: "b".into(),
                label: "B".into(),
            },
        ])
        .unwrap();
        assert_eq!(
            error.to_string(),
            "2 problems in the lesson: 1) `a` (A) is missing; it is required; \
             2) `b` (B) is missing; it is required"
        );
        assert_eq!(error.field(), Some("a"));
    }

    #[test]
    fn no_problems_is_no_error() {
        assert!(LessonError::from_problems(Vec::new()).is_none());
    }
}
