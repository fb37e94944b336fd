//! `learnables retract`: makes an entry absent through the card's
//! `retractMethod`, after saying what it retracts and asking (`--yes` for
//! scripts). Earlier versions stay in the history; a later lesson teaches
//! the entry again.

use crate::check::params_for_teaching;
use crate::cli::RetractArgs;
use crate::client::AgentClient;
use crate::error::CliError;
use crate::error_kind::ErrorKind;
use crate::outcome::{Format, Outcome, warn};
use crate::render::the_entry;
use crate::revert::confirmed;
use crate::style::Style;
use crate::teach::{find_descriptor, render_result, teacher};

/// Runs `retract`. With `--json` it asks nothing (`--yes` is required) and
/// prints `{"result": the agent's LessonResult, "warnings": [...]}`.
pub fn run(args: &RetractArgs, client: &AgentClient, format: Format) -> Result<Outcome, CliError> {
    if format.is_json() && !args.yes {
        return Err(CliError::usage(
            "--json asks nothing: pass --yes to retract",
        ));
    }
    let (params, warning) = params_for_teaching(&client.fetch_card()?, client.base())?;
    let warnings: Vec<String> = warning.into_iter().collect();
    for warning in &warnings {
        warn(format, warning);
    }
    let descriptor = find_descriptor(&params, &args.target.collection)?;
    let method = params.retract_method.clone().ok_or_else(|| {
        CliError::new(
            ErrorKind::Refused,
            "the agent's card names no retractMethod: it takes no retractions",
        )
    })?;
    if !format.is_json() {
        eprintln!(
            "{} {}: new tasks will not know it.",
            Style::for_stderr().bold("Retract"),
            the_entry(&descriptor.entry, &args.target.entry)
        );
    }
    if !args.yes && !confirmed()? {
        return Err(CliError::new(
            ErrorKind::Cancelled,
            "not retracted: the retraction was not confirmed (answer y, or pass --yes)",
        ));
    }
    let taught_by = teacher(client, args.taught_by.as_deref(), &args.target.token)?;
    let mut params = serde_json::json!({
        "collection": args.target.collection,
        "entry": args.target.entry,
        "taughtBy": taught_by,
    });
    // Without a reason the key is left out: the spec's reason is a string
    // when present, and an agent refuses a null one.
    if let Some(reason) = &args.reason {
        params["reason"] = serde_json::Value::from(reason.as_str());
    }
    let result = client.call(
        &method,
        params,
        &args.target.token,
        "the retraction",
        "retracting",
    )?;
    let result = crate::client::lesson_result(result)?;
    let json = serde_json::json!({
        "result": serde_json::to_value(&result).unwrap_or_default(),
        "warnings": warnings,
    });
    Ok(Outcome::ok(
        render_result(&result, Style::for_stdout()),
        json,
    ))
}
