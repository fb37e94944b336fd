//! A learning agent on a plain axum JSON-RPC app, without the A2A server SDK:
//! the per-task pinning that `TaskPin` does for SDK agents, by hand.
//!
//! Each task pins the knowledge when it starts and keeps the pin's position;
//! every later turn reads `knowledge.pin_at(position)`, except the turn after a
//! lesson taught the entry the task's question asked about: that turn re-pins,
//! the one place a task's knowledge changes. Run it with
//! `cargo run --example plain_axum_agent -- 127.0.0.1:8080`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderName};
use axum::routing::post;
use learnables::a2a::{Activation, LearnablesLayer, LearnablesService, Tokens};
use learnables::{Declaration, Knowledge, TEACH_METHOD, TeachBlock};
use serde_json::{Value, json};

use crate::refunds_agent::RefundApprover;

/// What the agent keeps of a task: where its knowledge is pinned, the shop
/// it is about, and whether it waits on a question (input-required).
struct TaskState {
    position: u64,
    shop: String,
    asked: bool,
}

#[derive(Clone)]
struct Agent {
    knowledge: Knowledge,
    tasks: Arc<Mutex<HashMap<String, TaskState>>>,
}

/// The agent: its JSON-RPC endpoint at `/` with the learnables layer in front,
/// which answers the learnables methods and passes `SendMessage` on.
///
/// ```
/// use learnables::Knowledge;
/// use learnables::a2a::Tokens;
/// let app = learnables_examples::plain_axum_agent::app(Knowledge::in_memory(), Tokens::new());
/// assert!(app.is_ok());
/// ```
pub fn app(knowledge: Knowledge, teachers: Tokens) -> Result<Router, learnables::KnowledgeError> {
    let declaration = Declaration::new()
        .learnable::<RefundApprover>()
        .teach_method(TEACH_METHOD);
    let learnables = LearnablesService::try_new(knowledge.clone(), declaration, teachers)?;
    let agent = Agent {
        knowledge,
        tasks: Arc::default(),
    };
    Ok(Router::new()
        .route("/", post(send_message))
        .with_state(agent)
        .layer(LearnablesLayer::new(learnables)))
}

/// `SendMessage`: `{"message": {"taskId"?, "parts": [{"text"}]}}`, the shop named
/// by the text's last word on a task's first turn.
async fn send_message(
    State(agent): State<Agent>,
    headers: HeaderMap,
    body: String,
) -> ([(HeaderName, &'static str); 1], String) {
    let json = [(CONTENT_TYPE, "application/json")];
    let request: Value = serde_json::from_str(&body).unwrap_or_default();
    if request["method"] != "SendMessage" {
        let error = json!({"code": -32601, "message": "this agent answers SendMessage only"});
        return (
            json,
            json!({"jsonrpc": "2.0", "id": request["id"], "error": error}).to_string(),
        );
    }
    let message = &request["params"]["message"];
    let mut tasks = agent
        .tasks
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let task_id = match message["taskId"].as_str() {
        Some(id) if tasks.contains_key(id) => id.to_owned(),
        _ => {
            let text = message["parts"][0]["text"].as_str().unwrap_or_default();
            let shop = text.split_whitespace().last().unwrap_or_default();
            let shop = shop
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            // A task's first turn pins the knowledge as it is now.
            let position = agent.knowledge.pin().position();
            let id = format!("task-{}", tasks.len() + 1);
            tasks.insert(
                id.clone(),
                TaskState {
                    position,
                    shop,
                    asked: false,
                },
            );
            id
        }
    };
    let task = tasks
        .get_mut(&task_id)
        .expect("the task was just found or made");
    // Every turn reads the task's pin, unless a lesson since answered its question.
    let now = agent.knowledge.pin();
    let answered = now
        .entry_record("refund_approvers", &task.shop)
        .is_some_and(|record| task.asked && record.position > task.position);
    let pin = if answered {
        task.position = now.position();
        now
    } else {
        agent.knowledge.pin_at(task.position)
    };
    let (text, state) = match pin.get::<RefundApprover>(&task.shop) {
        Some(rule) => (
            format!("{} approves it.", rule.approver),
            "TASK_STATE_COMPLETED",
        ),
        None => (
            format!("Who approves refunds at {}?", task.shop),
            "TASK_STATE_INPUT_REQUIRED",
        ),
    };
    task.asked = state == "TASK_STATE_INPUT_REQUIRED";
    let mut reply = json!({"messageId": format!("{task_id}-reply"), "role": "ROLE_AGENT",
        "parts": [{"text": text}]});
    // The question's teach block, only for a client that activated Learnables.
    if state == "TASK_STATE_INPUT_REQUIRED" && Activation::from_headers(&headers).learnables() {
        let _ = TeachBlock::new("refund_approvers", [task.shop.as_str()]).attach_to(&mut reply);
    }
    let task = json!({"id": task_id, "contextId": task_id,
        "status": {"state": state, "message": reply}});
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"task": task}});
    (json, answer.to_string())
}
