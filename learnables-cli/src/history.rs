//! `learnables history`: an entry's history through show-back, a table of
//! its versions newest first (version, when, who, why, what changed), every
//! text from the agent escaped ([`crate::render::line`]).

use learnables::SHOW_BACK_METHOD;
use learnables::a2a::{HistoryPage, HistoryParams, HistoryVersion, ShowBack, ShowBackParams};
use learnables::knowledge::FieldChange;

use crate::check::params_for_teaching;
use crate::cli::HistoryArgs;
use crate::client::AgentClient;
use crate::error::CliError;
use crate::outcome::{Format, Outcome, warn};
use crate::render::{entry_noun, line, paragraph, the_entry};
use crate::style::Style;

/// Runs `history`. With `--json`: `{"collection", "entry", "history": the
/// agent's page (versions newest first, `next`), "warnings": [...]}`.
pub fn run(args: &HistoryArgs, client: &AgentClient, format: Format) -> Result<Outcome, CliError> {
    let (declared, warning) = params_for_teaching(&client.fetch_card()?, client.base())?;
    let warnings: Vec<String> = warning.into_iter().collect();
    for warning in &warnings {
        warn(format, warning);
    }
    let page = fetch_page(
        client,
        &args.target.collection,
        &args.target.entry,
        &args.target.token,
        args.limit,
        args.from.clone(),
    )?;
    let json = serde_json::json!({
        "collection": args.target.collection,
        "entry": args.target.entry,
        "history": serde_json::to_value(&page).unwrap_or_default(),
        "warnings": warnings,
    });
    Ok(Outcome::ok(
        render_history(
            entry_noun(&declared, &args.target.collection),
            &args.target.entry,
            &page,
            Style::for_stdout(),
        ),
        json,
    ))
}

/// A page of an entry's history, through show-back.
pub fn fetch_page(
    client: &AgentClient,
    collection: &str,
    entry: &str,
    token: &str,
    limit: u32,
    from: Option<String>,
) -> Result<HistoryPage, CliError> {
    let mut history = HistoryParams::default().with_limit(limit);
    history.from = from;
    let params = ShowBackParams::new(collection, entry).with_history(history);
    let params = serde_json::to_value(params)
        .map_err(|error| CliError::usage(format!("cannot write the request: {error}")))?;
    let result = client.call(
        SHOW_BACK_METHOD,
        params,
        token,
        "the history",
        "asking the agent",
    )?;
    let shown: ShowBack = serde_json::from_value(result).map_err(|error| {
        CliError::not_understood(format!(
            "the agent's show-back does not read as one: {}",
            line(&error.to_string())
        ))
    })?;
    shown.history.ok_or_else(|| {
        CliError::not_understood(
            "the agent's show-back has no history: it does not serve histories",
        )
    })
}

/// What a version changed, for one cell: `Label: before → after`, one
/// change after another; "retracted" for a retraction.
pub fn changes_text(version: &HistoryVersion) -> String {
    if version.retracted {
        return "retracted".to_owned();
    }
    if version.changes.is_empty() {
        return "nothing".to_owned();
    }
    version
        .changes
        .iter()
        .map(change_text)
        .collect::<Vec<_>>()
        .join("; ")
}

/// One field's change: `Label: before → after`, `(empty)` where a side has
/// no value.
pub fn change_text(change: &FieldChange) -> String {
    let side = |value: &Option<String>| value.as_deref().map_or("(empty)".to_owned(), line);
    format!(
        "{}: {} → {}",
        line(&change.label),
        side(&change.before),
        side(&change.after)
    )
}

/// Who made a version: its teacher, and for a reviewed learnable who
/// approved it.
fn who(version: &HistoryVersion) -> String {
    if version.approved_by.is_empty() {
        return line(&version.taught_by);
    }
    let approvers: Vec<String> = version.approved_by.iter().map(|by| line(by)).collect();
    format!(
        "{}, approved by {}",
        line(&version.taught_by),
        approvers.join(", ")
    )
}

/// The history as a table: one row per version, newest first, headed by
/// the entry in the card's `noun` for it.
pub fn render_history(noun: &str, entry: &str, page: &HistoryPage, style: Style) -> String {
    let mut text = format!(
        "{} of {}\n\n",
        style.bold("History"),
        the_entry(noun, entry)
    );
    let header = ["Version", "Id", "When", "Who", "Why", "What changed"].map(str::to_owned);
    let rows: Vec<[String; 6]> = page
        .versions
        .iter()
        .map(|version| {
            [
                // The entry's own number; the id is what --to and --from
                // take (the collection's number is in --json).
                version.entry_version.to_string(),
                line(&version.version_id),
                line(&version.taught_at),
                who(version),
                version.reason.as_deref().map_or_else(String::new, line),
                changes_text(version),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..6)
        .map(|column| {
            std::iter::once(&header)
                .chain(&rows)
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let render_row = |row: &[String; 6]| {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(column, (cell, width))| {
                if column == 5 {
                    cell.clone()
                } else {
                    format!("{cell}{}", " ".repeat(width - cell.chars().count()))
                }
            })
            .collect();
        format!("  {}\n", cells.join("  ").trim_end())
    };
    text.push_str(&style.bold(render_row(&header).trim_end()));
    text.push('\n');
    for row in &rows {
        text.push_str(&render_row(row));
    }
    if page.versions.is_empty() {
        text.push_str("  (no versions)\n");
    }
    // Rejected proposals made no version; who proposed and who said no.
    for rejected in &page.rejected {
        text.push_str(&format!(
            "\n{} proposed by {} at {}: {}\n  rejected by {} at {}{}\n",
            style.yellow("Rejected:"),
            line(&rejected.proposed_by),
            line(&rejected.proposed_at),
            paragraph(&rejected.describes),
            line(&rejected.rejected_by),
            line(&rejected.rejected_at),
            rejected
                .rejection
                .as_deref()
                .map_or_else(String::new, |why| format!(" (\"{}\")", line(why)))
        ));
    }
    if let Some(next) = &page.next {
        text.push_str(&format!("\nOlder versions: add --from {}\n", line(next)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read<T: serde::de::DeserializeOwned>(json: serde_json::Value) -> T {
        serde_json::from_value(json).expect("the JSON of the type")
    }

    fn version(number: u64, changes: Vec<FieldChange>, retracted: bool) -> HistoryVersion {
        read(serde_json::json!({
            "definitionVersion": number,
            "versionId": format!("v{number}"),
            "entryVersion": number,
            "taughtBy": "alice@example.com",
            "reason": "because\x1b[2J",
            "taughtAt": "2026-08-17T10:00:00.000Z",
            "describes": "",
            "retracted": retracted,
            "changes": changes,
        }))
    }

    #[test]
    fn the_table_has_a_row_per_version_with_its_changes_escaped() {
        let desk: FieldChange = read(serde_json::json!({
            "name": "desk",
            "label": "Desk",
            "before": "general",
            "after": "cold\u{202e} chain",
        }));
        let page: HistoryPage = read(serde_json::json!({
            "versions": vec![version(2, vec![], true), version(1, vec![desk], false)],
            "next": "v0",
        }));
        let text = render_history("routing rule", "85", &page, Style::plain());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "History of the routing rule \"85\"");
        assert!(lines[2].starts_with("  Version  Id  When"), "{text}");
        assert!(lines[3].starts_with("  2        v2  "), "{text}");
        assert!(lines[3].ends_with("retracted"), "{text}");
        assert!(
            lines[4].ends_with(r"Desk: general → cold\u{202e} chain"),
            "{text}"
        );
        assert!(lines[4].contains(r"because\u{1b}[2J"), "{text}");
        assert_eq!(lines[6], "Older versions: add --from v0");
    }
}
