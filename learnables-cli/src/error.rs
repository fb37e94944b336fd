//! What can go wrong, said for the person at the terminal, with its kind
//! ([`ErrorKind`]): the exit status, and the `--json` error document.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Value, json};

use crate::error_kind::ErrorKind;
use crate::render::{labelled, line};

/// A command's failure. Its `Display` is the message printed on standard
/// error; its [`kind`](CliError::kind) gives the exit status.
#[derive(Debug)]
#[non_exhaustive]
pub enum CliError {
    /// A failure of `kind`, described by `message` (outside text in it
    /// already escaped).
    Failed {
        /// What kind of failure.
        kind: ErrorKind,
        /// What to tell the person.
        message: String,
    },
    /// The agent answered a JSON-RPC call with an error.
    Refused(Box<Refusal>),
    /// The person cancelled the form; nothing was sent.
    Cancelled,
}

impl CliError {
    /// A failure of `kind` described by `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> CliError {
        CliError::Failed {
            kind,
            message: message.into(),
        }
    }

    /// A usage error (exit 2): an argument or a file the person gave.
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError::new(ErrorKind::Usage, message)
    }

    /// A network or TLS failure (exit 3).
    pub fn network(message: impl Into<String>) -> CliError {
        CliError::new(ErrorKind::Network, message)
    }

    /// An answer of the agent not understood (exit 4).
    pub fn not_understood(message: impl Into<String>) -> CliError {
        CliError::new(ErrorKind::NotUnderstood, message)
    }

    /// A lint failure (exit 1): the card breaks the spec.
    pub fn lint(message: impl Into<String>) -> CliError {
        CliError::new(ErrorKind::Lint, message)
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            CliError::Failed { kind, .. } => *kind,
            CliError::Refused(_) => ErrorKind::Refused,
            CliError::Cancelled => ErrorKind::Cancelled,
        }
    }

    /// The `--json` error document: `{"error": {"kind", "message",
    /// "exitCode"}}`, and for a refusal `"refusal"` with the agent's own
    /// words as data (not escaped).
    pub fn to_json(&self) -> Value {
        let kind = self.kind();
        let mut error = json!({
            "kind": kind.name(),
            "message": self.to_string(),
            "exitCode": kind.exit_code(),
        });
        if let CliError::Refused(refusal) = self {
            error["refusal"] = refusal.to_json();
        }
        json!({ "error": error })
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Failed { message, .. } => f.write_str(message),
            CliError::Refused(refusal) => refusal.fmt(f),
            CliError::Cancelled => f.write_str("cancelled: nothing was sent to the agent"),
        }
    }
}

impl std::error::Error for CliError {}

/// A JSON-RPC error as the agent sent it (its text shown escaped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What was refused: "the lesson", "the show-back".
    pub what: String,
    /// The JSON-RPC error code.
    pub code: i64,
    /// The agent's message.
    pub message: String,
    /// The first field at fault, if the agent named one.
    pub field: Option<String>,
    /// The stable reason of the refusal (its `google.rpc.ErrorInfo`), if
    /// the agent gave one: `LESSON_INVALID`, `TEACHER_NOT_ALLOWED`, ...
    pub reason: Option<String>,
    /// Each field at fault the agent listed (its `google.rpc.BadRequest`),
    /// as `(field, description)`.
    pub problems: Vec<(Option<String>, String)>,
    /// The label of each field at fault that the command knows (`value.NAME`
    /// for a lesson's field): a description that does not start with it is
    /// shown after it, so that every refusal names its field once, by its
    /// label. Not part of the `--json` document, which keeps the agent's keys.
    pub labels: BTreeMap<String, String>,
}

impl Refusal {
    /// The refusal as data: the agent's code, message, reason and each
    /// field at fault, as the agent sent them.
    pub fn to_json(&self) -> Value {
        let problems: Vec<Value> = self
            .problems
            .iter()
            .map(|(field, description)| json!({"field": field, "description": description}))
            .collect();
        json!({
            "what": self.what,
            "code": self.code,
            "message": self.message,
            "field": self.field,
            "reason": self.reason,
            "problems": problems,
        })
    }
}

impl fmt::Display for Refusal {
    /// In the teacher's words: what the agent says of each field at fault
    /// (its `BadRequest` descriptions, which name the field by its label),
    /// else its message. The keys (`value.amountEur`) stay in the
    /// `--json` document.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: Vec<String> = self
            .problems
            .iter()
            .filter(|(_, description)| !description.trim().is_empty())
            .map(|(field, description)| {
                match field.as_ref().and_then(|field| self.labels.get(field)) {
                    Some(label) => labelled(label, description),
                    None => description.clone(),
                }
            })
            .collect();
        write!(f, "the agent refused {}:", self.what)?;
        match shown.as_slice() {
            [] => write!(f, " {}", line(&self.message)),
            [one] => write!(f, " {}", line(one)),
            several => several
                .iter()
                .try_for_each(|problem| write!(f, "\n  {}", line(problem))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_its_field_and_lists_several_problems() {
        let mut refusal = Refusal {
            what: "the lesson".into(),
            code: -31041,
            message: "`taughtBy` is wrong".into(),
            field: Some("taughtBy".into()),
            reason: None,
            problems: vec![],
            labels: BTreeMap::new(),
        };
        assert_eq!(
            refusal.to_string(),
            "the agent refused the lesson: `taughtBy` is wrong"
        );
        // The fields at fault in the agent's words, each by its label once.
        refusal.problems = vec![(
            Some("value.amount".into()),
            "Amount: \"x\" is no number".into(),
        )];
        assert_eq!(
            refusal.to_string(),
            "the agent refused the lesson: Amount: \"x\" is no number"
        );
        refusal.problems = vec![
            (Some("value.a".into()), "is no number".into()),
            (Some("value.b".into()), "Bee is needed".into()),
            (Some("value.c".into()), "bad c".into()),
            (None, "bad".into()),
        ];
        refusal.labels = [("value.a", "Ay"), ("value.b", "Bee")]
            .map(|(field, label)| (field.to_owned(), label.to_owned()))
            .into();
        assert_eq!(
            refusal.to_string(),
            "the agent refused the lesson:\n  Ay: is no number\n  Bee is needed\n  bad c\n  bad"
        );
    }

    #[test]
    fn a_refusal_document_keeps_the_agents_words_as_data() {
        let refusal = Refusal {
            what: "the lesson".into(),
            code: -31041,
            message: "no\n\x1b[2J".into(),
            field: None,
            reason: Some("LESSON_INVALID".into()),
            problems: vec![(Some("value.a".into()), "bad\x07".into())],
            labels: BTreeMap::new(),
        };
        let document = CliError::Refused(Box::new(refusal)).to_json();
        assert_eq!(document["error"]["kind"], "refused");
        assert_eq!(document["error"]["exitCode"], 1);
        assert_eq!(document["error"]["refusal"]["message"], "no\n\x1b[2J");
        assert_eq!(
            document["error"]["refusal"]["problems"][0],
            json!({"field": "value.a", "description": "bad\x07"})
        );
        assert_eq!(document["error"]["refusal"]["reason"], "LESSON_INVALID");
    }

    #[test]
    fn a_hostile_refusal_stays_on_its_lines() {
        let mut refusal = Refusal {
            what: "the lesson".into(),
            code: -32602,
            message: "no\n\x1b[2Jerror: forged\x1b]52;c;eA==\x07".into(),
            field: Some("f\u{202e}".into()),
            reason: None,
            problems: vec![],
            labels: BTreeMap::new(),
        };
        assert_eq!(
            refusal.to_string(),
            r"the agent refused the lesson: no\n\u{1b}[2Jerror: forged\u{1b}]52;c;eA==\u{7}"
        );
        refusal.problems = vec![(Some("a\r".into()), "\u{9b}1A".into()), (None, "b".into())];
        refusal.labels = [("a\r".to_owned(), "L\x1b[2J".to_owned())].into();
        assert_eq!(
            refusal.to_string(),
            "the agent refused the lesson:\n  ".to_owned() + r"L\u{1b}[2J: \u{9b}1A" + "\n  b"
        );
    }

    #[test]
    fn a_failure_has_its_kind_and_message() {
        use crate::error::CliError;
        use crate::error_kind::ErrorKind;
        let error = CliError::new(ErrorKind::Network, "cannot reach the agent");
        assert_eq!(error.kind().exit_code(), 3);
        assert_eq!(error.to_string(), "cannot reach the agent");
    }

    #[test]
    fn kinds_of_failures() {
        use crate::error::CliError;
        use crate::error_kind::ErrorKind;
        assert_eq!(CliError::Cancelled.kind(), ErrorKind::Cancelled);
        assert_eq!(CliError::usage("no such field").kind().exit_code(), 2);
    }

    #[test]
    fn a_cancelled_document() {
        use crate::error::CliError;
        let document = CliError::Cancelled.to_json();
        assert_eq!(document["error"]["kind"], "cancelled");
        assert_eq!(document["error"]["exitCode"], 130);
    }
}
