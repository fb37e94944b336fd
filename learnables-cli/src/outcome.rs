//! What a command produced, and how it is written out: text for a person
//! or one JSON document for a script (`--json`), and the exit status of
//! its failure's kind.

use std::io::Write;
use std::process::ExitCode;

use learnables::untrusted::Untrusted;
use serde_json::Value;

use crate::error::CliError;
use crate::style::{self, Style};

/// How a command writes its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// For a person: text, outside text escaped, colour on a terminal.
    #[default]
    Text,
    /// For a script: exactly one JSON document on standard output, outside
    /// text left as data (JSON's own escaping only); no form, no spinner.
    Json,
}

impl Format {
    /// `Json` when `json` is set.
    pub fn from_flag(json: bool) -> Format {
        if json { Format::Json } else { Format::Text }
    }

    /// Whether this is `Json`.
    pub fn is_json(self) -> bool {
        self == Format::Json
    }
}

/// What a command produced: its report, as text and as a JSON document
/// with the same facts, and, when it found something wrong (a lint
/// violation), the failure to end on.
#[derive(Debug)]
pub struct Outcome {
    /// The report for a person.
    pub stdout: String,
    /// The report for a script.
    pub json: Value,
    /// A failure to report after the report, if any.
    pub failure: Option<CliError>,
}

impl Outcome {
    /// A report and success.
    pub fn ok(stdout: String, json: Value) -> Outcome {
        Outcome {
            stdout,
            json,
            failure: None,
        }
    }
}

/// Gives a warning: at once on standard error in text (before a form, say);
/// in JSON nothing here, the command puts it in its document's
/// `"warnings"`.
pub fn warn(format: Format, warning: &str) {
    if format == Format::Text {
        let warning = Untrusted::new(warning)
            .multi_line()
            .max_chars(MAX_FAILURE_CHARS);
        eprintln!("{} {warning}", Style::for_stderr().yellow("warning:"));
    }
}

/// The most of a failure message printed.
const MAX_FAILURE_CHARS: usize = 64 * 1024;

/// Writes a command's result as `format` says and gives its exit status:
/// 0, or the exit status of the failure's kind.
///
/// In text, the report goes to standard output and the failure to
/// standard error, escaped once more as a whole (escaping is idempotent),
/// its lines kept. In JSON, standard output gets the report's document, or
/// the error document of [`CliError::to_json`]; standard error nothing.
pub fn emit(result: Result<Outcome, CliError>, format: Format) -> ExitCode {
    let (report, failure) = match result {
        Ok(outcome) => (Some((outcome.stdout, outcome.json)), outcome.failure),
        Err(error) => (None, Some(error)),
    };
    let code = failure
        .as_ref()
        .map_or(0, |failure| failure.kind().exit_code());
    match format {
        Format::Json => {
            let document = match (report, &failure) {
                (Some((_, json)), _) => json,
                (None, Some(error)) => error.to_json(),
                (None, None) => Value::Null,
            };
            print_json(&document);
        }
        Format::Text => {
            if let Some((text, _)) = report {
                // A reader gone (a closed pipe) is no reason to panic.
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(style::scrub(&text).as_bytes());
                let _ = stdout.flush();
            }
            if let Some(failure) = failure {
                let failure = failure.to_string();
                let failure = Untrusted::new(&failure)
                    .multi_line()
                    .max_chars(MAX_FAILURE_CHARS);
                eprintln!("{} {failure}", Style::for_stderr().red("error:"));
            }
        }
    }
    ExitCode::from(code)
}

/// Prints `document` on standard output, indented.
pub fn print_json(document: &Value) {
    let mut stdout = std::io::stdout().lock();
    let text = serde_json::to_string_pretty(document).unwrap_or_else(|_| document.to_string());
    let _ = writeln!(stdout, "{text}");
    let _ = stdout.flush();
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_flag_gives_json_format() {
        use crate::outcome::Format;
        assert_eq!(Format::from_flag(true), Format::Json);
    }

    #[test]
    fn an_ok_outcome_has_no_failure() {
        use crate::outcome::Outcome;
        let outcome = Outcome::ok("done\n".into(), serde_json::json!({"done": true}));
        assert!(outcome.failure.is_none());
    }
}
