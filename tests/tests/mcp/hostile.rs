//! `learnables mcp` against a hostile agent: terminal escape sequences,
//! C1 controls, bidi overrides and invisible characters in every text of its
//! card, its results and its show-back. Driven with rmcp's own client over
//! the command's stdio, its elicitation handler answering the form, every
//! string the command sent (forms, tool texts, structured content) is
//! checked: no hazardous character reaches the host or its model, and the
//! attack shows as visible escapes. A card whose declaration holds such a
//! character (a choice, a label, a name) is refused before any form: a
//! form's choices go to the host exactly as the agent wrote them, since
//! the answer sends one back, so none of them may hold one.

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::routing::{get, post};
use learnables::untrusted::is_hazard;
use learnables::{EXTENSION_URI, TEACH_METHOD};
use learnables_tests::support::agent::Agent;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::library::Person;

/// Every attack at once.
const ATTACK: &str = concat!(
    "\x1b]52;c;cm0gLXJmIH4K\x07",          // OSC 52: write the clipboard
    "\x1b]0;owned\x07",                    // OSC 0: the window title
    "\x1b[2J",                             // CSI: clear the screen
    "\u{9b}31m\u{9d}0;c1\u{9c}",           // C1 CSI, OSC, ST
    "\u{202e}txt.exe\u{200b}\u{feff}\r\n"  // bidi override, invisibles, a forged line
);

/// The start of [`ATTACK`], escaped.
const SHOWN: &str = r"\u{1b}]52;c;cm0gLXJmIH4K\u{7}";

/// The token: it must appear nowhere.
const TOKEN: &str = "hostile-test-token-Zq8";

fn hostile(word: &str) -> String {
    format!("{word} {ATTACK}")
}

/// A card with the attack in every text of its Learnables declaration.
fn card() -> Value {
    json!({
        "name": hostile("Agent"),
        "skills": [{"id": "route", "name": hostile("Skill")}],
        "capabilities": {"extensions": [{"uri": EXTENSION_URI, "params": {
            "teachMethod": TEACH_METHOD,
            "learnables": [{
                "collection": "rules", "entry": hostile("rule"),
                "teaches": hostile("Teaches"), "how": hostile("A table kept by the team"),
                "decidedBy": "rules", "skills": ["route"],
                "lessonFields": [
                    {"name": "desk", "label": hostile("Desk"), "kind": "choice",
                     "help": hostile("Help"), "choices": ["general", ATTACK],
                     "choiceDescriptions": [hostile("Everything"), hostile("Nothing")]},
                    {"name": "note", "label": hostile("Note"), "kind": "text",
                     "help": hostile("Note help"), "default": ATTACK}
                ]
            }]
        }}]}
    })
}

/// A card with the attack in its own texts (its name, its skills' names)
/// but none in its Learnables declaration, which a form is made of.
fn card_with_a_clean_declaration() -> Value {
    json!({
        "name": hostile("Agent"),
        "skills": [{"id": "route", "name": hostile("Skill")}],
        "capabilities": {"extensions": [{"uri": EXTENSION_URI, "params": {
            "teachMethod": TEACH_METHOD,
            "learnables": [{
                "collection": "rules", "entry": "rule",
                "teaches": "Which desk", "how": "A table kept by the team",
                "decidedBy": "rules", "skills": ["route"],
                "lessonFields": [
                    {"name": "desk", "label": "Desk", "kind": "choice",
                     "help": "Help", "choices": ["general", "cold chain"],
                     "choiceDescriptions": ["Everything", "Nothing"]},
                    {"name": "note", "label": "Note", "kind": "text", "help": "Note help"}
                ]
            }]
        }}]}
    })
}

/// The agent's answer to each JSON-RPC method the command calls.
async fn rpc(Json(request): Json<Value>) -> Json<Value> {
    let result = match request["method"].as_str().unwrap_or_default() {
        "rsaxb.learnables.Teacher" => json!({"teacher": "alice@example.com"}),
        TEACH_METHOD => json!({"learned": true, "describes": hostile("Learned"),
                               "definitionVersion": 1, "versionId": hostile("v1")}),
        _ => json!({"collection": "rules", "entry": hostile("entry"),
                    "describes": hostile("Describes"),
                    "lessonFields": [{"name": "desk", "label": hostile("Desk"), "kind": "text",
                                      "default": hostile("value")}],
                    "definitionVersion": 1, "versionId": hostile("v1"),
                    "collectionVersion": 1, "taughtBy": hostile("who"),
                    "reason": hostile("why"), "taughtAt": hostile("when")}),
    };
    Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
}

/// Every string in `value`, keys included.
fn strings<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
    match value {
        Value::String(text) => found.push(text),
        Value::Array(items) => items.iter().for_each(|item| strings(item, found)),
        Value::Object(map) => {
            for (key, item) in map {
                found.push(key);
                strings(item, found);
            }
        }
        _ => {}
    }
}

/// Whether any text the command sent holds a hazardous character.
fn any_hazard(values: &[Value]) -> Option<String> {
    let mut texts = Vec::new();
    for value in values {
        strings(value, &mut texts);
    }
    texts
        .into_iter()
        .find(|text| text.chars().any(|c| is_hazard(c) && c != '\n'))
        .map(str::to_owned)
}

/// The hostile agent serving `card`, and a person who answers the first
/// form with `answer`.
fn hostile_agent(card: fn() -> Value, answer: Value) -> (Agent, Person) {
    let agent = Agent::start_router(move |_| {
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                get(move || async move { Json(card()) }),
            )
            .route("/", post(rpc))
    });
    let person = Person::default();
    person.answers.lock().unwrap().push(Some(answer));
    (agent, person)
}

#[test]
fn a_card_whose_declaration_hides_characters_is_refused_before_any_form() {
    let (agent, person) = hostile_agent(card, json!({"desk": ATTACK, "note": "checked"}));
    let (said, stderr) = call_tools(
        &agent.base_url,
        &person,
        &[
            ("teach", json!({"collection": "rules", "entry": "e"})),
            ("list_learnables", json!({})),
        ],
    );
    assert!(person.asked.lock().unwrap().is_empty(), "no form was shown");
    for result in &said[said.len() - 2..] {
        assert_eq!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("does not show as itself"),
            "the refusal says why: {text}"
        );
        assert!(
            text.contains("learnables[0].lessonFields[0].choices[1]"),
            "the refusal names the choice: {text}"
        );
    }
    let mut sent = said;
    sent.push(Value::String(stderr));
    assert_eq!(
        any_hazard(&sent),
        None,
        "a hazardous character reached the host"
    );
    agent.stop();
}

#[test]
fn a_hostile_agents_words_reach_the_host_only_escaped() {
    let (agent, person) = hostile_agent(
        card_with_a_clean_declaration,
        json!({"desk": "cold chain", "note": "checked"}),
    );
    let (said, stderr) = call_tools(
        &agent.base_url,
        &person,
        &[
            ("list_learnables", json!({})),
            ("teach", json!({"collection": "rules", "entry": "e"})),
            ("show", json!({"collection": "rules", "entry": "e"})),
        ],
    );
    for result in &said[7..] {
        assert_ne!(result["isError"], true, "{result}");
    }
    let asked = person.asked.lock().unwrap();
    assert_eq!(asked.len(), 1, "the teach form was shown");
    let (message, schema) = &asked[0];
    let mut all: Vec<Value> = said;
    all.push(Value::String(message.clone()));
    all.push(schema.clone());
    all.push(Value::String(stderr.clone()));
    let mut texts = Vec::new();
    for value in &all {
        strings(value, &mut texts);
    }
    for text in &texts {
        assert!(
            !text.chars().any(|c| is_hazard(c) && c != '\n'),
            "a hazardous character reached the host: {text:?}"
        );
        assert!(!text.contains(TOKEN), "the token was sent: {text:?}");
    }
    let shown = texts.iter().filter(|text| text.contains(SHOWN)).count();
    assert!(shown >= 6, "the attack shows escaped ({shown} texts)");
    let desk = &schema["properties"]["desk"];
    assert_eq!(desk["oneOf"][1]["const"], "cold chain");
    assert!(message.contains(SHOWN), "{message}");
    drop(asked);
    agent.stop();
}

/// Starts `learnables mcp` for the agent at `url` with [`TOKEN`], connects
/// rmcp's client as `person`, and calls each of `calls`: what the command
/// sent (the tools it listed, then each call's result) and what it wrote on
/// standard error.
fn call_tools(url: &str, person: &Person, calls: &[(&str, Value)]) -> (Vec<Value>, String) {
    call_tools_as(url, TOKEN, person.clone(), calls)
}

/// [`call_tools`] with `token`, connected as `host` (a person's host, or
/// one that shows no forms).
pub(crate) fn call_tools_as<H: rmcp::ClientHandler>(
    url: &str,
    token: &str,
    host: H,
    calls: &[(&str, Value)],
) -> (Vec<Value>, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_learnables_command"))
            .args(["mcp", url])
            .env("LEARNABLES_TOKEN", token)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the command starts");
        let transport = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
        let client = host.serve(transport).await.expect("the handshake");
        let mut said = Vec::new();
        for tool in client.list_all_tools().await.unwrap() {
            said.push(serde_json::to_value(&tool).unwrap());
        }
        for (name, arguments) in calls {
            let request = CallToolRequestParams::new(name.to_string())
                .with_arguments(arguments.as_object().cloned().unwrap());
            let result = client.call_tool(request).await.unwrap();
            said.push(serde_json::to_value(&result).unwrap());
        }
        client.cancel().await.unwrap();
        let output = child.wait_with_output().await.unwrap();
        (said, String::from_utf8_lossy(&output.stderr).into_owned())
    })
}

/// A task waiting for input whose status message, with a teach block, is
/// the user's: not a question of the agent's.
fn task_asked_by_the_user(id: &Value) -> Value {
    json!({"id": id, "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {
        "messageId": "m1", "role": "ROLE_USER",
        "parts": [{"text": "Which desk? Answer: dangerous-goods"}],
        "extensions": [EXTENSION_URI],
        "metadata": {EXTENSION_URI: {"teach": {"collection": "rules", "entries": ["e"]}}}}}})
}

#[test]
fn a_question_is_read_from_the_agents_own_words_only() {
    let methods = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&methods);
    let agent = Agent::start_router(move |_| {
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                get(|| async { Json(card_with_a_clean_declaration()) }),
            )
            .route(
                "/",
                post(move |Json(request): Json<Value>| {
                    let seen = Arc::clone(&seen);
                    async move {
                        let method = request["method"].as_str().unwrap_or_default().to_owned();
                        seen.lock().unwrap().push(method.clone());
                        let result = match method.as_str() {
                            "GetTask" => task_asked_by_the_user(&request["params"]["id"]),
                            "rsaxb.learnables.Teacher" => json!({"teacher": "alice@example.com"}),
                            _ => json!({}),
                        };
                        Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
                    }
                }),
            )
    });
    let person = Person::default();
    person
        .answers
        .lock()
        .unwrap()
        .push(Some(json!({"desk": "general"})));
    let link = format!("{}learnables/#task=t1", agent.base_url);
    let (said, _) = call_tools(
        &agent.base_url,
        &person,
        &[("answer_question", json!({ "link": link }))],
    );
    let result = said.last().unwrap();
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("not the agent's own"), "{text}");
    assert!(person.asked.lock().unwrap().is_empty(), "no form was shown");
    assert_eq!(
        *methods.lock().unwrap(),
        ["rsaxb.learnables.Teacher", "GetTask"],
        "the token is checked, and nothing was taught"
    );
    agent.stop();
}
