//! The plain axum agent (`learnables_examples::plain_axum_agent`), over HTTP:
//! a host without the A2A server SDK pins each task's knowledge by hand,
//! re-pins only on the turn after a lesson answered its question, and keeps
//! every other task on the knowledge it started with.

use learnables::Knowledge;
use learnables::a2a::{Principal, Tokens};
use learnables_examples::plain_axum_agent;
use learnables_tests::support::agent::{ACTIVATED, Agent};
use serde_json::{Value, json};

fn agent() -> Agent {
    Agent::start_router(|_| {
        let teachers = Tokens::new().with("alice-token", Principal::human("alice@example.com"));
        plain_axum_agent::app(Knowledge::in_memory(), teachers).expect("the agent starts")
    })
}

fn send(agent: &Agent, text: &str, task: Option<&str>) -> Value {
    let mut message = json!({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": text}]});
    if let Some(task) = task {
        message["taskId"] = json!(task);
    }
    let reply = agent.call_with("SendMessage", json!({ "message": message }), &[ACTIVATED]);
    reply.result()["task"].clone()
}

fn teach(agent: &Agent, shop: &str, approver: &str) {
    let taught = agent.call(
        "rsaxb.learnables.Teach",
        json!({"collection": "refund_approvers", "entry": shop,
               "value": {"approver": approver}, "taughtBy": "alice@example.com"}),
    );
    assert_eq!(taught.result()["learned"], true, "{}", taught.result());
}

fn text(task: &Value) -> &str {
    task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn a_task_that_asked_is_answered_on_its_next_turn_after_the_lesson() {
    let agent = agent();
    let asked = send(&agent, "Who approves refunds at north?", None);
    assert_eq!(
        asked["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{asked}"
    );
    let block = &asked["status"]["message"]["metadata"][learnables::EXTENSION_URI]["teach"];
    assert_eq!(block["entries"], json!(["north"]), "{asked}");

    teach(&agent, "north", "Dana");
    let id = asked["id"].as_str().expect("a task id");
    let answered = send(&agent, "Have you learned it?", Some(id));
    assert_eq!(
        answered["status"]["state"], "TASK_STATE_COMPLETED",
        "{answered}"
    );
    assert_eq!(text(&answered), "Dana approves it.");
    agent.stop();
}

#[test]
fn a_running_task_keeps_the_knowledge_it_started_with() {
    let agent = agent();
    teach(&agent, "east", "Kim");
    let started = send(&agent, "Who approves refunds at east?", None);
    assert_eq!(text(&started), "Kim approves it.");

    teach(&agent, "east", "Noor");
    let id = started["id"].as_str().expect("a task id");
    let again = send(&agent, "And again?", Some(id));
    assert_eq!(
        text(&again),
        "Kim approves it.",
        "the task's pin does not change"
    );
    let new_task = send(&agent, "Who approves refunds at east?", None);
    assert_eq!(
        text(&new_task),
        "Noor approves it.",
        "a new task sees the lesson"
    );
    agent.stop();
}
