//! What `learnables mcp` asks the agent before the person fills a form:
//! whom the token names, and, for `teach`, whether the agent takes the
//! entry's name, so that a refusal of either comes before the form rather
//! than after the person filled it.

use learnables::SHOW_BACK_METHOD;
use learnables::a2a::ShowBackParams;
use rmcp::model::CallToolResult;

use rmcp::model::ElicitResult;

use crate::error::CliError;
use crate::mcp_flow::{self, Call, lesson_teacher};
use crate::mcp_step::{Agent, Step};
use crate::mcp_text::{failed, line};

/// Runs the step of `call` after `answer` ([`mcp_flow::step`]), the
/// agent asked first when it is the first (no answer yet).
pub fn step(agent: &Agent, call: &Call, answer: Option<(u32, ElicitResult)>) -> Step {
    if answer.is_none()
        && let Some(refused) = refused(agent, call)
    {
        return Step::Done(refused);
    }
    mcp_flow::step(agent, call, answer)
}

/// The result that ends `call` before its first form, if the agent
/// refuses the token or the entry; `None` when the form may be asked.
fn refused(agent: &Agent, call: &Call) -> Option<CallToolResult> {
    let refusal = match lesson_teacher(agent) {
        Err(error) => Some(error),
        Ok(_) => match call {
            Call::Teach {
                collection, entry, ..
            } => entry_refused(agent, collection, entry),
            _ => None,
        },
    }?;
    Some(failed(
        &format!("Nothing was asked: {}.", line(&refusal.to_string())),
        &refusal.to_json(),
    ))
}

/// The agent's refusal of `entry` of `collection`, asked by a show-back
/// before the person fills a form: `None` when it takes the name (an entry
/// not taught yet included), or when it serves no show-back to ask.
fn entry_refused(agent: &Agent, collection: &str, entry: &str) -> Option<CliError> {
    use learnables::a2a::json_rpc::codes::{METHOD_NOT_FOUND, NOT_FOUND};
    let params = serde_json::to_value(ShowBackParams::new(collection, entry)).ok()?;
    let asked = agent.client.call(
        SHOW_BACK_METHOD,
        params,
        &agent.token,
        "the entry",
        "checking the entry",
    );
    match asked {
        Err(CliError::Refused(refusal))
            if refusal.code != NOT_FOUND && refusal.code != METHOD_NOT_FOUND =>
        {
            Some(CliError::Refused(refusal))
        }
        _ => None,
    }
}
