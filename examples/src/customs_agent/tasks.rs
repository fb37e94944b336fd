//! The customs agent's own A2A work: `SendMessage` and `GetTask` over
//! JSON-RPC, with each task pinned to the knowledge it started with. The
//! messages and tasks are the A2A v1.0 SDK's types.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use a2a::methods::{GET_TASK, SEND_MESSAGE};
use a2a::{GetTaskRequest, Message, Part, Role, SendMessageResponse, TaskState, TaskStatus};
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
    pinned: Snapshot,
    task: a2a::Task,
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
            SEND_MESSAGE => self.send_message(knowledge, activation, &request.params),
            GET_TASK => self.get_task(&request.params),
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
        if !params.get("id").is_some_and(Value::is_string) {
            return Err(RpcError::invalid_params(
                "id",
                "GetTask needs the task's `id`",
            ));
        }
        let request: GetTaskRequest = serde_json::from_value(params.clone()).map_err(|error| {
            RpcError::new(
                codes::INVALID_PARAMS,
                format!("the params are not an A2A v1.0 GetTaskRequest: {error}"),
            )
        })?;
        let mut task = self
            .lock()
            .get(&request.id)
            .map(|task| task.task.clone())
            .ok_or_else(|| no_task(&request.id))?;
        // `historyLength` keeps the most recent messages only.
        if let (Some(length), Some(history)) = (request.history_length, &mut task.history) {
            let keep = usize::try_from(length).unwrap_or(0);
            history.drain(..history.len().saturating_sub(keep));
        }
        serde_json::to_value(task).map_err(internal)
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
        let message: Message = serde_json::from_value(message.clone()).map_err(|error| {
            RpcError::invalid_params(
                "message",
                format!("the `message` is not an A2A v1.0 Message: {error}"),
            )
        })?;
        let text: String = message
            .parts
            .iter()
            .filter_map(Part::as_text)
            .collect::<Vec<_>>()
            .join(" ");
        let mut tasks = self.lock();
        // A message on an existing task is read against the knowledge that
        // task pinned when it started; a new task pins the knowledge now.
        let (task_id, context_id, pinned, mut history) = match &message.task_id {
            Some(id) => {
                let task = tasks.get(id).ok_or_else(|| no_task(id))?;
                (
                    id.clone(),
                    task.task.context_id.clone(),
                    task.pinned.clone(),
                    task.task.history.clone().unwrap_or_default(),
                )
            }
            None => (
                a2a::new_task_id(),
                message
                    .context_id
                    .clone()
                    .unwrap_or_else(a2a::new_context_id),
                knowledge.pin(),
                Vec::new(),
            ),
        };
        let reply = route(&pinned, &text, activation);
        let state = if reply.block.is_some() || reply.asks {
            TaskState::InputRequired
        } else {
            TaskState::Completed
        };
        let mut answer = Message::new(Role::Agent, vec![Part::text(reply.text)]);
        answer.context_id = Some(context_id.clone());
        answer.task_id = Some(task_id.clone());
        if let Some(block) = &reply.block {
            block.attach_to_message(&mut answer).map_err(internal)?;
        }
        history.push(message);
        history.push(answer.clone());
        let task = a2a::Task {
            id: task_id.clone(),
            context_id,
            status: TaskStatus {
                state,
                message: Some(answer),
                timestamp: None,
            },
            artifacts: None,
            history: Some(history),
            metadata: Some(HashMap::from([(
                POSITION_KEY.to_owned(),
                json!(pinned.position()),
            )])),
        };
        let result =
            serde_json::to_value(SendMessageResponse::Task(task.clone())).map_err(internal)?;
        tasks.insert(task_id, Task { pinned, task });
        Ok(result)
    }
}

fn no_task(id: &str) -> RpcError {
    RpcError::new(
        a2a::error_code::TASK_NOT_FOUND.into(),
        format!("no task has the id `{id}`"),
    )
}

fn internal(error: impl std::fmt::Display) -> RpcError {
    RpcError::new(codes::INTERNAL_ERROR, error.to_string())
}

/// The agent's answer to a message's text.
struct Reply {
    text: String,
    block: Option<TeachBlock>,
    asks: bool,
}

/// Routes the declaration a message describes, by the pinned knowledge.
fn route(pinned: &Snapshot, text: &str, activation: &Activation) -> Reply {
    let Some(chapter) = hs_chapter(text).and_then(|number| crate::Chapter::try_from(number).ok())
    else {
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
