//! The model agent: the customs agent's knowledge (its routing rules and
//! clearance limits) and command line, on the official A2A server SDK,
//! its decisions a model's (`decidedBy: "model"` in spirit: the model
//! reads the rules in its prompt). Each turn's prompt carries the task's
//! pinned knowledge ([`Snapshot::prompt_knowledge`](learnables::Snapshot::prompt_knowledge));
//! the model may call the ask tool ([`learnables::a2a::AskTool`]), whose
//! call becomes the task's input-required question with a teach block,
//! its suggestion checked by value; a lesson resumes the task, and the
//! resumed turn's prompt holds it.
//!
//! `cargo run --example model_agent -- --addr 127.0.0.1:8080 --data ./model-data`, with
//! `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `OPENAI_MODEL` naming the model.

mod chat_model;
mod executor;

use std::sync::Arc;

use a2a_server::HttpPushSender;
use axum::Router;
use learnables::Knowledge;

pub use chat_model::{
    ChatModel, MODEL_TIMEOUT, ModelConfig, ModelError, ModelReply, OpenAiChat, ToolCall,
};
pub use executor::{MAX_ROUNDS, ModelExecutor};

use crate::customs_agent::{BoundedTaskStore, RouterError, Teacher};

/// The model agent's router for an agent reachable at `base_url`: the
/// customs agent's ([`crate::customs_agent::router_over`]) with the
/// model's executor.
pub fn router(
    knowledge: Knowledge,
    teachers: &[Teacher],
    base_url: &str,
    task_store: BoundedTaskStore,
    model: Arc<dyn ChatModel>,
) -> Result<Router, RouterError> {
    crate::install_crypto_provider();
    crate::customs_agent::router_over(
        knowledge,
        teachers,
        base_url,
        task_store,
        HttpPushSender::new(None),
        |knowledge, page_url| ModelExecutor::new(knowledge, model, page_url),
    )
}

/// What `examples/model_agent.rs` runs: the customs agent's command line,
/// the model from the environment ([`ModelConfig::from_env`]).
pub fn main() {
    let config = ModelConfig::from_env();
    let model: Arc<dyn ChatModel> = match OpenAiChat::new(&config) {
        Ok(model) => Arc::new(model),
        Err(error) => {
            eprintln!("model_agent: {error}");
            std::process::exit(1);
        }
    };
    crate::customs_agent::command_line::main_as(
        "model_agent",
        "Routes customs declarations as a model decides from what the agent has been taught, \
         and lets the model ask a person (with a Learnables teach block) when it has no rule.",
        move |knowledge, teachers, base_url, task_store| {
            router(knowledge, teachers, base_url, task_store, model)
        },
    );
}
