//! [`UnreadableReport`]: the stored versions a registered type does not
//! read, grouped by cause, each cause with the fix; and [`OnUnreadable`],
//! what registering does when there are some.

use std::fmt;

use crate::untrusted::Untrusted;
use crate::{LessonError, LessonProblem};

/// What [`Knowledge::register_with`](crate::Knowledge::register_with) does
/// when stored versions of the collection do not read as the type.
///
/// ```
/// use learnables_knowledge::OnUnreadable;
/// assert_eq!(OnUnreadable::default(), OnUnreadable::Refuse);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OnUnreadable {
    /// Refuse to register: the error is the report
    /// ([`KnowledgeError::Unreadable`](crate::KnowledgeError::Unreadable)).
    #[default]
    Refuse,
    /// Register anyway: an entry whose version does not read is read as
    /// unknown ([`Snapshot::get`](crate::Snapshot::get) gives `None`, so the
    /// agent asks again; [`Snapshot::try_get`](crate::Snapshot::try_get)
    /// says why). Its stored versions stay as they are.
    TreatAsUnknown,
}

/// Every stored version that does not read as its collection's registered
/// type, grouped by cause (a field missing, a choice gone, a value its type
/// no longer takes, ...), each cause with the attribute that fixes it. Its
/// `Display` is for an operator: stored text in it is escaped
/// ([`Untrusted`]).
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables_knowledge::{OnUnreadable, UnreadableReport};
/// use learnables_knowledge::{Knowledge, KnowledgeError};
/// use learnables::{Learnable, Lesson, LessonValue};
///
/// #[derive(Learnable, Debug, Clone)]
/// #[learnable(collection = "refund_policies", entry = "refund policy",
///     teaches = "Who approves a refund", how = "A person per shop, set by the finance team",
///     decided_by = "rules", describes = "{entry}: {amount} EUR")]
/// struct Before { /// Amount
///     amount: u32 }
///
/// #[derive(Learnable, Debug, Clone)]
/// #[learnable(collection = "refund_policies", entry = "refund policy",
///     teaches = "Who approves a refund", how = "A person per shop, set by the finance team",
///     decided_by = "rules", describes = "{entry}: {amount} EUR, {approver}")]
/// struct After { /// Amount
///     amount: u32, /// Approver
///     approver: String }
///
/// let dir = std::env::temp_dir().join(format!("learnables-unreadable-doc-{}", std::process::id()));
/// let knowledge = Knowledge::open(&dir)?;
/// knowledge.register::<Before>()?;
/// for shop in ["north", "south"] {
///     let value = LessonValue::try_from(serde_json::json!({"amount": "50"})).unwrap();
///     knowledge.teach(&Lesson::new("refund_policies", shop, value, "alice@example.com"))?;
/// }
/// drop(knowledge);
///
/// // The next build's type: every version lacks `approver`.
/// let knowledge = Knowledge::open(&dir)?;
/// let Err(KnowledgeError::Unreadable(report)) = knowledge.register::<After>() else { panic!() };
/// assert_eq!(report.causes().len(), 1);
/// assert_eq!(report.causes()[0].entries(), ["north", "south"]);
/// assert_eq!(
///     report.to_string(),
///     "2 stored versions do not read as their types:\n\
///      - `refund_policies`: `approver` (Approver) is missing in 2 stored versions of 2 entries \
///      (north, south): give it a `default`, make it an `Option`, give it its earlier name as an \
///      `alias` if it was renamed, or `migrate`\n\
///      Or start anyway, those entries read as unknown (the agent asks for them again; their \
///      history stays): register with `OnUnreadable::TreatAsUnknown` \
///      (`Knowledge::register_declaration` or `Knowledge::register_with`) before building the \
///      service."
/// );
///
/// // Or start anyway: those entries read as unknown, their history untouched.
/// let report = knowledge.register_with::<After>(OnUnreadable::TreatAsUnknown)?;
/// assert_eq!(report.versions(), 2);
/// assert!(knowledge.pin().get::<After>("north").is_none());
/// # drop(knowledge); std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnreadableReport {
    causes: Vec<UnreadableCause>,
    versions: u64,
}

/// One cause of stored versions not reading: where, how many, which
/// entries, and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableCause {
    collection: String,
    /// The first instance of the problem, as the type reported it.
    problem: LessonProblem,
    versions: u64,
    /// In the order they were found (the collection's history, oldest first).
    entries: Vec<String>,
}

/// How many entries a cause's `Display` names before it counts the rest.
const ENTRIES_SHOWN: usize = 20;

impl UnreadableReport {
    /// Whether every stored version reads.
    pub fn is_empty(&self) -> bool {
        self.causes.is_empty()
    }

    /// The causes, in the order they were first met.
    pub fn causes(&self) -> &[UnreadableCause] {
        &self.causes
    }

    /// How many stored versions do not read (a version with two causes is
    /// counted once).
    pub fn versions(&self) -> u64 {
        self.versions
    }

    /// Whether the entry `entry` of `collection` has a version that does
    /// not read.
    pub fn names(&self, collection: &str, entry: &str) -> bool {
        self.causes.iter().any(|cause| {
            cause.collection == collection && cause.entries.iter().any(|named| named == entry)
        })
    }

    /// Adds a version of `entry` of `collection` that does not read, for
    /// `error`.
    pub(crate) fn add(&mut self, collection: &str, entry: &str, error: &LessonError) {
        self.versions += 1;
        for problem in error.problems() {
            let found = self.causes.iter_mut().find(|cause| {
                cause.collection == collection && same_cause(&cause.problem, problem)
            });
            match found {
                Some(cause) => {
                    cause.versions += 1;
                    if !cause.entries.iter().any(|named| named == entry) {
                        cause.entries.push(entry.to_owned());
                    }
                }
                None => self.causes.push(UnreadableCause {
                    collection: collection.to_owned(),
                    problem: problem.clone(),
                    versions: 1,
                    entries: vec![entry.to_owned()],
                }),
            }
        }
    }

    /// Adds every cause of `other`.
    pub(crate) fn extend(&mut self, other: UnreadableReport) {
        self.versions += other.versions;
        self.causes.extend(other.causes);
    }
}

impl UnreadableCause {
    /// The collection whose stored versions do not read.
    pub fn collection(&self) -> &str {
        &self.collection
    }

    /// The problem, as the type reported it for the first version met.
    pub fn problem(&self) -> &LessonProblem {
        &self.problem
    }

    /// The field at fault, if one is.
    pub fn field(&self) -> Option<&str> {
        self.problem.field()
    }

    /// How many stored versions have this problem.
    pub fn versions(&self) -> u64 {
        self.versions
    }

    /// The entries with such a version, in the order they were met.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// What fixes it, in the derive's attributes.
    pub fn fix(&self) -> &'static str {
        match &self.problem {
            LessonProblem::Missing { .. } => {
                "give it a `default`, make it an `Option`, give it its earlier name as an \
                 `alias` if it was renamed, or `migrate`"
            }
            LessonProblem::NotAChoice { .. } => {
                "give the variant that stands for it now `#[choice(alias = \"...\")]` with this \
                 choice, or `migrate`"
            }
            LessonProblem::Invalid { .. } | LessonProblem::WrongType { .. } => {
                "give the field a type that reads these values, or `migrate` them"
            }
            LessonProblem::Refused { .. } => {
                "let the type's `validate` accept these values, or `migrate` them"
            }
            LessonProblem::GivenTwice { .. } => "`migrate` the values to hold it once",
            LessonProblem::NotMigrated { .. } => "make the `migrate` function accept them",
            _ => "`migrate` these values",
        }
    }
}

/// Whether two problems have one cause: the same kind, on the same field,
/// for the same reason (a choice that is gone, by its value).
fn same_cause(a: &LessonProblem, b: &LessonProblem) -> bool {
    use LessonProblem as P;
    match (a, b) {
        (P::Missing { field: x, .. }, P::Missing { field: y, .. }) => x == y,
        (P::WrongType { field: x, .. }, P::WrongType { field: y, .. }) => x == y,
        (
            P::NotAChoice {
                field: x, value: v, ..
            },
            P::NotAChoice {
                field: y, value: w, ..
            },
        ) => x == y && v == w,
        (
            P::Invalid {
                field: x,
                reason: r,
                ..
            },
            P::Invalid {
                field: y,
                reason: s,
                ..
            },
        )
        | (
            P::Refused {
                field: x,
                reason: r,
                ..
            },
            P::Refused {
                field: y,
                reason: s,
                ..
            },
        ) => x == y && r == s,
        (
            P::GivenTwice {
                field: x,
                again_as: r,
                ..
            },
            P::GivenTwice {
                field: y,
                again_as: s,
                ..
            },
        ) => x == y && r == s,
        (P::NotMigrated { reason: r }, P::NotMigrated { reason: s }) => r == s,
        _ => a == b,
    }
}

/// Stored text as the report shows it: escaped and bounded.
fn shown(text: &str) -> Untrusted<'_> {
    Untrusted::new(text).max_chars(80)
}

/// A type's or a migration's reason as the report shows it: escaped (it
/// may repeat stored text), and bounded more loosely than a value.
fn explained(reason: &str) -> Untrusted<'_> {
    Untrusted::new(reason).max_chars(240)
}

impl fmt::Display for UnreadableCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: ", self.collection)?;
        match &self.problem {
            LessonProblem::Missing { field, label } => write!(f, "`{field}` ({label}) is missing")?,
            LessonProblem::NotAChoice {
                field,
                label,
                value,
                ..
            } => write!(
                f,
                "`{field}` ({label}) holds \"{}\", no longer one of its choices,",
                shown(value)
            )?,
            LessonProblem::Invalid {
                field,
                label,
                value,
                reason,
            } => write!(
                f,
                "`{field}` ({label}) does not read as its type ({}; \"{}\", for one)",
                explained(reason),
                shown(value)
            )?,
            LessonProblem::WrongType {
                field,
                label,
                found,
            } => write!(f, "`{field}` ({label}) is stored as {found}, not as text,")?,
            LessonProblem::Refused {
                field,
                label,
                reason,
            } => write!(
                f,
                "`{field}` ({label}) is refused by `validate` ({})",
                explained(reason)
            )?,
            LessonProblem::GivenTwice {
                field,
                label,
                again_as,
            } => write!(
                f,
                "`{field}` ({label}) is held twice, once as `{}`,",
                shown(again_as)
            )?,
            LessonProblem::NotMigrated { reason } => {
                write!(f, "the migration refuses ({})", explained(reason))?
            }
            other => write!(f, "{}", shown(&other.to_string()))?,
        }
        let versions = plural(self.versions, "stored version");
        let entries = plural(self.entries.len() as u64, "entry");
        write!(f, " in {versions} of {entries} (")?;
        for (at, entry) in self.entries.iter().take(ENTRIES_SHOWN).enumerate() {
            if at > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", shown(entry))?;
        }
        if self.entries.len() > ENTRIES_SHOWN {
            write!(f, " and {} more", self.entries.len() - ENTRIES_SHOWN)?;
        }
        write!(f, "): {}", self.fix())
    }
}

impl fmt::Display for UnreadableReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} not read as their types:",
            match self.versions {
                1 => "1 stored version does".to_owned(),
                n => format!("{n} stored versions do"),
            }
        )?;
        for cause in &self.causes {
            write!(f, "\n- {cause}")?;
        }
        write!(f, "\n{START_ANYWAY}")
    }
}

/// The fix that is always there: starting with those entries unknown.
const START_ANYWAY: &str = "Or start anyway, those entries read as unknown (the agent asks for \
     them again; their history stays): register with `OnUnreadable::TreatAsUnknown` \
     (`Knowledge::register_declaration` or `Knowledge::register_with`) before building the \
     service.";

/// `count` `noun`s, the plural made by the English rules the report needs.
fn plural(count: u64, noun: &str) -> String {
    match (count, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{count} {stem}ies"),
        _ => format!("{count} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(field: &str) -> LessonError {
        LessonError::from_problems(vec![LessonProblem::Missing {
            field: field.into(),
            label: field.to_uppercase(),
        }])
        .unwrap()
    }

    fn gone(value: &str) -> LessonError {
        LessonError::from_problems(vec![LessonProblem::NotAChoice {
            field: "desk".into(),
            label: "Desk".into(),
            value: value.into(),
            choices: vec!["general".into()],
        }])
        .unwrap()
    }

    #[test]
    fn versions_are_grouped_by_cause_and_entries_named_once() {
        let mut report = UnreadableReport::default();
        report.add("rules", "84", &missing("approver"));
        report.add("rules", "84", &missing("approver"));
        report.add("rules", "85", &gone("cold chain"));
        report.add("rules", "86", &gone("perishables"));
        report.add("limits", "alice", &missing("approver"));
        assert_eq!(report.versions(), 5);
        let causes: Vec<(&str, u64, &[String])> = report
            .causes()
            .iter()
            .map(|cause| (cause.collection(), cause.versions(), cause.entries()))
            .collect();
        assert_eq!(
            causes,
            [
                ("rules", 2, &["84".to_owned()][..]),
                ("rules", 1, &["85".to_owned()][..]),
                ("rules", 1, &["86".to_owned()][..]),
                ("limits", 1, &["alice".to_owned()][..]),
            ]
        );
        assert!(report.names("rules", "85") && !report.names("limits", "85"));
    }

    #[test]
    fn stored_text_is_escaped_and_long_lists_are_counted() {
        let mut report = UnreadableReport::default();
        report.add("rules", "\u{1b}]52;c;x\u{7}", &gone("cold\u{202e}chain"));
        for entry in 0..25 {
            report.add("rules", &entry.to_string(), &gone("cold\u{202e}chain"));
        }
        let invalid = LessonError::from_problems(vec![LessonProblem::Invalid {
            field: "limit".into(),
            label: "Limit".into(),
            value: "9\u{7}".into(),
            reason: "no such limit: 9\u{1b}[2J".into(),
        }])
        .unwrap();
        report.add("rules", "84", &invalid);
        let shown = report.to_string();
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{202e}') && !shown.contains('\u{7}'),
            "{shown}"
        );
        assert!(
            shown.contains("(no such limit: 9\\u{1b}[2J; \"9\\u{7}\", for one)"),
            "{shown}"
        );
        assert!(shown.contains("\"cold\\u{202e}chain\", no longer one of its choices"));
        assert!(
            shown.contains("in 26 stored versions of 26 entries ("),
            "{shown}"
        );
        assert!(shown.contains(" and 6 more): give the variant"), "{shown}");
    }
}
