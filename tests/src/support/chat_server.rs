//! A local server that speaks the chat-completions protocol
//! (`POST /chat/completions`) on 127.0.0.1, answering with scripted
//! replies, one a request, in order, and keeping every request it was
//! sent: the only scripted part of a model agent's test.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

#[derive(Default)]
struct Script {
    replies: VecDeque<Value>,
    requests: Vec<Value>,
    authorizations: Vec<String>,
}

/// The running server; stopped when dropped.
pub struct ChatServer {
    /// `http://127.0.0.1:PORT/v1`: what `OPENAI_BASE_URL` names.
    pub base_url: String,
    script: Arc<Mutex<Script>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// A scripted assistant message that calls `tool` with `arguments`.
pub fn tool_call(id: &str, tool: &str, arguments: &Value) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": id, "type": "function",
        "function": {"name": tool, "arguments": arguments.to_string()}
    }]})
}

/// A scripted assistant message that says `text`.
pub fn text(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

impl ChatServer {
    /// Starts the server on a free port; it answers with `replies` (the
    /// assistant messages), in order, and with an error once they run out.
    pub fn start(replies: impl IntoIterator<Item = Value>) -> ChatServer {
        let script = Arc::new(Mutex::new(Script {
            replies: replies.into_iter().collect(),
            ..Script::default()
        }));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (bound, address) = std::sync::mpsc::channel();
        let shared = script.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                bound.send(listener.local_addr().unwrap()).unwrap();
                let app = Router::new()
                    .route("/v1/chat/completions", post(complete))
                    .with_state(shared);
                axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await
                    .unwrap();
            });
        });
        let address: std::net::SocketAddr = address.recv().expect("the server binds");
        ChatServer {
            base_url: format!("http://{address}/v1"),
            script,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Every request body it was sent, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.script.lock().unwrap().requests.clone()
    }

    /// The `Authorization` header of every request, in order.
    pub fn authorizations(&self) -> Vec<String> {
        self.script.lock().unwrap().authorizations.clone()
    }

    /// How many scripted replies are left.
    pub fn replies_left(&self) -> usize {
        self.script.lock().unwrap().replies.len()
    }
}

impl Drop for ChatServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn complete(
    State(script): State<Arc<Mutex<Script>>>,
    headers: axum::http::HeaderMap,
    Json(request): Json<Value>,
) -> Result<Json<Value>, (StatusCode, Json<Value>)> {
    let mut script = script.lock().unwrap();
    script.requests.push(request.clone());
    let authorization = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    script.authorizations.push(authorization);
    let Some(message) = script.replies.pop_front() else {
        return Err((
            StatusCode::BAD_REQUEST,
            Json(
                json!({"error": {"message": "no scripted reply is left", "type": "invalid_request_error"}}),
            ),
        ));
    };
    let finish = if message.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    Ok(Json(json!({
        "id": format!("chatcmpl-{}", script.requests.len()),
        "object": "chat.completion",
        "created": 0,
        "model": request["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })))
}
