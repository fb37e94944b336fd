//! `learnables teach`: a lesson from a form (or from `--set` alone), sent
//! through the agent's teach method.

use std::collections::BTreeMap;
use std::path::Path;

use learnables::{
    DeclarationParams, LearnableDescriptor, Lesson, LessonField, LessonResult, LessonValue,
    Rendering, TeachBlock,
};
use serde_json::{Map, Value, json};

use crate::check::params_for_teaching;
use crate::cli::TeachArgs;
use crate::client::{AgentClient, MAX_ANSWER_BYTES, read_file_bounded};
use crate::error::{CliError, Refusal};
use crate::error_kind::ErrorKind;
use crate::form::{self, Question};
use crate::outcome::{Format, Outcome, warn};
use crate::render::{line, line_list, paragraph, the_entry, value_text, violation_lines};
use crate::style::Style;

/// Runs `teach`. Without a form (no terminal, or `--json`), each field
/// not given with `--set` takes what the form would start with (the
/// question's suggestion, else the field's default); one with neither is
/// left out with `--yes` (or `--accept-defaults`), and is otherwise a usage
/// error naming it by its label, as is a question about several entries
/// without `--entry`. In JSON: `{"lesson": the lesson sent, "result": the
/// agent's LessonResult, "warnings": [...]}`.
pub fn run(args: &TeachArgs, client: &AgentClient, format: Format) -> Result<Outcome, CliError> {
    let mut warnings = Vec::new();
    let mut warn_of = |warning: String| {
        warn(format, &warning);
        warnings.push(warning);
    };
    let form_allowed = !format.is_json() && form::terminal_available();
    let question = args
        .question
        .as_deref()
        .map(|question| read_question(question, client, &args.token))
        .transpose()?;
    let (block, asking_task) = match question {
        Some(question) => (Some(question.block), question.task),
        None => (None, None),
    };
    let collection = match (&block, &args.collection) {
        (Some(block), Some(collection)) if &block.collection != collection => {
            return Err(CliError::usage(format!(
                "the question is about {}, not {}: leave out --collection",
                line(&block.collection),
                line(collection)
            )));
        }
        (Some(block), _) => block.collection.clone(),
        (None, Some(collection)) => collection.clone(),
        (None, None) => return Err(CliError::usage("--collection is needed")),
    };
    let card = client.fetch_card()?;
    let (params, warning) = params_for_teaching(&card, client.base())?;
    if let Some(warning) = warning {
        warn_of(warning);
    }
    let descriptor = find_descriptor(&params, &collection)?;
    let method = params.teach_method.clone().ok_or_else(|| {
        CliError::new(
            ErrorKind::Refused,
            "the agent's card names no teachMethod: it takes no lessons itself (the spec's \
             teachMethod is for agents that own their knowledge)",
        )
    })?;
    if let Some(block) = &block
        && let Err(violations) = block.validate(descriptor)
    {
        warn_of(format!(
            "the question's teach block breaks the spec; its faults are ignored:\n{}",
            violation_lines(&violations, "  ", Style::plain()).trim_end()
        ));
    }
    let fields: &[LessonField] = block
        .as_ref()
        .and_then(|block| block.lesson_fields.as_deref())
        .unwrap_or(&descriptor.lesson_fields);
    let given = check_sets(fields, &args.sets)?;
    let prefill = prefill(fields, block.as_ref().and_then(|b| b.suggested.as_ref()));
    // The field that is the entry's key is never asked for: the entry
    // fills it (below), so the chapter is typed once.
    let missing: Vec<&LessonField> = fields
        .iter()
        .filter(|field| !field.entry_key && !given.contains_key(&field.name))
        .collect();
    let interactive = form_allowed && !missing.is_empty() && !args.accept_defaults;
    let entries = block.as_ref().map_or(&[][..], |block| &block.entries[..]);
    let entry = match (&args.entry, entries) {
        (Some(entry), _) => entry.clone(),
        (None, [only]) => only.clone(),
        (None, []) => {
            return Err(CliError::usage(
                "the question names no entry: give one with --entry",
            ));
        }
        (None, several) if form_allowed => form::pick_entry(&descriptor.entry, several)?,
        (None, several) => {
            return Err(CliError::usage(format!(
                "the question is about several entries ({}): pick one with --entry",
                line_list(several)
            )));
        }
    };
    let mut values = given;
    if let Some(key) = fields.iter().find(|field| field.entry_key) {
        values
            .entry(key.name.clone())
            .or_insert_with(|| Some(entry.clone()));
    }
    let mut reason = args.reason.clone();
    if interactive {
        let style = Style::for_stderr();
        // In the teacher's words: the entry's noun and what the learnable
        // teaches, never the collection's key.
        eprintln!(
            "{} {}",
            style.bold("Teaching"),
            the_entry(&descriptor.entry, &entry)
        );
        eprintln!("  {}", style.dim(&line(&descriptor.teaches)));
        if let Some(label) = block.as_ref().and_then(|b| b.suggestion_label.as_deref()) {
            eprintln!("  {} {}", style.yellow("Suggested:"), line(label));
        }
        for field in &missing {
            let question: Question =
                form::question(field, prefill.get(&field.name).map(String::as_str));
            values.insert(field.name.clone(), form::ask(&question)?);
        }
        if reason.is_none() {
            reason = form::ask_reason()?;
        }
        eprintln!();
    } else {
        // No form asks: each field left takes what the form would start
        // with. One with nothing to start with is left out only when the
        // teacher said so; the agent refuses a lesson that lacks a field it
        // needs, by its label.
        let unfilled: Vec<&LessonField> = missing
            .iter()
            .copied()
            .filter(|field| !prefill.contains_key(&field.name))
            .collect();
        if !unfilled.is_empty() && !args.yes && !args.accept_defaults {
            let why = if format.is_json() {
                "--json shows no form"
            } else {
                "no terminal for the form"
            };
            return Err(CliError::usage(no_value(why, &unfilled)));
        }
        for field in &missing {
            values.insert(field.name.clone(), prefill.get(&field.name).cloned());
        }
    }
    let taught_by = teacher(client, args.taught_by.as_deref(), &args.token)?;
    let reason = reason.filter(|reason| !reason.trim().is_empty());
    // With the form: a review before sending, and a value the agent
    // refuses asked again, the other answers kept.
    let mut rounds = 0;
    let (params, result) = loop {
        if interactive && !args.yes && !form::confirm_review(fields, &values, reason.as_deref())? {
            return Err(CliError::Cancelled);
        }
        let mut lesson = Lesson::new(
            collection.clone(),
            entry.clone(),
            lesson_value(&values),
            taught_by.clone(),
        );
        lesson.reason = reason.clone();
        let params = serde_json::to_value(&lesson)
            .map_err(|error| CliError::usage(format!("cannot write the lesson: {error}")))?;
        match client.call(
            &method,
            params.clone(),
            &args.token,
            "the lesson",
            "teaching",
        ) {
            Ok(result) => break (params, result),
            Err(CliError::Refused(mut refusal)) => {
                refusal.labels = fields
                    .iter()
                    .map(|field| (format!("value.{}", field.name), field.label.clone()))
                    .collect();
                // The entry's key is the entry: asking for the field again
                // could not change it.
                let mut refused = refused_fields(fields, &refusal);
                refused.retain(|(field, _)| !field.entry_key);
                if !interactive || rounds >= MAX_ROUNDS || refused.is_empty() {
                    return Err(CliError::Refused(refusal));
                }
                rounds += 1;
                for (field, description) in refused {
                    form::show_refusal(&field.label, &description);
                    let typed = values.get(&field.name).cloned().flatten();
                    let question = form::question(field, typed.as_deref());
                    values.insert(field.name.clone(), form::ask(&question)?);
                }
            }
            Err(error) => return Err(error),
        }
    };
    let result = crate::client::lesson_result(result)?;
    // A lesson the question asked for resumes the task that asked: say so,
    // with the agent's answer.
    let answered = match (&asking_task, result.learned) {
        (Some(task), true) => answer_of_task(client, task, &args.token),
        _ => None,
    };
    let mut text = render_result(&result, Style::for_stdout());
    if let Some(answer) = &answered {
        text.push_str(&format!(
            "The agent's question is answered: {}\n",
            paragraph(answer)
        ));
    } else if asking_task.is_some() && result.proposal_id.is_some() {
        text.push_str("The agent's question stays open until the answer is approved.\n");
    }
    let json = json!({
        "lesson": params,
        "result": serde_json::to_value(&result).unwrap_or_default(),
        "answered": answered.map(|answer| json!({"task": asking_task, "answer": answer})),
        "warnings": warnings,
    });
    Ok(Outcome::ok(text, json))
}

/// The answer of `task` once it no longer waits for input (its status
/// message's text), or `None` while it waits or when it cannot be read:
/// the lesson is taught either way.
fn answer_of_task(client: &AgentClient, task: &str, token: &str) -> Option<String> {
    let found = client
        .call(
            "GetTask",
            json!({"id": task}),
            token,
            "the question's task",
            "reading the task",
        )
        .ok()?;
    answer_in(&found)
}

/// The answer in a task no longer waiting for input: its status message's
/// text; `None` while it waits.
fn answer_in(found: &Value) -> Option<String> {
    let status = found.get("status")?;
    if status.get("state")?.as_str()? == "TASK_STATE_INPUT_REQUIRED" {
        return None;
    }
    let parts = status.get("message")?.get("parts")?.as_array()?;
    let text: Vec<&str> = parts
        .iter()
        .filter_map(|part| part.get("text")?.as_str())
        .collect();
    Some(text.join(" "))
}

/// Why no form asked, and what to do about the fields it would have asked
/// for: each by its label, with the `--set` that gives it.
fn no_value(why: &str, fields: &[&LessonField]) -> String {
    match fields {
        [field] => format!(
            "{why}, and {} has no value: give it with --set {}=VALUE, or leave it out with --yes",
            line(&field.label),
            line(&field.name)
        ),
        several => format!(
            "{why}, and these fields have no value: {}; give each with --set, or leave them \
             out with --yes",
            several
                .iter()
                .map(|field| format!("{} (--set {}=VALUE)", line(&field.label), line(&field.name)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// How many times the form asks again for values the agent refused.
const MAX_ROUNDS: usize = 5;

/// The fields a refusal names (`value.NAME`), with what it says of each.
fn refused_fields<'a>(
    fields: &'a [LessonField],
    refusal: &Refusal,
) -> Vec<(&'a LessonField, String)> {
    fields
        .iter()
        .filter_map(|field| {
            let at = format!("value.{}", field.name);
            refusal
                .problems
                .iter()
                .find(|(problem, _)| problem.as_deref() == Some(at.as_str()))
                .map(|(_, description)| (field, description.clone()))
        })
        .collect()
}

/// Who teaches: `--taught-by` when given, else whom the agent says the
/// token names.
pub(crate) fn teacher(
    client: &AgentClient,
    taught_by: Option<&str>,
    token: &str,
) -> Result<String, CliError> {
    match taught_by {
        Some(who) => Ok(who.trim().to_owned()),
        None => token_owner(client, token),
    }
}

/// Whom the agent says `token` names ([`learnables::TEACHER_METHOD`]).
fn token_owner(client: &AgentClient, token: &str) -> Result<String, CliError> {
    let answer = client.call(
        learnables::TEACHER_METHOD,
        json!({}),
        token,
        "the token",
        "asking whom the token names",
    )?;
    match answer["teacher"].as_str() {
        Some(teacher) if !teacher.trim().is_empty() => Ok(teacher.to_owned()),
        _ => Err(CliError::not_understood(
            "the agent did not say whom the token names; give --taught-by",
        )),
    }
}

/// A question to answer: its teach block, and the task that asked when
/// what was given names it.
pub struct AskedQuestion {
    /// The question's teach block.
    pub block: TeachBlock,
    /// The id of the task that asked, if known.
    pub task: Option<String>,
}

/// Reads the question `question` names: the agent's page link
/// (`#task=ID`, its task read with GetTask), or a file of at most
/// [`MAX_ANSWER_BYTES`] holding the question message, the task, or the
/// `SendMessage` answer.
pub fn read_question(
    question: &str,
    client: &AgentClient,
    token: &str,
) -> Result<AskedQuestion, CliError> {
    if let Some((_, task)) = question.split_once("#task=") {
        let task = task.trim();
        let found = client.call(
            "GetTask",
            json!({"id": task}),
            token,
            "the question's task",
            "reading the question",
        )?;
        if let Some(answer) = answer_in(&found) {
            return Err(CliError::new(
                ErrorKind::Answered,
                format!(
                    "the agent's question is answered already: {}",
                    line(&answer)
                ),
            ));
        }
        let block = teach_block_of(
            question_message(&found),
            &format!("the task {}", line(task)),
        )?;
        return Ok(AskedQuestion {
            block,
            task: Some(task.to_owned()),
        });
    }
    let file = Path::new(question);
    let name = line(&file.display().to_string());
    let text = read_file_bounded(file, MAX_ANSWER_BYTES)?;
    let document: Value = serde_json::from_slice(&text).map_err(|error| {
        CliError::usage(format!("{name} is not JSON: {}", line(&error.to_string())))
    })?;
    Ok(AskedQuestion {
        block: teach_block_of(question_message(&document), &name)?,
        task: question_task(&document),
    })
}

/// The id of the task a question came from: the task's own, or the
/// message's `taskId`.
fn question_task(document: &Value) -> Option<String> {
    let at = what_was_sent(document);
    let id = if at.get("status").is_some() {
        at.get("id")
    } else {
        at.get("taskId")
    };
    id?.as_str().map(str::to_owned)
}

/// The task or message in what the agent sent: a JSON-RPC answer's
/// `result`, a `SendMessage` answer's `task` or `message`, or the document.
fn what_was_sent(document: &Value) -> &Value {
    let mut at = document;
    if let Some(result) = at.get("result") {
        at = result;
    }
    at.get("task").or_else(|| at.get("message")).unwrap_or(at)
}

/// The question message in what the agent sent: a JSON-RPC answer's
/// `result`, a `SendMessage` answer's `task` or `message`, a task's status
/// message, or the message itself.
fn question_message(document: &Value) -> &Value {
    let at = what_was_sent(document);
    match at.get("status").and_then(|status| status.get("message")) {
        Some(message) => message,
        None => at,
    }
}

/// The teach block of a question message (JSON), or why there is none.
pub fn teach_block_of(message: &Value, name: &str) -> Result<TeachBlock, CliError> {
    TeachBlock::from_message(message)
        .map_err(|error| CliError::usage(format!("{name}: {}", line(&error.to_string()))))?
        .ok_or_else(|| {
            CliError::usage(format!(
                "{name} carries no teach block: a question has one at metadata[\"{}\"].teach",
                learnables::EXTENSION_URI
            ))
        })
}

/// The descriptor of `collection`, or an error naming those there are.
pub fn find_descriptor<'a>(
    params: &'a DeclarationParams,
    collection: &str,
) -> Result<&'a LearnableDescriptor, CliError> {
    params
        .learnables
        .iter()
        .find(|descriptor| descriptor.collection == collection)
        .ok_or_else(|| {
            CliError::usage(format!(
                "the agent has no learnable {}; it has: {}",
                line(collection),
                line_list(params.learnables.iter().map(|d| &d.collection))
            ))
        })
}

/// The `--set` values, checked against the fields: each names a field,
/// once, and a choice field's value is one of its choices. An empty value
/// leaves the field out (`None`).
pub fn check_sets(
    fields: &[LessonField],
    sets: &[(String, String)],
) -> Result<BTreeMap<String, Option<String>>, CliError> {
    // The names are what --set takes; the labels say which field each is.
    let names = || {
        fields
            .iter()
            .map(|field| format!("{} ({})", line(&field.name), line(&field.label)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut given = BTreeMap::new();
    for (name, value) in sets {
        let Some(field) = fields.iter().find(|field| &field.name == name) else {
            return Err(CliError::usage(format!(
                "--set {}: no field has that name; the fields are: {}",
                line(name),
                names()
            )));
        };
        if given.contains_key(name) && !field.list {
            return Err(CliError::usage(format!(
                "--set {}: given twice (it takes one value; a list field takes --set once per \
                 item)",
                line(name)
            )));
        }
        let choices = field.choices.as_deref().unwrap_or_default();
        if !value.is_empty()
            && field.kind.rendering() == Rendering::Choice
            && !choices.contains(value)
        {
            return Err(CliError::usage(format!(
                "--set {}: \"{}\" is not one of the choices of {}: {}",
                line(name),
                line(value),
                line(&field.label),
                line_list(choices)
            )));
        }
        if field.list {
            // A list's items, one a line: the text form the agent reads.
            let items: &mut Option<String> = given.entry(name.clone()).or_default();
            if !value.is_empty() {
                match items {
                    Some(items) => {
                        items.push(learnables::LIST_SEPARATOR);
                        items.push_str(value);
                    }
                    None => *items = Some(value.clone()),
                }
            }
            continue;
        }
        given.insert(name.clone(), (!value.is_empty()).then(|| value.clone()));
    }
    Ok(given)
}

/// What the form starts with: each field's default, replaced by the teach
/// block's suggestion for the fields it suggests.
pub fn prefill(
    fields: &[LessonField],
    suggested: Option<&Map<String, Value>>,
) -> BTreeMap<String, String> {
    fields
        .iter()
        .filter_map(|field| {
            let suggestion = suggested
                .and_then(|suggested| suggested.get(&field.name))
                .filter(|value| !value.is_null())
                .map(value_text);
            suggestion
                .or_else(|| field.default.clone())
                .map(|value| (field.name.clone(), value))
        })
        .collect()
}

/// The lesson value: each field with a value, as a string (what a form
/// sends).
pub fn lesson_value(values: &BTreeMap<String, Option<String>>) -> LessonValue {
    let map: Map<String, Value> = values
        .iter()
        .filter_map(|(name, value)| Some((name.clone(), Value::String(value.clone()?))))
        .collect();
    LessonValue::from(map)
}

/// What the agent says it learned.
pub fn render_result(result: &LessonResult, style: Style) -> String {
    let describes = paragraph(&result.describes);
    let mut text = if let (false, Some(id)) = (result.learned, &result.proposal_id) {
        // A reviewed learnable: nothing changes until another teacher
        // approves it (`learnables review`).
        format!(
            "{} another teacher must approve it before the agent uses it (proposal {}).\n{describes}\n",
            style.yellow("Waiting for review:"),
            line(id)
        )
    } else if result.learned {
        format!("{} {describes}\n", style.green("Learned:"))
    } else {
        format!(
            "{} the agent already knew this.\n{describes}\n",
            style.yellow("Nothing new:"),
        )
    };
    // The result names the collection's version (its previous one is the
    // collection's too, not the entry's: `learnables history` shows those).
    text.push_str(&format!(
        "Version {} of the collection",
        result.definition_version
    ));
    if let Some(id) = &result.version_id {
        text.push_str(&format!(" ({})", line(id)));
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use learnables::FieldKind;
    use serde_json::json;

    use super::*;

    fn fields() -> Vec<LessonField> {
        vec![
            LessonField::new("chapter", "HS chapter", FieldKind::TEXT),
            LessonField::new("desk", "Desk", FieldKind::CHOICE)
                .with_choices(["general", "cold chain"])
                .with_default("general"),
            LessonField::new("note", "Note", FieldKind::TEXT),
        ]
    }

    fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn sets_name_fields_and_an_empty_value_leaves_one_out() {
        let given = check_sets(&fields(), &sets(&[("desk", "cold chain"), ("note", "")])).unwrap();
        assert_eq!(given["desk"].as_deref(), Some("cold chain"));
        assert_eq!(given["note"], None);
        assert_eq!(
            lesson_value(&given).into_json(),
            json!({"desk": "cold chain"})
        );
    }

    #[test]
    fn a_set_of_no_field_names_the_fields() {
        let error = check_sets(&fields(), &sets(&[("desks", "x")])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--set desks: no field has that name; the fields are: chapter (HS chapter), desk \
             (Desk), note (Note)"
        );
        let error = check_sets(&fields(), &sets(&[("desk", "urgent")])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--set desk: \"urgent\" is not one of the choices of Desk: general, cold chain"
        );
        assert!(check_sets(&fields(), &sets(&[("note", "a"), ("note", "b")])).is_err());
    }

    #[test]
    fn a_list_field_takes_set_once_per_item() {
        let mut desks = LessonField::new("desks", "Desks", FieldKind::CHOICE)
            .with_choices(["general", "cold chain"]);
        desks.list = true;
        let fields = [desks];
        let given = check_sets(
            &fields,
            &sets(&[("desks", "general"), ("desks", "cold chain")]),
        )
        .unwrap();
        assert_eq!(
            lesson_value(&given).into_json(),
            json!({"desks": "general\ncold chain"})
        );
        let error = check_sets(&fields, &sets(&[("desks", "north")])).unwrap_err();
        assert!(
            error.to_string().contains("is not one of the choices"),
            "{error}"
        );
    }

    #[test]
    fn suggestions_replace_defaults() {
        let suggested: Map<String, Value> =
            serde_json::from_value(json!({"chapter": 85, "desk": "cold chain"})).unwrap();
        let prefill = prefill(&fields(), Some(&suggested));
        assert_eq!(prefill["chapter"], "85");
        assert_eq!(prefill["desk"], "cold chain");
        assert!(!prefill.contains_key("note"));
        assert_eq!(super::prefill(&fields(), None)["desk"], "general");
    }

    #[test]
    fn results_say_what_was_learned_or_that_nothing_was() {
        let mut result = LessonResult::new(
            true,
            "Chapter 85 declarations now go to the general desk",
            2,
        )
        .with_version_id("v2")
        .with_previous_version_id("v1");
        assert_eq!(
            render_result(&result, Style::plain()),
            "Learned: Chapter 85 declarations now go to the general desk\nVersion 2 of the collection (v2)\n"
        );
        result.learned = false;
        assert_eq!(
            render_result(&result, Style::plain()),
            "Nothing new: the agent already knew this.\n\
             Chapter 85 declarations now go to the general desk\nVersion 2 of the collection (v2)\n"
        );
    }

    #[test]
    fn a_hostile_result_is_shown_escaped() {
        let result = LessonResult::new(
            true,
            "ok\x1b]0;owned\x07\r\x1b[1A\u{9b}2J\nline two \u{2067}",
            2,
        )
        .with_version_id("v\x1b[2J")
        .with_previous_version_id("\u{200b}v1");
        assert_eq!(
            render_result(&result, Style::plain()),
            "Learned: ok\\u{1b}]0;owned\\u{7}\\r\\u{1b}[1A\\u{9b}2J\nline two \\u{2067}\n\
             Version 2 of the collection (v\\u{1b}[2J)\n"
        );
    }

    #[test]
    fn a_message_without_a_block_says_where_one_would_be() {
        let error = teach_block_of(&json!({"parts": []}), "q.json").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("q.json carries no teach block")
        );
        let mut message = json!({"messageId": "m", "role": "ROLE_AGENT", "parts": []});
        TeachBlock::new("routing_rules", ["85"])
            .attach_to(&mut message)
            .unwrap();
        assert_eq!(teach_block_of(&message, "q").unwrap().entries, ["85"]);
    }
}
