//! The command line, as clap reads it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use clap_complete::Shell;

use crate::error_kind::EXIT_STATUS_HELP;

/// The teacher's client for agents that speak the A2A Learnables
/// extension: read what an agent can be taught, teach it, and see what it
/// learned.
///
/// ```
/// use clap::Parser;
/// use learnables_cli::cli::{Cli, Command};
/// let cli = Cli::try_parse_from([
///     "learnables", "teach", "http://127.0.0.1:8080", "-c", "routing_rules", "-e", "64",
///     "--token", "t", "--set", "desk=general", "--yes",
/// ])
/// .unwrap();
/// let Command::Teach(teach) = cli.command else { panic!("a teach") };
/// assert_eq!(teach.sets, [("desk".to_owned(), "general".to_owned())]);
/// assert!(teach.yes && !cli.json);
/// ```
#[derive(Debug, Parser)]
#[command(name = "learnables", version, about, long_about = None, after_help = EXIT_STATUS_HELP)]
pub struct Cli {
    /// Write exactly one JSON document on standard output (the report, or
    /// an error document); never show a form.
    #[arg(long, global = true)]
    pub json: bool,
    /// Give up on the agent after this many seconds.
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = 30)]
    pub timeout: u64,
    /// Trust the certificate authorities in this PEM file, besides the
    /// system's: for an agent whose certificate a company's or a test
    /// authority signed.
    #[arg(long, global = true, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands: each runs in the module named after it.
///
/// ```
/// use clap::Parser;
/// use learnables_cli::cli::{Cli, Command};
/// let cli = Cli::try_parse_from(["learnables", "check", "card.json"]).unwrap();
/// assert!(matches!(cli.command, Command::Check(check) if check.file.ends_with("card.json")));
/// ```
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show an agent's learnables, and lint its card against the spec.
    #[command(after_help = EXIT_STATUS_HELP)]
    Card(CardArgs),
    /// Lint an agent card file against the spec (exit 1 on any violation).
    #[command(after_help = EXIT_STATUS_HELP)]
    Check(CheckArgs),
    /// Teach an agent: a form in the terminal, or none when --set gives
    /// every field.
    #[command(after_help = EXIT_STATUS_HELP)]
    Teach(TeachArgs),
    /// Show what an agent learned for an entry (show-back).
    #[command(after_help = EXIT_STATUS_HELP)]
    Show(ShowArgs),
    /// Show an entry's history: version, when, who, why, what changed.
    History(HistoryArgs),
    /// Teach an entry an earlier version's value again (asks first).
    Revert(RevertArgs),
    /// Retract an entry: new tasks no longer know it (asks first).
    Retract(RetractArgs),
    /// List the lessons waiting for your review, or approve or reject one
    /// (an approval asks first).
    #[command(after_help = EXIT_STATUS_HELP)]
    Review(ReviewArgs),
    /// Serve an MCP server over stdio for the agent: its learnables as
    /// tools for an AI assistant, each lesson from a form the person fills.
    #[command(after_help = MCP_HELP)]
    Mcp(McpArgs),
    /// Print a completion script for a shell.
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(CompletionsArgs),
    /// Print the manual page (roff), or write one for each command to a
    /// directory.
    #[command(after_help = MAN_HELP)]
    Man(ManArgs),
}

/// How to install a completion script, as `completions --help` says.
pub(crate) const COMPLETIONS_HELP: &str = "\
Install, for example:
  bash        learnables completions bash > ~/.local/share/bash-completion/completions/learnables
  zsh         learnables completions zsh > ~/.zfunc/_learnables   (with ~/.zfunc in fpath)
  fish        learnables completions fish > ~/.config/fish/completions/learnables.fish
  powershell  learnables completions powershell >> $PROFILE
  elvish      learnables completions elvish >> ~/.config/elvish/rc.elv";

/// How to read or install the manual, as `man --help` says.
pub(crate) const MAN_HELP: &str = "\
Read it with `learnables man | man -l -`; install every page with
`learnables man --out ~/.local/share/man/man1` (learnables.1, learnables-card.1, ...).";

/// How to add `learnables mcp` to an MCP host, as `mcp --help` says.
pub(crate) const MCP_HELP: &str = "\
Add it to the host's `mcpServers`, the token in its environment:
  {\"mcpServers\": {\"customs-agent\": {\"command\": \"learnables\",
    \"args\": [\"mcp\", \"http://127.0.0.1:8080\"], \"env\": {\"LEARNABLES_TOKEN\": \"...\"}}}}
Standard output carries the protocol only; messages go to standard error.";

/// `learnables mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The agent's URL (http://host:port or https://host:port).
    pub url: String,
    /// The teacher's bearer token; prefer the environment variable, which
    /// neither the host's model nor other users of the machine see.
    #[arg(long, env = "LEARNABLES_TOKEN", hide_env_values = true)]
    pub token: String,
}

/// `learnables completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// `learnables man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write learnables.1 and one page per command into this directory
    /// (made if missing) instead of printing learnables.1.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// `learnables card`.
#[derive(Debug, Args)]
pub struct CardArgs {
    /// The agent's URL (http://host:port or https://host:port); its card
    /// is at URL/.well-known/agent-card.json.
    pub url: String,
}

/// `learnables check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The agent card file (JSON); `-` reads standard input.
    pub file: PathBuf,
}

/// `learnables teach`.
#[derive(Debug, Args)]
pub struct TeachArgs {
    /// The agent's URL (http://host:port or https://host:port).
    pub url: String,
    /// The collection to teach (from the card's learnables).
    #[arg(long, short, required_unless_present = "question")]
    pub collection: Option<String>,
    /// The entry to teach: its key in the collection.
    #[arg(long, short, required_unless_present = "question")]
    pub entry: Option<String>,
    /// Who teaches: the person the token belongs to (an email address,
    /// say). Without it, the agent says whom the token names.
    #[arg(long, value_name = "WHO", env = "LEARNABLES_TAUGHT_BY")]
    pub taught_by: Option<String>,
    /// The teacher's bearer token; prefer the environment variable, which
    /// other users of the machine cannot see.
    #[arg(long, env = "LEARNABLES_TOKEN", hide_env_values = true)]
    pub token: String,
    /// Why, in your words; kept with the lesson.
    #[arg(long, short)]
    pub reason: Option<String>,
    /// A field's value, NAME=VALUE (repeatable; `learnables card` lists
    /// the NAMEs); an empty VALUE leaves the field out. With every field
    /// given, no form is shown.
    #[arg(long = "set", short = 's', value_name = "NAME=VALUE", value_parser = parse_set)]
    pub sets: Vec<(String, String)>,
    /// Start from the agent's question: its collection, entries and
    /// suggestion. A file holding the question message, the task that asked
    /// (or a JSON-RPC answer carrying either), or the page link the agent
    /// sent (`...#task=ID`), whose task is read from the agent.
    #[arg(long, value_name = "FILE or LINK")]
    pub question: Option<String>,
    /// Take every field not given with --set from the question's
    /// suggestion or its default without asking, even on a terminal; a
    /// field with neither is left out.
    #[arg(long, short = 'y')]
    pub accept_defaults: bool,
    /// Send without the review's question. Without a terminal (or with
    /// --json), also leave out the fields that have no value, no suggestion
    /// and no default: the agent refuses a lesson that lacks one it needs,
    /// by its label.
    #[arg(long)]
    pub yes: bool,
}

/// The agent, the entry and the token of a command about one entry
/// (`show`, `history`, `revert`, `retract`).
#[derive(Debug, Args)]
pub struct EntryArgs {
    /// The agent's URL (http://host:port or https://host:port).
    pub url: String,
    /// The collection.
    #[arg(long, short)]
    pub collection: String,
    /// The entry.
    #[arg(long, short)]
    pub entry: String,
    /// The teacher's bearer token; prefer the environment variable.
    #[arg(long, env = "LEARNABLES_TOKEN", hide_env_values = true)]
    pub token: String,
}

/// `learnables show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The agent, the entry and the token.
    #[command(flatten)]
    pub target: EntryArgs,
    /// Show the entry as of this version id rather than now (`--version`
    /// alone prints the command's own version).
    #[arg(long = "as-of", value_name = "VERSION_ID")]
    pub as_of: Option<String>,
}

/// `learnables history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The agent, the entry and the token.
    #[command(flatten)]
    pub target: EntryArgs,
    /// How many versions to show (1 to 100).
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// Start from this version (the `--from` the last page names).
    #[arg(long, value_name = "VERSION_ID")]
    pub from: Option<String>,
}

/// `learnables revert`.
#[derive(Debug, Args)]
pub struct RevertArgs {
    /// The agent, the entry and the token.
    #[command(flatten)]
    pub target: EntryArgs,
    /// The version whose value to teach again (see `learnables history`).
    #[arg(long = "to", value_name = "VERSION_ID")]
    pub to: String,
    /// Who teaches: the person the token belongs to (without it, the agent
    /// says whom the token names).
    #[arg(long, value_name = "WHO", env = "LEARNABLES_TAUGHT_BY")]
    pub taught_by: Option<String>,
    /// Why, in your words ("Revert to version N" when not given).
    #[arg(long, short)]
    pub reason: Option<String>,
    /// Teach without asking (for scripts).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// `learnables retract`.
#[derive(Debug, Args)]
pub struct RetractArgs {
    /// The agent, the entry and the token.
    #[command(flatten)]
    pub target: EntryArgs,
    /// Who retracts it: the person the token belongs to (without it, the
    /// agent says whom the token names).
    #[arg(long, value_name = "WHO", env = "LEARNABLES_TAUGHT_BY")]
    pub taught_by: Option<String>,
    /// Why, in your words; kept with the retraction.
    #[arg(long, short)]
    pub reason: Option<String>,
    /// Retract without asking (for scripts).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// `learnables review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The agent's URL (http://host:port or https://host:port).
    pub url: String,
    /// The teacher's bearer token; prefer the environment variable.
    #[arg(long, env = "LEARNABLES_TOKEN", hide_env_values = true)]
    pub token: String,
    /// Approve the proposal with this id (see the list).
    #[arg(long, value_name = "ID", conflicts_with = "reject")]
    pub approve: Option<String>,
    /// Reject the proposal with this id; needs --reason.
    #[arg(long, value_name = "ID", requires = "reason")]
    pub reject: Option<String>,
    /// Why, in your words; kept with the decision.
    #[arg(long, short)]
    pub reason: Option<String>,
    /// Approve without asking (for scripts).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// Reads `NAME=VALUE`.
pub(crate) fn parse_set(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not NAME=VALUE"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{text}` names no field"));
    }
    // A value reads as the form reads it: " 51 " is 51.
    Ok((name.to_owned(), value.trim().to_owned()))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn set_values() {
        assert_eq!(
            parse_set("desk=cold chain"),
            Ok(("desk".into(), "cold chain".into()))
        );
        assert_eq!(parse_set("note="), Ok(("note".into(), String::new())));
        assert_eq!(parse_set("a=b=c"), Ok(("a".into(), "b=c".into())));
        assert!(parse_set("desk").is_err());
        assert!(parse_set("=x").is_err());
    }

    #[test]
    fn set_values_are_trimmed_as_the_form_trims_them() {
        assert_eq!(
            parse_set("chapter= 51 "),
            Ok(("chapter".into(), "51".into()))
        );
        assert_eq!(parse_set(" note = "), Ok(("note".into(), String::new())));
    }

    #[test]
    fn no_flag_of_a_command_collides_with_a_global_one() {
        // `show --version` once meant a version id; `-q` once meant `--question`.
        assert!(
            Cli::try_parse_from([
                "learnables",
                "show",
                "u",
                "-c",
                "c",
                "-e",
                "e",
                "--token",
                "t",
                "--version",
                "v"
            ])
            .is_err()
        );
        assert!(
            Cli::try_parse_from(["learnables", "teach", "u", "-q", "f", "--token", "t"]).is_err()
        );
        let cli = Cli::try_parse_from([
            "learnables",
            "show",
            "u",
            "-c",
            "c",
            "-e",
            "e",
            "--token",
            "t",
            "--as-of",
            "v",
        ])
        .unwrap();
        let Command::Show(show) = cli.command else {
            panic!("a show")
        };
        assert_eq!(show.as_of.as_deref(), Some("v"));
    }
}
