//! The model agent's A2A work, as an `AgentExecutor` of the official A2A
//! server SDK: each turn gives the model the task's pinned knowledge in
//! its prompt and the ask tool; the model answers, or asks a person,
//! whose lesson resumes the task with knowledge that holds it.

use std::sync::Arc;

use a2a::{A2AError, StreamResponse, Task, TaskState};
use a2a_server::{AgentExecutor, ExecutorContext};
use futures::stream::{self, BoxStream};
use learnables::Knowledge;
use learnables::a2a::{ASK_TOOL_NAME, AskTool, TaskPin};
use learnables::untrusted::Untrusted;
use serde_json::{Value, json};

use super::chat_model::{ChatModel, ModelReply};
use crate::customs_agent::tasks::{asked_request, reply_message, text_of, turn_task};
use crate::{ClearanceLimit, RoutingRule};

/// The most rounds of tool calls in one turn: a model that keeps calling
/// with arguments that do not fit stops there.
pub const MAX_ROUNDS: usize = 4;

/// The most characters of the person's request the model reads.
const MAX_REQUEST_CHARS: usize = 4000;

/// What the model is told before the knowledge.
const INSTRUCTIONS: &str = "You are a customs agent: you route customs declarations to the desk \
    that handles them, and say how much a broker may clear alone. Decide only by the knowledge \
    below. When it has no rule for what you are asked (an HS chapter without a routing rule, a \
    broker without a limit), do not guess: call the ask_a_person tool, naming the learnable and \
    the entries, with the value you would suggest if you have one. Answer in one or two \
    sentences.";

/// The agent's executor: the model decides, from the pinned knowledge.
#[derive(Clone)]
pub struct ModelExecutor {
    knowledge: Knowledge,
    model: Arc<dyn ChatModel>,
    tool: AskTool,
    teaching_page: Option<String>,
}

impl ModelExecutor {
    /// The executor over `knowledge`, asking `model`; its questions link to
    /// the teacher's page at `page_url`.
    pub fn new(knowledge: Knowledge, model: Arc<dyn ChatModel>, page_url: String) -> ModelExecutor {
        ModelExecutor {
            knowledge,
            model,
            tool: AskTool::new()
                .learnable::<RoutingRule>()
                .learnable::<ClearanceLimit>(),
            teaching_page: Some(page_url),
        }
    }

    /// The ask tool as the chat-completions API takes it.
    fn tools(&self) -> Vec<Value> {
        vec![json!({
            "type": "function",
            "function": {
                "name": self.tool.name(),
                "description": self.tool.description(),
                "parameters": self.tool.input_schema(),
                "strict": true,
            }
        })]
    }

    async fn answer(&self, context: ExecutorContext) -> Result<Task, A2AError> {
        let pinned = TaskPin::of(&self.knowledge, &context);
        // A turn the lesson it asked for resumes decides the request the
        // question was about, not the words of the lesson's message.
        let request = pinned
            .answered_by()
            .and(context.stored_task.as_ref())
            .and_then(asked_request);
        let text = text_of(request.or(context.message.as_ref()));
        let system = format!("{INSTRUCTIONS}\n\n{}", pinned.prompt_knowledge().render());
        let mut messages = vec![
            json!({"role": "system", "content": system}),
            json!({"role": "user", "content": Untrusted::new(&text).multi_line().max_chars(MAX_REQUEST_CHARS).to_string()}),
        ];
        let tools = self.tools();
        for _ in 0..MAX_ROUNDS {
            let reply = match self.model.complete(&messages, &tools).await {
                Ok(reply) => reply,
                Err(error) => {
                    tracing::warn!(%error, "the model gave no reply");
                    let said = reply_message(
                        &context,
                        "The agent's model could not be reached; try again later.".into(),
                    );
                    return Ok(turn_task(&context, &pinned, said, TaskState::Failed));
                }
            };
            let calls = match reply {
                ModelReply::Text(text) => {
                    let said = reply_message(&context, text);
                    return Ok(turn_task(&context, &pinned, said, TaskState::Completed));
                }
                ModelReply::ToolCalls(calls) => calls,
            };
            messages.push(json!({
                "role": "assistant",
                "content": null,
                "tool_calls": calls.iter().map(|call| json!({
                    "id": call.id, "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments}
                })).collect::<Vec<_>>()
            }));
            for call in &calls {
                let result = if call.name != ASK_TOOL_NAME {
                    format!(
                        "There is no tool named {:?}; the one tool is {ASK_TOOL_NAME}.",
                        Untrusted::new(&call.name).max_chars(64).to_string()
                    )
                } else {
                    match self.tool.call(&call.arguments) {
                        Ok(asked) => {
                            let mut question = asked.question.clone();
                            if let Some(page) = &self.teaching_page {
                                let link = learnables::a2a::teaching_page::task_link(
                                    page,
                                    &context.task_id,
                                );
                                question.push_str(&format!(" Teach me on {link}"));
                            }
                            let mut said = reply_message(&context, question);
                            // Attached only when the request activated Learnables.
                            asked
                                .attach_if_activated(&context, &mut said)
                                .map_err(|error| A2AError::internal(error.to_string()))?;
                            return Ok(turn_task(
                                &context,
                                &pinned,
                                said,
                                TaskState::InputRequired,
                            ));
                        }
                        Err(refused) => refused.to_string(),
                    }
                };
                messages.push(json!({"role": "tool", "tool_call_id": call.id, "content": result}));
            }
        }
        let said = reply_message(
            &context,
            "The agent's model did not settle on an answer; ask again in other words.".into(),
        );
        Ok(turn_task(&context, &pinned, said, TaskState::Failed))
    }
}

impl AgentExecutor for ModelExecutor {
    fn execute(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let executor = self.clone();
        Box::pin(stream::once(async move {
            executor.answer(context).await.map(StreamResponse::Task)
        }))
    }

    fn cancel(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let said = reply_message(&context, "Canceled.".into());
        let pinned = TaskPin::of(&self.knowledge, &context);
        let task = turn_task(&context, &pinned, said, TaskState::Canceled);
        Box::pin(stream::once(async move { Ok(StreamResponse::Task(task)) }))
    }
}
