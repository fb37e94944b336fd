//! `learnables mcp`'s `review` tool: without a proposal it lists the
//! lessons waiting for review; with one it shows the person what the
//! proposal would change and asks them in a form to approve or reject it,
//! so that the model never decides. The decision goes through
//! `learnables review`'s own run.

use rmcp::model::{CallToolResult, ElicitResult, ElicitationAction};
use serde_json::json;

use crate::cli::ReviewArgs;
use crate::error::CliError;
use crate::mcp_step::{Agent, Step};
use crate::mcp_text::{done, failed, failure, line, outcome_result};
use crate::outcome::Format;
use crate::render::entry_noun;
use crate::review::{Listed, list, render_one};
use crate::style::{Style, scrub};

/// The tool without a proposal: the list, for a person and as data.
pub fn listing(agent: &Agent) -> CallToolResult {
    crate::review::run(&args(agent, None, None, None), &agent.client, Format::Json)
        .map_or_else(|error| failure(&error), outcome_result)
}

/// The step of a decision on `proposal` after `answer` (none for the
/// first): the form, then the decision the person made in it.
pub fn step(
    agent: &Agent,
    proposal: &str,
    answer: Option<(u32, ElicitResult)>,
) -> Result<Step, CliError> {
    let Listed {
        params, proposals, ..
    } = list(&agent.client, &agent.token, Some(proposal))?;
    let Some(open) = proposals.iter().find(|open| open.proposal_id == proposal) else {
        return Ok(Step::Done(done(
            &format!(
                "Nothing decided: the agent lists no open proposal {}.",
                line(proposal)
            ),
            &json!({"decided": false}),
        )));
    };
    // Never offered on the person's own proposal, nor one they approved.
    if open.may_decide == Some(false) {
        let why = open
            .cannot_decide
            .as_deref()
            .unwrap_or("it is not theirs to decide");
        return Ok(Step::Done(failed(
            &format!("Nothing decided: {}.", line(why)),
            &json!({"decided": false}),
        )));
    }
    let shown = scrub(&render_one(
        open,
        entry_noun(&params, &open.collection),
        Style::plain(),
    ));
    let Some((_, answer)) = answer else {
        let schema = json!({
            "type": "object",
            "properties": {
                "decision": {"type": "string", "title": "Your decision",
                             "oneOf": [{"const": "approve", "title": "Approve: the agent learns it"},
                                       {"const": "reject", "title": "Reject: nothing is learned"}]},
                "reason": {"type": "string", "title": "Why",
                           "description": "In your words; needed to reject, kept with the decision."},
            },
            "required": ["decision"],
        });
        let schema = serde_json::from_value(schema)
            .map_err(|error| CliError::usage(format!("cannot write the form: {error}")))?;
        return Ok(Step::Ask {
            message: format!("Approve or reject this lesson?\n{shown}"),
            schema,
            round: 0,
        });
    };
    let content = answer.content.unwrap_or_default();
    let decision = content["decision"].as_str().unwrap_or_default();
    let reason = content["reason"]
        .as_str()
        .map(str::trim)
        .filter(|reason| !reason.is_empty())
        .map(str::to_owned);
    let nothing = |why: &str| {
        Ok(Step::Done(done(
            &format!("Nothing decided: {why}"),
            &json!({"decided": false}),
        )))
    };
    if answer.action != ElicitationAction::Accept {
        return nothing("the person did not answer the form.");
    }
    let args = match decision {
        "approve" => args(agent, Some(proposal), None, reason),
        "reject" if reason.is_none() => return nothing("a rejection needs a reason."),
        "reject" => args(agent, None, Some(proposal), reason),
        _ => return nothing("the form chose neither approve nor reject."),
    };
    let outcome = crate::review::run(&args, &agent.client, Format::Json)?;
    Ok(Step::Done(outcome_result(outcome)))
}

fn args(
    agent: &Agent,
    approve: Option<&str>,
    reject: Option<&str>,
    reason: Option<String>,
) -> ReviewArgs {
    ReviewArgs {
        url: agent.url.clone(),
        token: agent.token.clone(),
        approve: approve.map(str::to_owned),
        reject: reject.map(str::to_owned),
        reason,
        yes: true,
    }
}
