//! `learnables revert --to VERSION_ID`: teaches an entry the value it had
//! in an earlier version again, as a lesson like any other, built from
//! show-back (the version's fields as the agent shows them). It shows what
//! would change and asks before teaching; `--yes` teaches without asking.
//! A version that retracted the entry is reverted to through the card's
//! `retractMethod`.

use std::collections::BTreeMap;
use std::io::BufRead;

use learnables::Lesson;
use learnables::knowledge::field_changes;

use crate::check::params_for_teaching;
use crate::cli::RevertArgs;
use crate::client::AgentClient;
use crate::error::CliError;
use crate::error_kind::ErrorKind;
use crate::history::{change_text, fetch_page};
use crate::outcome::{Format, Outcome, warn};
use crate::render::{line, the_entry};
use crate::style::Style;
use crate::teach::{find_descriptor, lesson_value, render_result, teacher};

/// Runs `revert`. With `--json` it asks nothing (`--yes` is required) and
/// prints `{"to": the version reverted to, "changes": [...], "result": the
/// agent's LessonResult, "warnings": [...]}`.
pub fn run(args: &RevertArgs, client: &AgentClient, format: Format) -> Result<Outcome, CliError> {
    if format.is_json() && !args.yes {
        return Err(CliError::usage("--json asks nothing: pass --yes to revert"));
    }
    let (params, warning) = params_for_teaching(&client.fetch_card()?, client.base())?;
    let warnings: Vec<String> = warning.into_iter().collect();
    for warning in &warnings {
        warn(format, warning);
    }
    let descriptor = find_descriptor(&params, &args.target.collection)?;
    let page = |from: Option<String>| {
        fetch_page(
            client,
            &args.target.collection,
            &args.target.entry,
            &args.target.token,
            1,
            from,
        )
    };
    let first = |mut page: learnables::a2a::HistoryPage| {
        (!page.versions.is_empty())
            .then(|| page.versions.remove(0))
            .ok_or_else(|| CliError::not_understood("the agent's history of the entry is empty"))
    };
    let current = first(page(None)?)?;
    let target = first(page(Some(args.to.clone()))?)?;
    let style = Style::for_stderr();
    let changes = field_changes(
        current.lesson_fields.as_deref(),
        target.lesson_fields.as_deref(),
    );
    if !format.is_json() {
        eprintln!(
            "{} {} to version {}, taught by {} at {}{}:",
            style.bold("Revert"),
            the_entry(&descriptor.entry, &args.target.entry),
            target.definition_version,
            line(&target.taught_by),
            line(&target.taught_at),
            target
                .reason
                .as_deref()
                .map_or_else(String::new, |reason| format!(" (\"{}\")", line(reason)))
        );
        if target.retracted {
            eprintln!("  the entry becomes absent (that version retracted it)");
        } else if changes.is_empty() {
            eprintln!("  nothing changes: the entry holds that value already");
        }
        for change in &changes {
            eprintln!("  {}", change_text(change));
        }
    }
    if !args.yes && !confirmed()? {
        return Err(CliError::new(
            ErrorKind::Cancelled,
            "not reverted: the revert was not confirmed (answer y, or pass --yes)",
        ));
    }
    let taught_by = teacher(client, args.taught_by.as_deref(), &args.target.token)?;
    let reason = Some(
        args.reason
            .clone()
            .unwrap_or_else(|| format!("Revert to version {}", target.definition_version)),
    );
    let (method, params) = if target.retracted {
        let method = params.retract_method.clone().ok_or_else(|| {
            CliError::new(
                ErrorKind::Refused,
                "that version retracted the entry, and the agent's card names no retractMethod",
            )
        })?;
        let params = serde_json::json!({
            "collection": args.target.collection,
            "entry": args.target.entry,
            "taughtBy": taught_by,
            "reason": reason,
        });
        (method, params)
    } else {
        let method = params.teach_method.clone().ok_or_else(|| {
            CliError::new(ErrorKind::Refused, "the agent's card names no teachMethod")
        })?;
        let fields = target.lesson_fields.as_ref().ok_or_else(|| {
            CliError::new(
                ErrorKind::Refused,
                format!(
                    "version {} no longer reads as the learnable: it cannot be taught again",
                    target.definition_version
                ),
            )
        })?;
        let values: BTreeMap<String, Option<String>> = fields
            .iter()
            .map(|field| (field.name.clone(), field.default.clone()))
            .collect();
        let mut lesson = Lesson::new(
            args.target.collection.clone(),
            args.target.entry.clone(),
            lesson_value(&values),
            taught_by.clone(),
        );
        lesson.reason = reason;
        let params = serde_json::to_value(&lesson)
            .map_err(|error| CliError::usage(format!("cannot write the lesson: {error}")))?;
        (method, params)
    };
    let result = client.call(
        &method,
        params,
        &args.target.token,
        "the revert",
        "teaching",
    )?;
    let result = crate::client::lesson_result(result)?;
    let json = serde_json::json!({
        "to": target.version_id,
        "changes": serde_json::to_value(&changes).unwrap_or_default(),
        "result": serde_json::to_value(&result).unwrap_or_default(),
        "warnings": warnings,
    });
    Ok(Outcome::ok(
        render_result(&result, Style::for_stdout()),
        json,
    ))
}

/// Asks on standard error and reads the answer from standard input: yes
/// only for `y` or `yes`.
pub fn confirmed() -> Result<bool, CliError> {
    eprint!("Teach this? [y/N] ");
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|error| {
            CliError::new(
                ErrorKind::Cancelled,
                format!("cannot read the answer: {error}"),
            )
        })?;
    eprintln!();
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}
