//! `learnables retract`: makes an entry absent through the card's
//! `retractMethod`, after saying what it retracts and asking (`--yes` for
//! scripts). Earlier versions stay in the history; a later lesson teaches
//! the entry again.

use clap::Args;
use learnables::LessonResult;

use crate::Outcome;
use crate::check::params_for_teaching;
use crate::client::AgentClient;
use crate::error::CliError;
use crate::render::line;
use crate::revert::confirmed;
use crate::style::Style;
use crate::teach::{find_descriptor, render_result};

/// `learnables retract`.
#[derive(Debug, Args)]
pub struct RetractArgs {
    /// The agent's URL (http://host:port or https://host:port).
    pub url: String,
    /// The collection.
    #[arg(long, short)]
    pub collection: String,
    /// The entry to retract.
    #[arg(long, short)]
    pub entry: String,
    /// Who retracts it: the person the token belongs to.
    #[arg(long, value_name = "WHO", env = "LEARNABLES_TAUGHT_BY")]
    pub taught_by: String,
    /// The teacher's bearer token; prefer the environment variable.
    #[arg(long, env = "LEARNABLES_TOKEN", hide_env_values = true)]
    pub token: String,
    /// Why, in your words; kept with the retraction.
    #[arg(long, short)]
    pub reason: Option<String>,
    /// Retract without asking (for scripts).
    #[arg(long, short = 'y')]
    pub yes: bool,
}

/// Runs `retract`.
pub fn run(args: &RetractArgs, client: &AgentClient) -> Result<Outcome, CliError> {
    let params = params_for_teaching(&client.fetch_card()?, client.base())?;
    let descriptor = find_descriptor(&params, &args.collection)?;
    let method = params.retract_method.clone().ok_or_else(|| {
        CliError::msg("the agent's card names no retractMethod: it takes no retractions")
    })?;
    eprintln!(
        "{} the {} `{}` of {}: new tasks will not know it.",
        Style::for_stderr().bold("Retract"),
        line(&descriptor.entry),
        line(&args.entry),
        line(&args.collection)
    );
    if !args.yes && !confirmed()? {
        return Err(CliError::msg(
            "not retracted: the retraction was not confirmed (answer y, or pass --yes)",
        ));
    }
    let params = serde_json::json!({
        "collection": args.collection,
        "entry": args.entry,
        "taughtBy": args.taught_by,
        "reason": args.reason,
    });
    let result = client.call(&method, params, &args.token, "the retraction", "retracting")?;
    let result: LessonResult = serde_json::from_value(result).map_err(|error| {
        CliError::msg(format!(
            "the agent's answer is not a LessonResult: {}",
            line(&error.to_string())
        ))
    })?;
    Ok(Outcome::ok(render_result(&result, Style::for_stdout())))
}
