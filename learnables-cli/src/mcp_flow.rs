//! What each tool of `learnables mcp` does, over HTTP with the command's
//! client: the card, the agent's methods and show-back, as the other
//! commands (whose runs `show`, `history`, `revert` and `retract` reuse).
//!
//! A tool that needs the person is a sequence of steps: each step either
//! asks a form ([`Step::Ask`]) or ends with the tool's result
//! ([`Step::Done`]), and the next step is given the person's answer. The
//! server runs the steps over whichever elicitation the host negotiated: an
//! `elicitation/create` request within the call, or the 2026-07-28
//! revision's `InputRequiredResult`, the host calling again with the answer.
//! A step needs nothing from the one before but the round it was in: the
//! card and the entry are read again, so either way works alike.

use std::collections::BTreeMap;
use std::time::Duration;

use learnables::a2a::{ShowBack, ShowBackParams, TeachBlock};
use learnables::{LearnableDescriptor, Lesson, SHOW_BACK_METHOD, mcp};
use rmcp::model::{CallToolResult, ElicitResult, ElicitationAction};
use serde_json::{Value, json};

use crate::card::render_card;
use crate::check::params_for_forms;
use crate::cli::{EntryArgs, HistoryArgs, RetractArgs, RevertArgs, ShowArgs};
use crate::error::CliError;
use crate::error_kind::ErrorKind;
use crate::history::fetch_page;
pub use crate::mcp_step::{Agent, Step};
use crate::mcp_text::{done, failed, failure, line, outcome_result};
use crate::outcome::Format;
use crate::render::{paragraph, the_entry};
use crate::style::Style;
use crate::teach::{find_descriptor, prefill, render_result, teach_block_of, teacher};

/// How many times a form is asked again after the agent refused its answer.
const MAX_ROUNDS: u32 = 5;

/// How many times the task that asked is read after its lesson, waiting
/// for the agent to take it up, and how long between reads.
const ANSWER_READS: u32 = 10;
const ANSWER_PAUSE: Duration = Duration::from_millis(200);

/// A tool call that may need the person.
#[derive(Debug, Clone)]
pub enum Call {
    /// `teach`.
    Teach {
        collection: String,
        entry: String,
        reason: Option<String>,
    },
    /// `answer_question`.
    Answer { link: String, entry: Option<String> },
    /// `revert`.
    Revert {
        collection: String,
        entry: String,
        to: String,
    },
    /// `retract`.
    Retract { collection: String, entry: String },
    /// `review` with a proposal.
    Review { proposal: String },
}

/// The lesson a teach form fills: its learnable (with the question's own
/// fields, where it has them), entry and method, and what the form starts
/// with.
struct Target {
    agent_name: String,
    descriptor: LearnableDescriptor,
    entry: String,
    method: String,
    prefill: BTreeMap<String, String>,
    reason: Option<String>,
    task: Option<String>,
}

/// Runs the step of `call` after `answer` (none for the first).
pub fn step(agent: &Agent, call: &Call, answer: Option<(u32, ElicitResult)>) -> Step {
    let outcome = match call {
        Call::Teach {
            collection,
            entry,
            reason,
        } => target(agent, collection, entry.clone(), None, reason.clone())
            .map(|target| teach_step(agent, &target, answer)),
        Call::Answer { link, entry } => {
            question(agent, link, entry.as_deref()).map(|target| teach_step(agent, &target, answer))
        }
        Call::Revert {
            collection,
            entry,
            to,
        } => confirm_step(agent, collection, entry, Some(to), answer),
        Call::Retract { collection, entry } => confirm_step(agent, collection, entry, None, answer),
        Call::Review { proposal } => crate::mcp_review::step(agent, proposal, answer),
    };
    outcome.unwrap_or_else(|error| Step::Done(failure(&error)))
}

/// The lesson of `collection` for `entry`, read from the card.
fn target(
    agent: &Agent,
    collection: &str,
    entry: String,
    block: Option<&TeachBlock>,
    reason: Option<String>,
) -> Result<Target, CliError> {
    let card = agent.client.fetch_card()?;
    let (params, _) = params_for_forms(&card, agent.client.base())?;
    let mut descriptor = find_descriptor(&params, collection)?.clone();
    let method = params.teach_method.clone().ok_or_else(|| {
        CliError::new(
            ErrorKind::Refused,
            "the agent's card names no teachMethod: it takes no lessons itself",
        )
    })?;
    if let Some(fields) = block.and_then(|block| block.lesson_fields.clone()) {
        // The task's fields stand in for the card's: held to the same check.
        crate::hidden_text::hidden_in_fields(&fields)
            .map_err(|hidden| crate::check::hidden_text_refusal(&hidden))?;
        descriptor.lesson_fields = fields;
    }
    let suggested = block.and_then(|block| block.suggested.as_ref());
    Ok(Target {
        agent_name: card["name"].as_str().unwrap_or("the agent").to_owned(),
        prefill: prefill(&descriptor.lesson_fields, suggested),
        descriptor,
        entry,
        method,
        reason,
        task: None,
    })
}

/// The lesson the question of `link` asks for: the task's status message,
/// the agent's own words while the task waits for input, and its teach
/// block.
fn question(agent: &Agent, link: &str, entry: Option<&str>) -> Result<Target, CliError> {
    let task = link
        .rsplit_once("#task=")
        .map_or(link, |(_, task)| task)
        .trim();
    let task = percent_encoding::percent_decode_str(task).decode_utf8_lossy();
    let task = task.as_ref();
    if task.is_empty() || task.chars().count() > 256 || task.chars().any(char::is_control) {
        return Err(CliError::usage(format!(
            "{} is neither the agent's link (…#task=ID) nor a task id",
            line(link)
        )));
    }
    let found = agent.client.call(
        "GetTask",
        json!({"id": task}),
        &agent.token,
        "the question's task",
        "reading the question",
    )?;
    let status = &found["status"];
    if status["state"] != "TASK_STATE_INPUT_REQUIRED" {
        return Err(CliError::usage(format!(
            "the task {} waits for no answer (its state is {})",
            line(task),
            line(status["state"].as_str().unwrap_or("unknown"))
        )));
    }
    let message = &status["message"];
    if message["role"] != "ROLE_AGENT" {
        return Err(CliError::not_understood(format!(
            "the task {}'s status message is not the agent's own (role {}): only the agent's \
             words ask a question",
            line(task),
            line(message["role"].as_str().unwrap_or("none"))
        )));
    }
    let block = teach_block_of(message, &format!("the task {}", line(task)))?;
    let entry = match (entry, &block.entries[..]) {
        (Some(entry), entries) if entries.iter().any(|e| e == entry) => entry.to_owned(),
        (None, [only]) => only.clone(),
        (_, entries) => {
            return Err(CliError::usage(format!(
                "the question is about {}: name one as `entry`",
                entries
                    .iter()
                    .map(|entry| format!("\"{}\"", line(entry)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    };
    let mut target = target(agent, &block.collection, entry, Some(&block), None)?;
    target.task = Some(task.to_owned());
    Ok(target)
}

/// A teach form's step: ask it, or read the answer, teach it and say what
/// the agent learned (or refused, field by field, asking again with the
/// answers kept).
fn teach_step(agent: &Agent, target: &Target, answer: Option<(u32, ElicitResult)>) -> Step {
    let noun = the_entry(&target.descriptor.entry, &target.entry);
    let ask = |prefill: &BTreeMap<String, String>, said: Option<String>, round: u32| {
        let mut message = format!(
            "Teach {} {noun}: {}.",
            line(&target.agent_name),
            line(target.descriptor.teaches.trim_end_matches('.'))
        );
        if let Some(said) = said {
            message = format!("{said}\n\n{message}");
        }
        Step::Ask {
            message,
            schema: mcp::requested_schema_with(&target.descriptor, prefill),
            round,
        }
    };
    let Some((round, answer)) = answer else {
        return ask(&target.prefill, None, 0);
    };
    let content = match answer.action {
        ElicitationAction::Accept => answer.content,
        declined => {
            let how = if declined == ElicitationAction::Decline {
                "declined"
            } else {
                "cancelled"
            };
            return Step::Done(done(
                &format!("Nothing was taught: the person {how} the form for {noun}."),
                &json!({"taught": false, "action": how}),
            ));
        }
    };
    // What the person answered, to start the form with if it is asked again.
    let answered: BTreeMap<String, String> = content
        .as_ref()
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        // A number (an integer property's answer) is kept as its text.
        .filter_map(|(name, value)| match value {
            Value::Number(number) => Some((name.clone(), number.to_string())),
            other => Some((name.clone(), other.as_str()?.to_owned())),
        })
        .collect();
    let again = |said: String| {
        if round + 1 >= MAX_ROUNDS {
            Step::Done(failed(
                &format!("Nothing was taught: {said}"),
                &json!({"taught": false, "refused": said}),
            ))
        } else {
            ask(&answered, Some(said), round + 1)
        }
    };
    let value = match mcp::lesson_value(&target.descriptor, &target.entry, content.as_ref()) {
        Ok(value) => value,
        Err(error) => return again(format!("The form's answer does not do: {error}")),
    };
    let outcome = lesson_teacher(agent).and_then(|taught_by| {
        let mut lesson = Lesson::new(
            target.descriptor.collection.clone(),
            target.entry.clone(),
            value,
            taught_by,
        );
        lesson.reason = target.reason.clone();
        let params = serde_json::to_value(&lesson)
            .map_err(|error| CliError::usage(format!("cannot write the lesson: {error}")))?;
        agent.client.call(
            &target.method,
            params,
            &agent.token,
            "the lesson",
            "teaching",
        )
    });
    let result = match outcome {
        Ok(result) => result,
        Err(CliError::Refused(mut refusal)) => {
            refusal.labels = target
                .descriptor
                .lesson_fields
                .iter()
                .map(|field| (format!("value.{}", field.name), field.label.clone()))
                .collect();
            let by_field = refusal.problems.iter().any(|(field, _)| {
                field.as_deref().is_some_and(|at| {
                    target
                        .descriptor
                        .lesson_fields
                        .iter()
                        .any(|f| !f.entry_key && at == format!("value.{}", f.name))
                })
            });
            let said = capitalized(&refusal.to_string());
            if by_field {
                return again(said);
            }
            return Step::Done(failed(&said, &CliError::Refused(refusal).to_json()));
        }
        Err(error) => return Step::Done(failure(&error)),
    };
    let result = match crate::client::lesson_result(result) {
        Ok(result) => result,
        Err(error) => return Step::Done(failure(&error)),
    };
    let mut text = render_result(&result, Style::plain());
    // The entry's own version, from show-back (the result names the
    // collection's); the lesson is taught whether or not it reads.
    let entry_version = entry_version(agent, target);
    if let Some(version) = entry_version {
        text.push_str(&format!("Version {version} of {noun}\n"));
    }
    let mut data = json!({
        "taught": true,
        "learned": result.learned,
        "collection": target.descriptor.collection,
        "entry": target.entry,
        "entryVersion": entry_version,
        "result": serde_json::to_value(&result).unwrap_or_default(),
    });
    if let Some(task) = &target.task {
        let answer = result.learned.then(|| answer_of(agent, task)).flatten();
        match &answer {
            Some(answer) => text.push_str(&format!(
                "The task that asked is answered: {}\n",
                paragraph(answer)
            )),
            None => text.push_str(if result.proposal_id.is_some() {
                "The task that asked waits until another teacher approves the answer.\n"
            } else {
                "The task that asked still waits for an answer.\n"
            }),
        }
        data["task"] = json!({"id": task, "answered": answer.is_some(), "answer": answer});
    }
    Step::Done(done(&text, &data))
}

/// Who teaches: whom the agent says the token names (the command's
/// `--taught-by` has no counterpart here, so its failure says what to do
/// instead).
pub(crate) fn lesson_teacher(agent: &Agent) -> Result<String, CliError> {
    teacher(&agent.client, None, &agent.token).map_err(|error| match error {
        CliError::Failed { kind, message } => CliError::Failed {
            kind,
            message: message.replace(
                "; give --taught-by",
                ": give `learnables mcp` the token of a teacher the agent knows",
            ),
        },
        other => other,
    })
}

/// The entry's version as show-back says, if it says.
fn entry_version(agent: &Agent, target: &Target) -> Option<u64> {
    let params = ShowBackParams::new(&target.descriptor.collection, &target.entry);
    let shown = agent
        .client
        .call(
            SHOW_BACK_METHOD,
            serde_json::to_value(params).ok()?,
            &agent.token,
            "the show-back",
            "reading the entry",
        )
        .ok()?;
    let shown: ShowBack = serde_json::from_value(shown).ok()?;
    (shown.entry_version > 0).then_some(shown.entry_version)
}

/// `text` with its first letter a capital, to open a sentence.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The answer of `task` once it no longer waits for input (its status
/// message's text), read a bounded number of times while the agent takes
/// the lesson up; `None` while it still waits.
fn answer_of(agent: &Agent, task: &str) -> Option<String> {
    for read in 0..ANSWER_READS {
        if read > 0 {
            std::thread::sleep(ANSWER_PAUSE);
        }
        let found = agent
            .client
            .call(
                "GetTask",
                json!({"id": task}),
                &agent.token,
                "the question's task",
                "reading the task",
            )
            .ok()?;
        let status = &found["status"];
        if status["state"] == "TASK_STATE_INPUT_REQUIRED" {
            continue;
        }
        let parts = status["message"]["parts"].as_array();
        let text: Vec<&str> = parts
            .into_iter()
            .flatten()
            .filter_map(|part| part["text"].as_str())
            .collect();
        return Some(text.join(" "));
    }
    None
}

/// A revert's (`to` given) or a retraction's step: ask for a yes and a
/// reason, then do it with the command's own run.
fn confirm_step(
    agent: &Agent,
    collection: &str,
    entry: &str,
    to: Option<&String>,
    answer: Option<(u32, ElicitResult)>,
) -> Result<Step, CliError> {
    let card = agent.client.fetch_card()?;
    let (params, _) = params_for_forms(&card, agent.client.base())?;
    let descriptor = find_descriptor(&params, collection)?;
    let noun = the_entry(&descriptor.entry, entry);
    let target = EntryArgs {
        url: agent.url.clone(),
        collection: collection.to_owned(),
        entry: entry.to_owned(),
        token: agent.token.clone(),
    };
    let what = if to.is_some() { "revert" } else { "retract" };
    let Some((_, answer)) = answer else {
        let message = match to {
            Some(to) => {
                let page = fetch_page(
                    &agent.client,
                    collection,
                    entry,
                    &agent.token,
                    1,
                    Some(to.clone()),
                )?;
                let version = page.versions.first().ok_or_else(|| {
                    CliError::usage(format!("{noun} has no version {}", line(to)))
                })?;
                format!(
                    "Revert {noun} to version {}, taught by {} at {}{}?",
                    version.definition_version,
                    line(&version.taught_by),
                    line(&version.taught_at),
                    version
                        .reason
                        .as_deref()
                        .map_or_else(String::new, |reason| format!(" (\"{}\")", line(reason)))
                )
            }
            None => format!("Retract {noun}? New tasks will no longer know it; its history stays."),
        };
        let schema = json!({
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean", "title": format!("Yes, {what} it"),
                            "default": false},
                "reason": {"type": "string", "title": "Why",
                           "description": "In your words (optional); kept with the change."},
            },
            "required": ["confirm"],
        });
        let schema = serde_json::from_value(schema)
            .map_err(|error| CliError::usage(format!("cannot write the form: {error}")))?;
        return Ok(Step::Ask {
            message,
            schema,
            round: 0,
        });
    };
    let content = answer.content.unwrap_or_default();
    let confirmed = answer.action == ElicitationAction::Accept
        && (content["confirm"] == Value::Bool(true)
            || matches!(content["confirm"].as_str(), Some("yes" | "true")));
    if !confirmed {
        return Ok(Step::Done(done(
            &format!("Nothing changed: the person did not confirm the {what} of {noun}."),
            &json!({"taught": false}),
        )));
    }
    let reason = content["reason"]
        .as_str()
        .map(str::trim)
        .filter(|reason| !reason.is_empty())
        .map(str::to_owned);
    let outcome = match to {
        Some(to) => crate::revert::run(
            &RevertArgs {
                target,
                to: to.clone(),
                taught_by: None,
                reason,
                yes: true,
            },
            &agent.client,
            Format::Json,
        )?,
        None => crate::retract::run(
            &RetractArgs {
                target,
                taught_by: None,
                reason,
                yes: true,
            },
            &agent.client,
            Format::Json,
        )?,
    };
    Ok(Step::Done(outcome_result(outcome)))
}

/// `list_learnables`: the card's learnables, for a person and as data.
pub fn list(agent: &Agent) -> CallToolResult {
    let listed = agent.client.fetch_card().and_then(|card| {
        let (params, _) = params_for_forms(&card, agent.client.base())?;
        let learnables: Vec<Value> = params
            .learnables
            .iter()
            .map(|descriptor| {
                json!({
                    "collection": descriptor.collection,
                    "entry": descriptor.entry,
                    "teaches": descriptor.teaches,
                    "how": descriptor.how,
                    "fields": descriptor.lesson_fields.iter()
                        .map(|field| json!({"name": field.name, "label": field.label}))
                        .collect::<Vec<_>>(),
                })
            })
            .collect();
        let data = json!({"agent": card["name"], "learnables": learnables});
        Ok(done(&render_card(&card, &params, Style::plain()), &data))
    });
    listed.unwrap_or_else(|error| failure(&error))
}

/// `show`: the entry through show-back, as `learnables show` shows it.
pub fn show(agent: &Agent, collection: String, entry: String) -> CallToolResult {
    let args = ShowArgs {
        target: entry_args(agent, collection, entry),
        as_of: None,
    };
    crate::show::run(&args, &agent.client, Format::Json)
        .map_or_else(|error| failure(&error), outcome_result)
}

/// `history`: the entry's versions, as `learnables history` shows them.
pub fn history(agent: &Agent, collection: String, entry: String) -> CallToolResult {
    let args = HistoryArgs {
        target: entry_args(agent, collection, entry),
        limit: 20,
        from: None,
    };
    crate::history::run(&args, &agent.client, Format::Json)
        .map_or_else(|error| failure(&error), outcome_result)
}

fn entry_args(agent: &Agent, collection: String, entry: String) -> EntryArgs {
    EntryArgs {
        url: agent.url.clone(),
        collection,
        entry,
        token: agent.token.clone(),
    }
}
