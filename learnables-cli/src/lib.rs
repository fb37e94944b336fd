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
//! - `learnables retract URL ...`: an entry made absent;
//! - `learnables mcp URL`: an MCP server over stdio whose tools teach the
//!   agent through forms the person fills (elicitation);
//! - `learnables completions SHELL` and `learnables man`: a completion
//!   script and the manual page, made from the command line itself.
//!
//! Every command takes `--json`: one JSON document on standard output;
//! every failure has a kind and its exit status (`learnables --help` lists
//! them).
//!
//! The lint is the library's own ([`learnables::a2a::CardDeclaration::read`]):
//! one set of rules for agents and for their teachers. The binary is thin;
//! each command lives in the module named after it, with its rendering in
//! small pure functions, and returns its report (text and JSON) or its
//! failure, which one writer prints.
//!
//! Only the command line ([`cli`]) and [`main_from`] are public: the
//! binary runs [`main_from`], and a script or a test reads the command
//! line's shape from [`cli::Cli`]. The rest is the command's own.
//!
//! ```
//! use clap::CommandFactory;
//! let command = learnables_cli::cli::Cli::command();
//! assert!(command.get_subcommands().any(|sub| sub.get_name() == "teach"));
//! ```

pub mod cli;

mod card;
mod check;
mod client;
mod completions;
mod error;
mod error_kind;
mod form;
mod hidden_text;
mod history;
mod man;
mod mcp;
mod mcp_before_form;
mod mcp_flow;
mod mcp_review;
mod mcp_step;
mod mcp_text;
mod outcome;
mod render;
mod retract;
mod revert;
mod review;
mod show;
mod sign_in;
mod spinner;
mod style;
mod teach;

use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::client::{AgentClient, Connection};
use crate::error::CliError;
use crate::outcome::{Format, Outcome, emit, print_json};

/// Runs a parsed command line.
fn execute(cli: &Cli) -> Result<Outcome, CliError> {
    let format = Format::from_flag(cli.json);
    let connection = Connection {
        timeout: Duration::from_secs(cli.timeout.max(1)),
        ca_cert: cli.ca_cert.as_deref(),
        spinner: !format.is_json(),
    };
    match &cli.command {
        Command::Card(args) => card::run(&AgentClient::new(&args.url, &connection)?),
        Command::Check(args) => check::run(&args.file),
        Command::Teach(args) => {
            teach::run(args, &AgentClient::new(&args.url, &connection)?, format)
        }
        Command::Show(args) => show::run(
            args,
            &AgentClient::new(&args.target.url, &connection)?,
            format,
        ),
        Command::Mcp(args) => mcp::run(args, &connection, format),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
        Command::History(args) => history::run(
            args,
            &AgentClient::new(&args.target.url, &connection)?,
            format,
        ),
        Command::Revert(args) => revert::run(
            args,
            &AgentClient::new(&args.target.url, &connection)?,
            format,
        ),
        Command::Retract(args) => retract::run(
            args,
            &AgentClient::new(&args.target.url, &connection)?,
            format,
        ),
        Command::Review(args) => {
            review::run(args, &AgentClient::new(&args.url, &connection)?, format)
        }
    }
}

/// Runs a parsed command line and writes what it says ([`emit`]): the
/// exit status of its failure's kind, or 0.
fn main_with(cli: &Cli) -> ExitCode {
    emit(execute(cli), Format::from_flag(cli.json))
}

/// The whole command: reads `args` (the program's name first), runs it.
/// A command line clap refuses exits 2, as clap says; with `--json`
/// anywhere in it, the refusal is an error document on standard output.
/// `--help` and `--version` print as usual, whatever `--json` says.
///
/// ```
/// use std::process::ExitCode;
/// let status = learnables_cli::main_from(["learnables", "--version"].map(Into::into));
/// assert_eq!(status, ExitCode::SUCCESS);
/// ```
pub fn main_from(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    match Cli::try_parse_from(&args) {
        Ok(cli) => main_with(&cli),
        Err(error) => {
            let json = args
                .iter()
                .skip(1)
                .take_while(|arg| *arg != "--")
                .any(|arg| arg == "--json");
            if json && error.use_stderr() {
                let text = error.render().to_string();
                let message = text.trim().trim_start_matches("error: ");
                let error = CliError::usage(message);
                print_json(&error.to_json());
                ExitCode::from(error.kind().exit_code())
            } else {
                let _ = error.print();
                ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
            }
        }
    }
}
