//! The customs agent's own A2A work: `SendMessage` and `GetTask` over
//! JSON-RPC, with each task pinned to the knowledge it started with.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use learnables::a2a::Activation;
use learnables::a2a::json_rpc::{self, RpcError, codes};
use learnables::{Knowledge, Snapshot, TeachBlock};
use serde_json::{Value, json};

use crate::RoutingRule;

/// Where the agent keeps a task's pinned position in its metadata.
pub const POSITION_KEY: &str = "customsAgent/knowledgePosition";

/// The tasks the agent is working on, each with its pinned snapshot.
#[derive(Clone, Default)]
pub struct Tasks {
    tasks: Arc<Mutex<HashMap<String, Task>>>,
}

struct Task {
    context_id: String,
    pinned: Snapshot,
    json: Value,
}

impl Tasks {
    /// Answers a JSON-RPC request body for the agent's own methods.
    pub fn answer(&self, knowledge: &Knowledge, activation: &Activation, body: &[u8]) -> Value {
        let request = match json_rpc::read_request(body, Default::default()) {
            Ok(request) => request,
            Err(error) => return json_rpc::failure(json_rpc::best_effort_id(body), error),
        };
        let id = request.id.clone().unwrap_or(Value::Null);
        let outcome = match request.method.as_str() {
            "SendMessage" => self.send_message(knowledge, activation, &request.params),
            "GetTask" => self.get_task(&request.params),
            other => Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!(
                    "there is no method `{}`; this agent answers SendMessage, GetTask, \
                     rsaxb.learnables.Teach and rsaxb.learnables.ShowBack",
                    other.chars().take(80).collect::<String>()
                ),
            )),
        };
        match outcome {
            Ok(result) => json_rpc::success(id, result),
            Err(error) => json_rpc::failure(id, error),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Task>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn get_task(&self, params: &Value) -> Result<Value, RpcError> {
        let id = params
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid_params("id", "GetTask needs the task's `id`"))?;
        self.lock()
            .get(id)
            .map(|task| json!(task.json))
            .ok_or_else(|| RpcError::new(-32001, format!("no task has the id `{id}`")))
    }

    fn send_message(
        &self,
        knowledge: &Knowledge,
        activation: &Activation,
        params: &Value,
    ) -> Result<Value, RpcError> {
        let message = params
            .get("message")
            .filter(|message| message.is_object())
            .ok_or_else(|| RpcError::invalid_params("message", "SendMessage needs a `message`"))?;
        let text: String = message
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let task_id = message.get("taskId").and_then(Value::as_str);
        let mut tasks = self.lock();
        // A message on an existing task is read against the knowledge that
        // task pinned when it started; a new task pins the knowledge now.
        let (task_id, context_id, pinned) = match task_id {
            Some(id) => {
                let task = tasks
                    .get(id)
                    .ok_or_else(|| RpcError::new(-32001, format!("no task has the id `{id}`")))?;
                (id.to_owned(), task.context_id.clone(), task.pinned.clone())
            }
            None => (
                new_id(),
                message
                    .get("contextId")
                    .and_then(Value::as_str)
                    .map_or_else(new_id, str::to_owned),
                knowledge.pin(),
            ),
        };
        let reply = route(&pinned, &text, activation);
        let state = if reply.block.is_some() || reply.asks {
            "TASK_STATE_INPUT_REQUIRED"
        } else {
            "TASK_STATE_COMPLETED"
        };
        let mut answer = json!({
            "messageId": new_id(),
            "contextId": context_id,
            "taskId": task_id,
            "role": "ROLE_AGENT",
            "parts": [{"text": reply.text}],
        });
        if let Some(block) = &reply.block {
            block
                .attach_to(&mut answer)
                .map_err(|error| RpcError::new(codes::INTERNAL_ERROR, error.to_string()))?;
        }
        let mut history = tasks
            .get(&task_id)
            .and_then(|task| task.json.get("history").cloned())
            .and_then(|history| history.as_array().cloned())
            .unwrap_or_default();
        history.push(message.clone());
        history.push(answer.clone());
        let task = json!({
            "id": task_id,
            "contextId": context_id,
            "status": {"state": state, "message": answer},
            "history": history,
            "metadata": {POSITION_KEY: pinned.position()},
        });
        tasks.insert(
            task_id,
            Task {
                context_id,
                pinned,
                json: task.clone(),
            },
        );
        Ok(json!({ "task": task }))
    }
}

/// The agent's answer to a message's text.
struct Reply {
    text: String,
    block: Option<TeachBlock>,
    asks: bool,
}

/// Routes the declaration a message describes, by the pinned knowledge.
fn route(pinned: &Snapshot, text: &str, activation: &Activation) -> Reply {
    let Some(chapter) = hs_chapter(text) else {
        return Reply {
            text: "Which HS chapter is the declaration for? Say, for example, \"Route a \
                   declaration for HS chapter 85\"."
                .into(),
            block: None,
            asks: true,
        };
    };
    let entry = chapter.to_string();
    if let Some(rule) = pinned.get::<RoutingRule>(&entry) {
        let mut text = format!(
            "Chapter {chapter} declarations go to the {} desk.",
            rule.desk
        );
        if let Some(note) = rule.note {
            text.push_str(&format!(" Note for the broker: {note}"));
        }
        return Reply {
            text,
            block: None,
            asks: false,
        };
    }
    let question = format!(
        "I have no routing rule for HS chapter {chapter}. Which desk handles these declarations?"
    );
    let block = activation.learnables().then(|| {
        TeachBlock::builder::<RoutingRule>([entry.as_str()])
            .suggest(RoutingRule::FIELDS.chapter, chapter)
            .suggest(RoutingRule::FIELDS.desk, crate::Desk::General)
            .suggestion_label("Unmatched chapters go to the general desk today")
            .with_lesson_fields()
            .build()
    });
    Reply {
        text: question,
        block,
        asks: true,
    }
}

/// The HS chapter a text names: the number after the word "chapter".
fn hs_chapter(text: &str) -> Option<u8> {
    let lower = text.to_lowercase();
    let after = &lower[lower.find("chapter")? + "chapter".len()..];
    let digits: String = after
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .ok()
        .filter(|chapter| (1..=99).contains(chapter))
}

fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

#[cfg(test)]
mod tests {
    use super::hs_chapter;

    #[test]
    fn chapters_are_read_from_text() {
        assert_eq!(
            hs_chapter("Route a declaration for HS chapter 85"),
            Some(85)
        );
        assert_eq!(hs_chapter("CHAPTER 7, please"), Some(7));
        assert_eq!(hs_chapter("chapter 100"), None);
        assert_eq!(hs_chapter("chapter x"), None);
        assert_eq!(hs_chapter("no number"), None);
    }
}
