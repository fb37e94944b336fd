//! `learnables review`: lists the lessons waiting for review that the
//! token's teacher may decide, and approves or rejects one through the
//! card's `reviewMethod`, after showing what it would change and asking
//! (`--yes` for scripts). A proposal is found by its id in the agent's own
//! list, so that what is approved is what was shown.

use learnables::DeclarationParams;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::check::params_for_teaching;
use crate::cli::ReviewArgs;
use crate::client::AgentClient;
use crate::error::CliError;
use crate::error_kind::ErrorKind;
use crate::outcome::{Format, Outcome, warn};
use crate::render::{count, entry_heading, entry_noun, line, paragraph, table};
use crate::revert::confirmed;
use crate::style::Style;
use crate::teach::{render_result, teacher};

/// A proposal as the review method lists it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Proposal {
    pub(crate) collection: String,
    pub(crate) entry: String,
    pub(crate) proposal_id: String,
    pub(crate) proposed_by: String,
    #[serde(default)]
    pub(crate) proposed_at: String,
    #[serde(default)]
    pub(crate) reason: Option<String>,
    #[serde(default)]
    pub(crate) describes: String,
    #[serde(default)]
    pub(crate) changes: Vec<Change>,
    #[serde(default)]
    pub(crate) approved_by: Vec<String>,
    #[serde(default)]
    pub(crate) approvals_needed: u64,
    #[serde(default)]
    pub(crate) may_decide: Option<bool>,
    #[serde(default)]
    pub(crate) cannot_decide: Option<String>,
}

/// One field a proposal would change.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Change {
    #[serde(default)]
    pub(crate) label: String,
    #[serde(default)]
    pub(crate) before: Option<String>,
    #[serde(default)]
    pub(crate) after: Option<String>,
}

/// Runs `review`: the list, or a decision with `--approve` or `--reject`.
/// With `--json` an approval asks nothing (`--yes` is required); a decision prints
/// `{"result": the agent's LessonResult, "warnings": [...]}`; the list
/// prints `{"proposals": [...], "warnings": [...]}`.
pub fn run(args: &ReviewArgs, client: &AgentClient, format: Format) -> Result<Outcome, CliError> {
    let looked_for = args.approve.as_deref().or(args.reject.as_deref());
    let Listed {
        params,
        warnings,
        method,
        proposals,
        listed,
    } = list(client, &args.token, looked_for)?;
    for warning in &warnings {
        warn(format, warning);
    }
    let (id, approve) = match (&args.approve, &args.reject) {
        (Some(id), _) => (id, true),
        (None, Some(id)) => (id, false),
        (None, None) => {
            let noun = |collection: &str| entry_noun(&params, collection).to_owned();
            let text = render_list(&proposals, noun, Style::for_stdout());
            let json = json!({"proposals": listed, "warnings": warnings});
            return Ok(Outcome::ok(text, json));
        }
    };
    // An approval asks first; a rejection, with its reason, does not.
    if approve && format.is_json() && !args.yes {
        return Err(CliError::usage(
            "--json asks nothing: pass --yes to approve",
        ));
    }
    let proposal = proposals
        .iter()
        .find(|proposal| proposal.proposal_id == *id)
        .ok_or_else(|| {
            CliError::new(
                ErrorKind::Refused,
                format!(
                    "the agent lists no open proposal `{}`: `learnables review {}` lists them",
                    line(id),
                    line(client.base())
                ),
            )
        })?;
    if !format.is_json() {
        let noun = entry_noun(&params, &proposal.collection);
        eprint!("{}", render_one(proposal, noun, Style::for_stderr()));
    }
    if approve && !args.yes && !confirmed()? {
        return Err(CliError::new(
            ErrorKind::Cancelled,
            "not approved: the approval was not confirmed (answer y, or pass --yes)",
        ));
    }
    let reviewed_by = teacher(client, None, &args.token)?;
    let mut decision = json!({
        "collection": proposal.collection,
        "entry": proposal.entry,
        "proposalId": proposal.proposal_id,
        "decision": if approve { "approve" } else { "reject" },
        "reviewedBy": reviewed_by,
    });
    // Without a reason the key is left out: an agent refuses a null one.
    if let Some(reason) = &args.reason {
        decision["reason"] = Value::from(reason.as_str());
    }
    let result = client.call(
        &method,
        decision,
        &args.token,
        if approve {
            "the approval"
        } else {
            "the rejection"
        },
        "deciding",
    )?;
    let result = crate::client::lesson_result(result)?;
    let text = if approve {
        render_result(&result, Style::for_stdout())
    } else {
        format!(
            "Rejected: nothing was learned.\n{}\n",
            paragraph(&result.describes)
        )
    };
    let json = json!({
        "result": serde_json::to_value(&result).unwrap_or_default(),
        "warnings": warnings,
    });
    Ok(Outcome::ok(text, json))
}

/// The agent's open proposals, read through the card's `reviewMethod`.
pub(crate) struct Listed {
    pub(crate) params: DeclarationParams,
    pub(crate) warnings: Vec<String>,
    pub(crate) method: String,
    pub(crate) proposals: Vec<Proposal>,
    /// The proposals as the agent sent them, for `--json`.
    pub(crate) listed: Vec<Value>,
}

/// Proposals asked for a page: the most the Review listing gives.
const PAGE_LIMIT: u64 = 100;

/// The most pages one listing reads (10,000 proposals), so that an agent
/// that never ends its list cannot keep the command reading.
const MAX_PAGES: usize = 100;

/// Reads the card and the open proposals `token`'s teacher is shown, a
/// page at a time (each page one answer, read whole within the answer's
/// bound): every page, or, `looking_for` a proposal, up to the page that
/// lists it.
pub(crate) fn list(
    client: &AgentClient,
    token: &str,
    looking_for: Option<&str>,
) -> Result<Listed, CliError> {
    let (params, warning) = params_for_teaching(&client.fetch_card()?, client.base())?;
    let method = params.review_method.clone().ok_or_else(|| {
        CliError::new(
            ErrorKind::Refused,
            "the agent's card names no reviewMethod: none of its learnables is reviewed",
        )
    })?;
    let mut warnings: Vec<String> = warning.into_iter().collect();
    let mut proposals = Vec::new();
    let mut listed = Vec::new();
    let mut from: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let Page { page, raw, next } = read_page(client, &method, token, from.as_deref())?;
        let found = looking_for.is_some_and(|id| page.iter().any(|open| open.proposal_id == id));
        proposals.extend(page);
        listed.extend(raw);
        match next {
            None => {
                return Ok(Listed {
                    params,
                    warnings,
                    method,
                    proposals,
                    listed,
                });
            }
            Some(next) if from.as_deref() == Some(next.as_str()) => {
                return Err(CliError::not_understood(format!(
                    "the agent's list of proposals gives the page after `{}` as the next page \
                     again: learnables reads no more",
                    line(&next)
                )));
            }
            Some(_) if found => break,
            Some(next) => from = Some(next),
        }
    }
    // Past the last page read: found, or more than the command reads.
    if looking_for.is_none() {
        warnings.push(format!(
            "the agent lists more than {0} proposals waiting for review; the first {0} are shown",
            proposals.len()
        ));
    }
    Ok(Listed {
        params,
        warnings,
        method,
        proposals,
        listed,
    })
}

/// One page of the Review listing.
struct Page {
    /// Its proposals, read.
    page: Vec<Proposal>,
    /// The same, as the agent sent them.
    raw: Vec<Value>,
    /// Where the page after it starts, if any.
    next: Option<String>,
}

/// The page of the Review listing from `from` (the `next` of the page
/// before; none for the first).
fn read_page(
    client: &AgentClient,
    method: &str,
    token: &str,
    from: Option<&str>,
) -> Result<Page, CliError> {
    let mut params = json!({"limit": PAGE_LIMIT});
    if let Some(from) = from {
        params["from"] = Value::from(from);
    }
    let mut answer = client.call(
        method,
        params,
        token,
        "the list of proposals",
        "asking for the proposals waiting for review",
    )?;
    let unreadable = |why: String| {
        CliError::not_understood(format!(
            "the agent's list of proposals does not read: {}",
            line(&why)
        ))
    };
    let raw = match answer.get_mut("proposals").map(Value::take) {
        Some(Value::Array(raw)) => raw,
        _ => return Err(unreadable("it has no `proposals` list".to_owned())),
    };
    let page: Vec<Proposal> = serde_json::from_value(Value::Array(raw.clone()))
        .map_err(|error| unreadable(error.to_string()))?;
    let next = match answer.get("next") {
        None | Some(Value::Null) => None,
        Some(Value::String(next)) => Some(next.clone()),
        Some(_) => return Err(unreadable("its `next` is not a proposal id".to_owned())),
    };
    Ok(Page { page, raw, next })
}

/// The list for a person: each proposal, or a line saying there is none.
fn render_list(proposals: &[Proposal], noun: impl Fn(&str) -> String, style: Style) -> String {
    if proposals.is_empty() {
        return "No lesson is waiting for review.\n".to_owned();
    }
    let mut text = format!(
        "{} waiting for review:\n\n",
        count(proposals.len(), "lesson")
    );
    for proposal in proposals {
        text.push_str(&render_one(proposal, &noun(&proposal.collection), style));
        text.push('\n');
    }
    text
}

/// One proposal: the entry, who proposed it, when and why, what it would
/// change field by field, its approvals, and whether the reader may
/// decide it. Every piece the agent sent is escaped.
pub(crate) fn render_one(proposal: &Proposal, noun: &str, style: Style) -> String {
    let mut text = format!(
        "{} {}\n",
        style.bold(&entry_heading(noun, &proposal.entry)),
        style.dim(&format!("(proposal {})", line(&proposal.proposal_id)))
    );
    let mut rows = vec![(
        "Proposed by".to_owned(),
        if proposal.proposed_at.is_empty() {
            line(&proposal.proposed_by)
        } else {
            format!(
                "{}, {}",
                line(&proposal.proposed_by),
                line(&proposal.proposed_at)
            )
        },
    )];
    if let Some(reason) = &proposal.reason {
        rows.push(("Why".to_owned(), paragraph(reason)));
    }
    if !proposal.describes.is_empty() {
        rows.push(("Would mean".to_owned(), paragraph(&proposal.describes)));
    }
    for change in &proposal.changes {
        let shown =
            |value: &Option<String>| value.as_deref().map_or_else(|| "(none)".to_owned(), line);
        rows.push((
            line(&change.label),
            format!("{} → {}", shown(&change.before), shown(&change.after)),
        ));
    }
    let approved = if proposal.approved_by.is_empty() {
        "none yet".to_owned()
    } else {
        proposal
            .approved_by
            .iter()
            .map(|who| line(who))
            .collect::<Vec<_>>()
            .join(", ")
    };
    rows.push((
        "Approvals".to_owned(),
        format!(
            "{approved} ({} of {} needed)",
            proposal.approved_by.len(),
            proposal.approvals_needed.max(1)
        ),
    ));
    text.push_str(&table(&rows, "  ", style));
    if proposal.may_decide == Some(false) {
        let why = proposal
            .cannot_decide
            .as_deref()
            .map_or_else(|| "you may not decide it".to_owned(), line);
        text.push_str(&format!("  {}\n", style.yellow(&why)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proposal() -> Proposal {
        serde_json::from_value(json!({
            "collection": "clearance_limits", "entry": "FR\u{1b}[31m",
            "proposalId": "p1", "proposedBy": "alice@example.com",
            "proposedAt": "2026-12-05T10:00:00Z", "reason": "new\nletter",
            "describes": "France: 1500 euros",
            "changes": [{"name": "limit", "label": "Limit (euros)", "before": "1000", "after": "1500"}],
            "approvedBy": [], "approvalsNeeded": 1, "mayDecide": false,
            "cannotDecide": "you proposed it: another teacher approves it"
        }))
        .unwrap()
    }

    #[test]
    fn a_proposal_shows_what_it_would_change_with_the_agents_text_escaped() {
        let text = render_one(&proposal(), "clearance limit", Style::plain());
        assert!(text.contains("Clearance limit \"FR\\u{1b}[31m\""), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(text.contains("Limit (euros)  1000 → 1500"), "{text}");
        assert!(
            text.contains("new\nletter") || text.contains("new"),
            "{text}"
        );
        assert!(text.contains("0 of 1 needed"), "{text}");
        assert!(text.contains("you proposed it"), "{text}");
    }

    #[test]
    fn an_empty_list_says_so() {
        let text = render_list(&[], |_| "entry".to_owned(), Style::plain());
        assert_eq!(text, "No lesson is waiting for review.\n");
    }
}
