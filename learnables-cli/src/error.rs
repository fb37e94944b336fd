//! What can go wrong, said for the person at the terminal.

use std::fmt;

use crate::render::line;

/// A command's failure. Its `Display` is the message printed on standard
/// error; every failure exits with status 1.
#[derive(Debug)]
#[non_exhaustive]
pub enum CliError {
    /// Something the person can fix: an argument, a file, the agent's URL.
    Message(String),
    /// The agent answered a JSON-RPC call with an error.
    Refused(Box<Refusal>),
    /// The person cancelled the form; nothing was sent.
    Cancelled,
}

impl CliError {
    /// A failure described by `message`.
    pub fn msg(message: impl Into<String>) -> CliError {
        CliError::Message(message.into())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Message(message) => f.write_str(message),
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
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the agent refused {}: {}",
            self.what,
            line(&self.message)
        )?;
        if let Some(field) = &self.field {
            write!(f, " (field `{}`)", line(field))?;
        }
        if self.problems.len() > 1 {
            for (field, message) in &self.problems {
                match field {
                    Some(field) => write!(f, "\n  {}: {}", line(field), line(message))?,
                    None => write!(f, "\n  {}", line(message))?,
                }
            }
        }
        Ok(())
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
        };
        assert_eq!(
            refusal.to_string(),
            "the agent refused the lesson: `taughtBy` is wrong (field `taughtBy`)"
        );
        refusal.field = None;
        refusal.problems = vec![(Some("a".into()), "bad a".into()), (None, "bad".into())];
        assert_eq!(
            refusal.to_string(),
            "the agent refused the lesson: `taughtBy` is wrong\n  a: bad a\n  bad"
        );
    }

    #[test]
    fn a_hostile_refusal_stays_on_its_lines() {
        let refusal = Refusal {
            what: "the lesson".into(),
            code: -32602,
            message: "no\n\x1b[2Jerror: forged\x1b]52;c;eA==\x07".into(),
            field: Some("f\u{202e}".into()),
            reason: None,
            problems: vec![(Some("a\r".into()), "\u{9b}1A".into()), (None, "b".into())],
        };
        assert_eq!(
            refusal.to_string(),
            r"the agent refused the lesson: no\n\u{1b}[2Jerror: forged\u{1b}]52;c;eA==\u{7} (field `f\u{202e}`)"
                .to_owned()
                + "\n  "
                + r"a\r: \u{9b}1A"
                + "\n  b"
        );
    }
}
