//! The model agent over HTTP on 127.0.0.1, its model a local
//! chat-completions server with scripted replies: the model asks a person
//! through the ask tool, a suggestion the learnable refuses is answered
//! field by field and corrected, the question carries its teach block, a
//! lesson resumes the task and the resumed turn's prompt holds the new
//! line, while a task pinned before the lesson does not see it.

use std::sync::Arc;

use learnables::a2a::{ASK_TOOL_NAME, AskTool, MODEL_SUGGESTION_LABEL};
use learnables::{Knowledge, TeachBlock};
use learnables_examples::customs_agent::{self, BoundedTaskStore};
use learnables_examples::model_agent::{self, ModelConfig, OpenAiChat};
use learnables_examples::{ClearanceLimit, RoutingRule};
use learnables_tests::support::agent::{ACTIVATED, Agent, teachers};
use learnables_tests::support::chat_server::{ChatServer, text, tool_call};
use serde_json::{Value, json};

const NEW_LINE: &str = "- Chapter 85 declarations now go to the cold chain desk";

fn ask(id: &str, chapter: &str, suggestion: Value) -> Value {
    tool_call(
        id,
        ASK_TOOL_NAME,
        &json!({
            "learnable": "routing_rules",
            "entries": [chapter],
            "question": format!("Which desk handles declarations of HS chapter {chapter}?"),
            "suggestion": suggestion,
        }),
    )
}

fn model_agent(chat: &ChatServer) -> Agent {
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    let config = ModelConfig {
        base_url: chat.base_url.clone(),
        api_key: "test-key".into(),
        model: "scripted".into(),
    };
    Agent::start_router(move |base_url| {
        let model = Arc::new(OpenAiChat::new(&config).unwrap());
        model_agent::router(
            knowledge,
            &teachers(),
            base_url,
            BoundedTaskStore::default(),
            model,
        )
        .unwrap()
    })
}

fn system_prompt(request: &Value) -> &str {
    request["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
}

fn status_text(task: &Value) -> &str {
    task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn the_model_asks_is_corrected_is_taught_and_only_the_task_that_asked_sees_the_lesson() {
    let chat = ChatServer::start([
        // Task A, chapter 85: a desk that is no choice, then a corrected one.
        ask("c1", "85", json!({"desk": "urgent", "note": null})),
        ask("c2", "85", json!({"desk": "cold chain", "note": null})),
        // Task B, chapter 84: asks too, and waits.
        ask("c3", "84", Value::Null),
        // Task A, resumed by the lesson.
        text("Chapter 85 declarations go to the cold chain desk."),
        // Task B, asked again after the lesson.
        text("I still have no rule for chapter 84."),
    ]);
    let agent = model_agent(&chat);

    let task_a = agent.route(85, None, &[ACTIVATED]);
    assert_eq!(
        task_a["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task_a}"
    );
    let a = task_a["id"].as_str().unwrap().to_owned();
    assert!(status_text(&task_a).starts_with("Which desk handles declarations of HS chapter 85?"));
    let block = TeachBlock::from_message(&task_a["status"]["message"])
        .unwrap()
        .expect("the question carries a teach block");
    assert_eq!(block.collection, "routing_rules");
    assert_eq!(block.entries, ["85"]);
    assert_eq!(
        block.suggested.unwrap(),
        *json!({"desk": "cold chain"}).as_object().unwrap()
    );
    assert_eq!(
        block.suggestion_label.as_deref(),
        Some(MODEL_SUGGESTION_LABEL)
    );
    assert_eq!(
        block.lesson_fields.as_deref(),
        Some(&<RoutingRule as learnables::Learnable>::descriptor().lesson_fields[..])
    );

    let requests = chat.requests();
    // The model was given the ask tool, its schema the library's.
    let tool = &requests[0]["tools"][0]["function"];
    assert_eq!(tool["name"], ASK_TOOL_NAME);
    assert_eq!(
        tool["parameters"],
        AskTool::new()
            .learnable::<RoutingRule>()
            .learnable::<ClearanceLimit>()
            .input_schema()
    );
    assert!(system_prompt(&requests[0]).contains("\n<knowledge>\n"));
    assert!(!system_prompt(&requests[0]).contains(NEW_LINE));
    assert_eq!(
        requests[0]["messages"][1]["content"],
        "Route a declaration for HS chapter 85"
    );
    // The refused suggestion was answered to the model, field by field.
    let answered = requests[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "tool")
        .expect("the tool's answer to the refused call");
    assert_eq!(answered["tool_call_id"], "c1");
    let said = answered["content"].as_str().unwrap();
    assert!(said.starts_with("The question was not asked."), "{said}");
    assert!(
        said.contains("suggestion.desk: Desk: \"urgent\" is not one of the choices (general, dangerous-goods, cold chain)"),
        "{said}"
    );

    let task_b = agent.route(84, None, &[ACTIVATED]);
    assert_eq!(
        task_b["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task_b}"
    );
    let b = task_b["id"].as_str().unwrap().to_owned();

    let taught = agent.teach_rule(85, "cold chain");
    assert_eq!(taught.result()["learned"], true, "{}", taught.result());

    // The lesson resumed task A: its turn's prompt holds the new line.
    let task_a = agent
        .call_with("GetTask", json!({"id": a}), &[ACTIVATED])
        .result()
        .clone();
    assert_eq!(
        task_a["status"]["state"], "TASK_STATE_COMPLETED",
        "{task_a}"
    );
    assert_eq!(
        status_text(&task_a),
        "Chapter 85 declarations go to the cold chain desk."
    );
    let requests = chat.requests();
    assert_eq!(requests.len(), 4);
    assert!(
        system_prompt(&requests[3]).contains(NEW_LINE),
        "{}",
        system_prompt(&requests[3])
    );
    // ... and decides the request the question was about.
    assert_eq!(
        requests[3]["messages"][1]["content"],
        "Route a declaration for HS chapter 85"
    );

    // Task B, pinned before the lesson and waiting on another question,
    // does not see it.
    let task_b = agent.route(84, Some(&b), &[ACTIVATED]);
    assert_eq!(
        task_b["status"]["state"], "TASK_STATE_COMPLETED",
        "{task_b}"
    );
    let requests = chat.requests();
    assert_eq!(requests.len(), 5);
    assert!(
        !system_prompt(&requests[4]).contains(NEW_LINE),
        "{}",
        system_prompt(&requests[4])
    );
    assert_eq!(chat.replies_left(), 0);
    assert!(
        chat.authorizations()
            .iter()
            .all(|header| header == "Bearer test-key")
    );
}
