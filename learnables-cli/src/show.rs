//! `learnables show`: what the agent learned for an entry, through the
//! show-back method, rendered for a person. The card is read first, as for
//! `teach`: the token goes only to an agent whose card declares Learnables
//! with a teachMethod the lint does not refuse.

use learnables::SHOW_BACK_METHOD;
use learnables::a2a::{ShowBack, ShowBackParams};

use serde_json::json;

use crate::check::params_for_teaching;
use crate::cli::ShowArgs;
use crate::client::AgentClient;
use crate::error::CliError;
use crate::outcome::{Format, Outcome, warn};
use crate::render::{entry_heading, entry_noun, line, ordinal, paragraph, table};
use crate::style::Style;

/// Runs `show`. In JSON: `{"showBack": the agent's show-back as it sent
/// it, "warnings": [...]}`.
pub fn run(args: &ShowArgs, client: &AgentClient, format: Format) -> Result<Outcome, CliError> {
    let (declared, warning) = params_for_teaching(&client.fetch_card()?, client.base())?;
    if let Some(warning) = &warning {
        warn(format, warning);
    }
    let mut params = ShowBackParams::new(&args.target.collection, &args.target.entry);
    params.version_id = args.as_of.clone();
    let params = serde_json::to_value(params)
        .map_err(|error| CliError::usage(format!("cannot write the request: {error}")))?;
    let result = client.call(
        SHOW_BACK_METHOD,
        params,
        &args.target.token,
        "the show-back",
        "asking the agent",
    )?;
    let shown: ShowBack = serde_json::from_value(result).map_err(|error| {
        CliError::not_understood(format!(
            "the agent's show-back does not read as one: {}",
            line(&error.to_string())
        ))
    })?;
    let json = json!({
        "showBack": serde_json::to_value(&shown).unwrap_or_default(),
        "warnings": warning.into_iter().collect::<Vec<_>>(),
    });
    Ok(Outcome::ok(
        render_show_back(
            &shown,
            entry_noun(&declared, &args.target.collection),
            Style::for_stdout(),
        ),
        json,
    ))
}

/// An entry as the agent learned it, headed by the card's `noun` for its
/// entries: each field's label and value, the agent's own sentence for it,
/// and the version that taught it.
pub fn render_show_back(shown: &ShowBack, noun: &str, style: Style) -> String {
    let mut text = format!(
        "{}\n  {}\n\n",
        style.bold(&entry_heading(noun, &shown.entry)),
        paragraph(&shown.describes).replace('\n', "\n  ")
    );
    // The agent shows each field with the learned value as its default, as
    // its learnable renders it: the client never reads the lesson value.
    let rows: Vec<(String, String)> = shown
        .lesson_fields
        .iter()
        .map(|field| {
            let learned = field
                .default
                .as_deref()
                .map_or_else(|| style.dim("(empty)"), paragraph);
            (line(&field.label), learned)
        })
        .collect();
    text.push_str(&table(&rows, "  ", style));
    text.push('\n');
    // No version yet: only what waits for review follows.
    if !shown.unlearned {
        text.push_str(&version_table(shown, style));
    }
    // What waits for review beside it: the person reads it before anyone
    // approves it (`learnables review` decides).
    for proposal in &shown.proposals {
        let changes: Vec<String> = proposal
            .changes
            .iter()
            .map(crate::history::change_text)
            .collect();
        text.push_str(&format!(
            "\n{} proposed by {} at {}{}\n  {}\n",
            style.yellow("Waiting for review:"),
            line(&proposal.proposed_by),
            line(&proposal.proposed_at),
            proposal
                .reason
                .as_deref()
                .map_or_else(String::new, |reason| format!(" (\"{}\")", line(reason))),
            if changes.is_empty() {
                paragraph(&proposal.describes)
            } else {
                changes.join("; ")
            }
        ));
    }
    text
}

/// Which version is shown, who taught it (and who approved it), when and
/// why.
fn version_table(shown: &ShowBack, style: Style) -> String {
    // The entry's own number first: a person counts this entry's lessons,
    // not the collection's (an agent that does not say gives 0).
    let mut version = if shown.entry_version > 0 {
        format!(
            "the entry's {}; collection version {} ({})",
            ordinal(shown.entry_version),
            shown.definition_version,
            line(&shown.version_id)
        )
    } else {
        format!("{} ({})", shown.definition_version, line(&shown.version_id))
    };
    if shown.collection_version != shown.definition_version {
        version.push_str(&format!(
            "; the collection is now at version {}",
            shown.collection_version
        ));
    }
    let mut about = vec![
        ("Version".to_owned(), version),
        ("Taught by".to_owned(), line(&shown.taught_by)),
        ("When".to_owned(), line(&shown.taught_at)),
    ];
    if !shown.approved_by.is_empty() {
        let approvers: Vec<String> = shown.approved_by.iter().map(|by| line(by)).collect();
        about.push(("Approved by".to_owned(), approvers.join(", ")));
    }
    if let Some(reason) = &shown.reason {
        about.push(("Reason".to_owned(), paragraph(reason)));
    }
    table(&about, "  ", style)
}

#[cfg(test)]
mod tests {
    use learnables::{FieldKind, LessonField};

    use super::*;

    fn read<T: serde::de::DeserializeOwned>(json: serde_json::Value) -> T {
        serde_json::from_value(json).expect("the JSON of the type")
    }

    #[test]
    fn a_show_back_is_rendered_by_field() {
        let shown: ShowBack = read(serde_json::json!({
            "collection": "routing_rules",
            "entry": "85",
            "describes": "Chapter 85 declarations now go to the cold chain desk",
            "lessonFields": vec![
                LessonField::new("chapter", "HS chapter", FieldKind::TEXT).with_default("85"),
                LessonField::new("desk", "Desk", FieldKind::CHOICE)
                    .with_choices(["cold chain"])
                    .with_default("cold chain"),
                LessonField::new("note", "Note for the broker", FieldKind::TEXT),
            ],
            "definitionVersion": 2,
            "versionId": "v2",
            "entryVersion": 2,
            "previousVersionId": "v1",
            "collectionVersion": 3,
            "taughtBy": "alice@example.com",
            "reason": "Batteries ship cold",
            "taughtAt": "2026-08-17T10:00:00.000Z",
            "retracted": false,
            "history": null,
        }));
        assert_eq!(
            render_show_back(&shown, "routing rule", Style::plain()),
            "Routing rule \"85\"\n\
             \x20 Chapter 85 declarations now go to the cold chain desk\n\
             \n\
             \x20 HS chapter           85\n\
             \x20 Desk                 cold chain\n\
             \x20 Note for the broker  (empty)\n\
             \n\
             \x20 Version    the entry's 2nd; collection version 2 (v2); the collection is now at version 3\n\
             \x20 Taught by  alice@example.com\n\
             \x20 When       2026-08-17T10:00:00.000Z\n\
             \x20 Reason     Batteries ship cold\n"
        );
    }

    #[test]
    fn approvers_are_named_and_an_entry_with_only_proposals_lists_them() {
        let approved: ShowBack = read(serde_json::json!({
            "collection": "clearance_limits", "entry": "FR",
            "describes": "FR may now clear up to EUR 9000 alone",
            "lessonFields": [], "definitionVersion": 1, "versionId": "v1",
            "collectionVersion": 1, "taughtBy": "alice@example.com",
            "taughtAt": "2026-08-17T10:00:00.000Z",
            "approvedBy": ["bob@example.com", "carol@example.com"],
        }));
        let text = render_show_back(&approved, "clearance limit", Style::plain());
        assert!(
            text.contains("Approved by  bob@example.com, carol@example.com"),
            "{text}"
        );
        let waiting: ShowBack = read(serde_json::json!({
            "collection": "clearance_limits", "entry": "ZA", "unlearned": true,
            "describes": "Nothing is learned of the clearance limit ZA yet: 1 lesson for it waits for review",
            "lessonFields": [], "definitionVersion": 0, "versionId": "",
            "collectionVersion": 1, "taughtBy": "", "taughtAt": "",
            "proposals": [{"proposalId": "p1", "collection": "clearance_limits", "entry": "ZA",
                "proposedBy": "alice@example.com", "proposedAt": "2026-08-17T10:00:00.000Z",
                "reason": "new broker", "describes": "ZA may now clear up to EUR 10 alone",
                "changes": [{"name": "amountEur", "label": "Limit in euros", "after": "10"}],
                "approvalsNeeded": 1, "approvals": [], "mayDecide": true}],
        }));
        let text = render_show_back(&waiting, "clearance limit", Style::plain());
        assert!(!text.contains("Taught by"), "{text}");
        assert!(
            text.contains("Waiting for review: proposed by alice@example.com"),
            "{text}"
        );
    }

    #[test]
    fn a_hostile_show_back_is_shown_escaped() {
        let hostile = "\x1b]8;;http://x/\x1b\\a\x1b]8;;\x1b\\\u{9b}2J\u{202e}";
        let shown = r"\u{1b}]8;;http://x/\u{1b}\a\u{1b}]8;;\u{1b}\\u{9b}2J\u{202e}";
        let show_back: ShowBack = read(serde_json::json!({
            "collection": hostile,
            "entry": hostile,
            "describes": hostile,
            "lessonFields": vec![
                LessonField::new("a", hostile, FieldKind::TEXT).with_default(hostile),
            ],
            "definitionVersion": 1,
            "versionId": hostile,
            "entryVersion": 1,
            "previousVersionId": hostile,
            "collectionVersion": 1,
            "taughtBy": hostile,
            "reason": hostile,
            "taughtAt": hostile,
            "retracted": false,
            "history": null,
        }));
        let text = render_show_back(&show_back, hostile, Style::plain());
        assert!(
            !text
                .chars()
                .any(|c| c != '\n' && learnables::untrusted::is_hazard(c)),
            "{text:?}"
        );
        assert_eq!(text.matches(shown).count(), 9, "{text}");
    }
}
