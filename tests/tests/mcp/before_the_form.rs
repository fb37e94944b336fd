//! `learnables mcp` before its first form: a token the agent refuses is
//! said plainly before the person fills anything, and a host that shows no
//! forms is given the teacher's page's link. Driven with rmcp's own client
//! over the command's stdio, against the example agent.

use learnables_tests::support::agent::Agent;
use serde_json::{Value, json};

use crate::hostile::call_tools_as;
use crate::library::Person;

/// The text of a tool's result.
fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn a_token_the_agent_refuses_is_said_before_any_form() {
    let data = tempfile::tempdir().unwrap();
    let agent = Agent::start(data.path());
    let person = Person::default();
    person
        .answers
        .lock()
        .unwrap()
        .push(Some(json!({"desk": "cold chain"})));
    let (said, _) = call_tools_as(
        &agent.base_url,
        "not-a-token-the-agent-knows",
        person.clone(),
        &[(
            "teach",
            json!({"collection": "routing_rules", "entry": "85"}),
        )],
    );
    let result = said.last().unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        person.asked.lock().unwrap().is_empty(),
        "no form was shown: {result}"
    );
    let text = text_of(result);
    assert!(text.contains("token"), "{text}");
    assert!(text.contains("Nothing was asked"), "{text}");
    agent.stop();
}

#[test]
fn a_host_without_forms_is_given_the_teachers_page() {
    let data = tempfile::tempdir().unwrap();
    let agent = Agent::start(data.path());
    let link = format!("{}learnables/#task=t1", agent.base_url);
    let (said, _) = call_tools_as(
        &agent.base_url,
        "alice-token",
        (),
        &[
            (
                "teach",
                json!({"collection": "routing_rules", "entry": "85"}),
            ),
            ("answer_question", json!({"link": link})),
        ],
    );
    let teach = &said[said.len() - 2];
    assert_eq!(teach["isError"], true, "{teach}");
    let page = format!("{}learnables/", agent.base_url);
    assert!(text_of(teach).contains(&page), "{}", text_of(teach));
    let answer = said.last().unwrap();
    assert!(text_of(answer).contains(&link), "{}", text_of(answer));
    agent.stop();
}

#[test]
fn an_entry_the_agent_refuses_is_said_before_any_form() {
    let data = tempfile::tempdir().unwrap();
    let agent = Agent::start(data.path());
    let person = Person::default();
    person
        .answers
        .lock()
        .unwrap()
        .push(Some(json!({"desk": "cold chain"})));
    // A zero-width space in the entry: the agent refuses the name.
    let (said, _) = call_tools_as(
        &agent.base_url,
        "alice-token",
        person.clone(),
        &[(
            "teach",
            json!({"collection": "routing_rules", "entry": "8\u{200b}5"}),
        )],
    );
    let result = said.last().unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        person.asked.lock().unwrap().is_empty(),
        "no form was shown: {result}"
    );
    let text = text_of(result);
    assert!(text.contains("Nothing was asked"), "{text}");
    assert!(text.contains("\\u{200b}"), "{text}");
    agent.stop();
}

#[test]
fn an_entry_no_lesson_could_teach_is_said_before_any_form() {
    let data = tempfile::tempdir().unwrap();
    let agent = Agent::start(data.path());
    let person = Person::default();
    person
        .answers
        .lock()
        .unwrap()
        .push(Some(json!({"desk": "cold chain"})));
    // The routing rules are keyed on the HS chapter: there is no 99.
    let (said, _) = call_tools_as(
        &agent.base_url,
        "alice-token",
        person.clone(),
        &[(
            "teach",
            json!({"collection": "routing_rules", "entry": "99"}),
        )],
    );
    let result = said.last().unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        person.asked.lock().unwrap().is_empty(),
        "no form was shown: {result}"
    );
    let text = text_of(result);
    assert!(text.contains("Nothing was asked"), "{text}");
    assert!(text.contains("there is no HS chapter 99"), "{text}");
    agent.stop();
}
