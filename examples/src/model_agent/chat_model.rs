//! The model the agent asks, behind a small trait ([`ChatModel`]): one
//! chat-completions turn, with tools. [`OpenAiChat`] is it over any
//! OpenAI-compatible server through `async-openai`, its requests and
//! replies as JSON.

use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use serde_json::{Value, json};

/// How long one chat-completions request may take.
pub const MODEL_TIMEOUT: Duration = Duration::from_secs(60);

/// What the model answered one turn with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelReply {
    /// A text for the person who asked.
    Text(String),
    /// Calls of the tools it was given.
    ToolCalls(Vec<ToolCall>),
}

/// One tool call of the model's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The call's id, which its result names.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Its arguments, as the JSON text the model wrote.
    pub arguments: String,
}

/// Why the model gave no reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError(pub String);

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the model gave no reply: {}", self.0)
    }
}

impl std::error::Error for ModelError {}

/// A chat-completions model: `messages` in the API's form
/// (`{"role", "content", ...}`), `tools` as function tools.
#[async_trait::async_trait]
pub trait ChatModel: Send + Sync + 'static {
    /// One turn: the model's reply to `messages`, which may call `tools`.
    async fn complete(&self, messages: &[Value], tools: &[Value])
    -> Result<ModelReply, ModelError>;
}

/// Where the model is: what `OPENAI_BASE_URL`, `OPENAI_API_KEY` and
/// `OPENAI_MODEL` say. Its `Debug` never shows the key.
#[derive(Clone, PartialEq, Eq)]
pub struct ModelConfig {
    /// The API's base URL, such as `https://api.openai.com/v1`.
    pub base_url: String,
    /// The API key (empty for a local server that takes none).
    pub api_key: String,
    /// The model's name.
    pub model: String,
}

impl std::fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .field("model", &self.model)
            .finish()
    }
}

impl ModelConfig {
    /// The model the environment names: `OPENAI_BASE_URL` (default
    /// `https://api.openai.com/v1`), `OPENAI_API_KEY` (default none),
    /// `OPENAI_MODEL` (default `gpt-4o-mini`).
    ///
    /// ```
    /// let config = learnables_examples::model_agent::ModelConfig::from_env();
    /// assert!(!format!("{config:?}").contains(&config.api_key) || config.api_key.is_empty());
    /// ```
    pub fn from_env() -> ModelConfig {
        let variable = |name: &str, default: &str| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.trim().is_empty())
                .unwrap_or_else(|| default.to_owned())
        };
        ModelConfig {
            base_url: variable("OPENAI_BASE_URL", "https://api.openai.com/v1"),
            api_key: variable("OPENAI_API_KEY", ""),
            model: variable("OPENAI_MODEL", "gpt-4o-mini"),
        }
    }
}

/// [`ChatModel`] over an OpenAI-compatible chat-completions API.
#[derive(Debug, Clone)]
pub struct OpenAiChat {
    client: Client<OpenAIConfig>,
    model: String,
}

impl OpenAiChat {
    /// The client `config` says, each request bounded by [`MODEL_TIMEOUT`].
    pub fn new(config: &ModelConfig) -> Result<OpenAiChat, ModelError> {
        crate::install_crypto_provider();
        let http = reqwest::Client::builder()
            .timeout(MODEL_TIMEOUT)
            .build()
            .map_err(|error| ModelError(error.to_string()))?;
        let api = OpenAIConfig::new()
            .with_api_base(config.base_url.trim_end_matches('/'))
            .with_api_key(config.api_key.clone());
        Ok(OpenAiChat {
            client: Client::with_config(api).with_http_client(http),
            model: config.model.clone(),
        })
    }
}

#[async_trait::async_trait]
impl ChatModel for OpenAiChat {
    async fn complete(
        &self,
        messages: &[Value],
        tools: &[Value],
    ) -> Result<ModelReply, ModelError> {
        let request = json!({
            "model": self.model,
            "messages": messages,
            "tools": tools,
            "stream": false,
        });
        let reply: Value =
            tokio::time::timeout(MODEL_TIMEOUT, self.client.chat().create_byot(request))
                .await
                .map_err(|_| ModelError(format!("no reply within {} s", MODEL_TIMEOUT.as_secs())))?
                .map_err(|error| ModelError(error.to_string()))?;
        read_reply(&reply)
    }
}

/// The first choice of a chat-completions reply.
fn read_reply(reply: &Value) -> Result<ModelReply, ModelError> {
    let message = &reply["choices"][0]["message"];
    if let Some(calls) = message["tool_calls"]
        .as_array()
        .filter(|calls| !calls.is_empty())
    {
        let calls = calls
            .iter()
            .map(|call| ToolCall {
                id: call["id"].as_str().unwrap_or_default().to_owned(),
                name: call["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                arguments: call["function"]["arguments"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            })
            .collect();
        return Ok(ModelReply::ToolCalls(calls));
    }
    match message["content"].as_str() {
        Some(text) => Ok(ModelReply::Text(text.to_owned())),
        None => Err(ModelError(
            "the reply has neither a text nor a tool call".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_its_tool_calls_or_its_text() {
        let calls = json!({"choices": [{"message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function",
                            "function": {"name": "ask_a_person", "arguments": "{}"}}]}}]});
        assert_eq!(
            read_reply(&calls),
            Ok(ModelReply::ToolCalls(vec![ToolCall {
                id: "c1".into(),
                name: "ask_a_person".into(),
                arguments: "{}".into()
            }]))
        );
        let text = json!({"choices": [{"message": {"role": "assistant", "content": "Desk 3"}}]});
        assert_eq!(read_reply(&text), Ok(ModelReply::Text("Desk 3".into())));
        assert!(read_reply(&json!({})).is_err());
    }
}
