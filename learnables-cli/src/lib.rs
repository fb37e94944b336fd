//! `learnables`, the teacher's command-line client for agents that speak
//! the A2A **Learnables** extension (`https://rsaxb.com/a2a/learnables/v1`).
//!
//! - `learnables card URL`: what the agent can be taught, rendered for a
//!   person, and its declaration linted against the spec;
//! - `learnables check FILE`: the same lint on an agent card file;
//! - `learnables teach URL ...`: a lesson from a form in the terminal (or
//!   from `--set` alone), sent through the agent's teach method;
//! - `learnables show URL ...`: what the agent learned, through show-back;
//! - `learnables history URL ...`: an entry's versions and what each changed;
//! - `learnables revert URL ... --to VERSION_ID`: an earlier value taught again;
//! - `learnables retract URL ...`: an entry made absent.
//!
//! The lint is the library's own ([`learnables::a2a::CardDeclaration::read`]):
//! one set of rules for agents and for their teachers. The binary is thin;
//! each command lives in its module here, with its rendering in small pure
//! functions.

pub mod card;
pub mod check;
pub mod cli;
pub mod client;
pub mod error;
pub mod form;
pub mod history;
pub mod render;
pub mod retract;
pub mod revert;
pub mod show;
pub mod spinner;
pub mod style;
pub mod teach;

use std::process::ExitCode;
use std::time::Duration;

use learnables::untrusted::Untrusted;

use crate::cli::{Cli, Command};
use crate::client::{AgentClient, Connection};
use crate::error::CliError;
use crate::style::Style;

/// What a command produced: its report for standard output, and, when it
/// found something wrong (a lint violation), what to say on standard error
/// before exiting with status 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The report.
    pub stdout: String,
    /// A failure to report, if any.
    pub failure: Option<String>,
}

impl Outcome {
    /// A report and success.
    pub fn ok(stdout: String) -> Outcome {
        Outcome {
            stdout,
            failure: None,
        }
    }
}

/// Runs a parsed command line.
pub fn execute(cli: &Cli) -> Result<Outcome, CliError> {
    let connection = Connection {
        timeout: Duration::from_secs(cli.timeout.max(1)),
        ca_cert: cli.ca_cert.as_deref(),
    };
    match &cli.command {
        Command::Card(args) => card::run(&AgentClient::new(&args.url, &connection)?),
        Command::Check(args) => check::run(&args.file),
        Command::Teach(args) => teach::run(args, &AgentClient::new(&args.url, &connection)?),
        Command::Show(args) => show::run(args, &AgentClient::new(&args.url, &connection)?),
        Command::History(args) => history::run(args, &AgentClient::new(&args.url, &connection)?),
        Command::Revert(args) => revert::run(args, &AgentClient::new(&args.url, &connection)?),
        Command::Retract(args) => retract::run(args, &AgentClient::new(&args.url, &connection)?),
    }
}

/// The most of a failure message printed.
const MAX_FAILURE_CHARS: usize = 64 * 1024;

/// Runs a parsed command line and prints what it says: the report on
/// standard output, errors on standard error; exit status 1 on any error.
/// Each renderer escapes what it shows from outside; a failure is escaped
/// once more as a whole (escaping is idempotent), its lines kept.
pub fn main_with(cli: &Cli) -> ExitCode {
    let style = Style::for_stderr();
    let (stdout, failure) = match execute(cli) {
        Ok(outcome) => (outcome.stdout, outcome.failure),
        Err(error) => (String::new(), Some(error.to_string())),
    };
    print!("{}", style::scrub(&stdout));
    match failure {
        None => ExitCode::SUCCESS,
        Some(failure) => {
            let failure = Untrusted::new(&failure)
                .multi_line()
                .max_chars(MAX_FAILURE_CHARS);
            eprintln!("{} {failure}", style.red("error:"));
            ExitCode::FAILURE
        }
    }
}
