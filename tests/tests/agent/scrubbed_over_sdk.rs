//! Teach blocks reach no one who did not activate the extension, on the
//! paths the official A2A server SDK serves around the layer, on 127.0.0.1:
//! a task of client A (who activated) read by client B (who did not)
//! asking for every encoding (for A the host compresses: gzip, br and
//! deflate by tower-http's `CompressionLayer`, zstd by ruzstd; for B the
//! layer asks the host for none and compresses the scrubbed body itself),
//! by JSON-RPC and REST; and push notifications, which the SDK sends
//! outside the layer, to a webhook B registers on A's task.

use std::collections::HashMap;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2a::{
    A2AError, AgentCard, Artifact, Message, Part, Role, StreamResponse, Task,
    TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use a2a_server::agent_card::agent_card_router;
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::rest::rest_router;
use a2a_server::{
    AgentExecutor, DefaultRequestHandler, ExecutorContext, HttpPushSender, HttpPushSenderConfig,
    InMemoryPushConfigStore, InMemoryTaskStore, StaticAgentCard,
};
use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::post;
use futures::stream::{self, BoxStream};
use learnables::a2a::{
    ActivatedPushConfigs, DeclaredCard, LearnablesLayer, LearnablesService, Tokens,
};
use learnables::{Declaration, EXTENSION_URI, Knowledge, TeachBlock};
use learnables_examples::RoutingRule;
use learnables_tests::loopback;
use serde_json::{Value, json};
use tower_http::compression::CompressionLayer;

/// How the test executor treats teach blocks.
#[derive(Clone, Copy, Debug)]
enum Attach {
    /// Through the typed helper, which needs activation.
    IfActivated,
    /// On every reply, whoever asked: only the layer stands between the
    /// block and the client.
    Always,
}

/// Asks a question (input-required, with a block) on a new task; on the
/// task's next message sends a status update, an artifact update and the
/// completed task, each with a block.
#[derive(Clone)]
struct Asker {
    attach: Attach,
}

impl Asker {
    fn question(&self, context: &ExecutorContext, text: &str) -> Message {
        let mut reply = Message::new(Role::Agent, vec![Part::text(text)]);
        let block = TeachBlock::builder::<RoutingRule>(["85"]).with_lesson_fields();
        match self.attach {
            Attach::IfActivated => {
                block.attach_if_activated(context, &mut reply).unwrap();
            }
            Attach::Always => block.build().attach_to_message(&mut reply).unwrap(),
        }
        reply
    }

    fn artifact(&self, context: &ExecutorContext) -> Artifact {
        let mut artifact = Artifact {
            artifact_id: "a1".into(),
            name: None,
            description: None,
            parts: vec![Part::text("routed")],
            metadata: None,
            extensions: None,
        };
        let question = self.question(context, "q");
        if let Some(metadata) = question.metadata {
            artifact.metadata = Some(metadata);
            artifact.extensions = question.extensions;
        }
        artifact
    }
}

impl AgentExecutor for Asker {
    fn execute(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let continued = context
            .message
            .as_ref()
            .is_some_and(|message| message.task_id.is_some());
        let task = |state, message| Task {
            id: context.task_id.clone(),
            context_id: context.context_id.clone(),
            status: TaskStatus {
                state,
                message: Some(message),
                timestamp: None,
            },
            artifacts: None,
            history: None,
            metadata: None,
        };
        if !continued {
            let asked = task(
                TaskState::InputRequired,
                self.question(&context, "Which desk?"),
            );
            return Box::pin(stream::iter([Ok(StreamResponse::Task(asked))]));
        }
        let events = vec![
            Ok(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: context.task_id.clone(),
                context_id: context.context_id.clone(),
                status: TaskStatus {
                    state: TaskState::Working,
                    message: Some(self.question(&context, "working")),
                    timestamp: None,
                },
                metadata: None,
            })),
            Ok(StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: context.task_id.clone(),
                context_id: context.context_id.clone(),
                artifact: self.artifact(&context),
                append: None,
                last_chunk: Some(true),
                metadata: None,
            })),
            Ok(StreamResponse::Task(task(
                TaskState::Completed,
                self.question(&context, "done"),
            ))),
        ];
        Box::pin(stream::iter(events))
    }

    fn cancel(
        &self,
        _context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        Box::pin(stream::empty())
    }
}

fn card() -> AgentCard {
    serde_json::from_value(json!({
        "name": "Host agent", "description": "An agent on the official SDK", "version": "7",
        "supportedInterfaces": [{"url": "http://127.0.0.1/", "protocolBinding": "JSONRPC",
                                 "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true, "pushNotifications": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "route-declaration", "name": "Route", "description": "Routes",
                    "tags": []}]
    }))
    .unwrap()
}

/// A server on a free port of 127.0.0.1, kept until the test ends.
struct Served {
    url: String,
    runtime: tokio::runtime::Runtime,
}

fn serve_router(router: Router) -> Served {
    let runtime = loopback::runtime();
    let address = loopback::serve_on(&runtime, router);
    Served {
        url: format!("http://{address}/"),
        runtime,
    }
}

/// The SDK's JSON-RPC (at `/`) and REST (under `/rest`) routers and its
/// card, compressed by tower-http, with push notifications to loopback
/// webhooks through the store that refuses unactivated configs, and the
/// layer over it all.
fn agent(attach: Attach) -> Served {
    let declaration = Declaration::new().learnable::<RoutingRule>();
    let knowledge = Knowledge::in_memory();
    knowledge.register::<RoutingRule>().unwrap();
    learnables_examples::install_crypto_provider();
    let sender = HttpPushSender::new(Some(HttpPushSenderConfig {
        timeout: Duration::from_secs(10),
        fail_on_error: false,
        // The webhooks of this test are on 127.0.0.1.
        validate_urls: false,
    }));
    let handler = Arc::new(
        DefaultRequestHandler::new(Asker { attach }, InMemoryTaskStore::new())
            .with_capabilities(card().capabilities)
            .with_push_notifications(
                ActivatedPushConfigs::new(InMemoryPushConfigStore::new()),
                sender,
            ),
    );
    let producer = DeclaredCard::new(StaticAgentCard::new(card()), declaration.clone()).unwrap();
    let router = jsonrpc_router(handler.clone())
        .nest("/rest", rest_router(handler))
        .merge(agent_card_router(Arc::new(producer)))
        .layer(CompressionLayer::new())
        .layer(middleware::from_fn(zstd_when_asked))
        .layer(LearnablesLayer::new(LearnablesService::new(
            knowledge,
            declaration,
            Tokens::new(),
        )));
    serve_router(router)
}

/// A response to a request that accepts `zstd` alone, `zstd`-encoded with
/// ruzstd: tower-http here compresses with gzip, br and deflate only, so
/// the tests build no C library.
async fn zstd_when_asked(request: Request, next: Next) -> Response {
    let asks = request
        .headers()
        .get("accept-encoding")
        .is_some_and(|value| value.as_bytes() == b"zstd");
    let response = next.run(request).await;
    if !asks || response.headers().contains_key("content-encoding") {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let plain = axum::body::to_bytes(body, usize::MAX).await.unwrap();
    let encoded =
        ruzstd::encoding::compress_to_vec(&plain[..], ruzstd::encoding::CompressionLevel::Fastest);
    parts.headers.remove("content-length");
    parts
        .headers
        .insert("content-encoding", "zstd".parse().unwrap());
    Response::from_parts(parts, Body::from(encoded))
}

const ACTIVATED: (&str, &str) = ("A2A-Extensions", EXTENSION_URI);
const VERSION: (&str, &str) = ("A2A-Version", "1.0");

fn client() -> reqwest::blocking::Client {
    learnables_examples::install_crypto_provider();
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

fn rpc(served: &Served, method: &str, params: Value, headers: &[(&str, &str)]) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = client()
        .post(&served.url)
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().unwrap().json().unwrap()
}

/// A's task, waiting on a question with a teach block.
fn task_of_a(served: &Served) -> String {
    let params = json!({"message": {"messageId": "m1", "role": "ROLE_USER",
                                    "parts": [{"text": "Route chapter 85"}]}});
    let answer = rpc(served, "SendMessage", params, &[VERSION, ACTIVATED]);
    let task = &answer["result"]["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{answer}"
    );
    assert!(has_block(task), "A activated and gets the block: {answer}");
    task["id"].as_str().unwrap().to_owned()
}

/// Whether any object in `value` has the URI as a key.
fn has_block(value: &Value) -> bool {
    match value {
        Value::Object(object) => {
            object.contains_key(EXTENSION_URI) || object.values().any(has_block)
        }
        Value::Array(items) => items.iter().any(has_block),
        _ => false,
    }
}

/// `body` decoded from `encoding` (by the test's own decoders).
fn decoded(encoding: Option<&str>, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match encoding {
        None => out.extend_from_slice(body),
        Some("gzip") => {
            flate2::read::GzDecoder::new(body)
                .read_to_end(&mut out)
                .unwrap();
        }
        Some("deflate") => {
            flate2::read::ZlibDecoder::new(body)
                .read_to_end(&mut out)
                .unwrap();
        }
        Some("br") => {
            brotli::Decompressor::new(body, 4096)
                .read_to_end(&mut out)
                .unwrap();
        }
        Some("zstd") => {
            let mut decoder = ruzstd::decoding::StreamingDecoder::new(body).unwrap();
            ruzstd::io::Read::read_to_end(&mut decoder, &mut out).unwrap();
        }
        Some(other) => panic!("the test does not decode {other}"),
    }
    out
}

/// A `GET` or JSON-RPC read of A's task, asking for `encoding`: the
/// response's `Content-Encoding` and its body decoded.
fn read_task(
    served: &Served,
    how: &str,
    task: &str,
    encoding: &str,
    activated: bool,
) -> (Option<String>, Value) {
    let mut request = match how {
        "GetTask" => client()
            .post(&served.url)
            .header("content-type", "application/json")
            .body(
                json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask",
                         "params": {"id": task}})
                .to_string(),
            ),
        "GET /tasks/{id}" => client().get(format!("{}rest/tasks/{task}", served.url)),
        "GET /tasks" => client().get(format!("{}rest/tasks", served.url)),
        other => panic!("{other}"),
    }
    .header(VERSION.0, VERSION.1)
    .header("accept-encoding", encoding);
    if activated {
        request = request.header(ACTIVATED.0, ACTIVATED.1);
    }
    let response = request.send().unwrap();
    assert_eq!(response.status(), 200, "{how} {encoding}");
    let coding = response
        .headers()
        .get("content-encoding")
        .map(|value| value.to_str().unwrap().to_owned());
    let body = response.bytes().unwrap();
    let body = decoded(coding.as_deref(), &body);
    let value: Value = serde_json::from_slice(&body).unwrap_or_else(|error| {
        panic!(
            "{how} {encoding}: {error}: {}",
            String::from_utf8_lossy(&body)
        )
    });
    (coding, value)
}

const READS: [&str; 3] = ["GetTask", "GET /tasks/{id}", "GET /tasks"];

#[test]
fn a_client_that_did_not_activate_gets_no_block_in_any_encoding() {
    for attach in [Attach::IfActivated, Attach::Always] {
        let served = agent(attach);
        let task = task_of_a(&served);
        for how in READS {
            // A, who activated, gets the block, compressed: the path is real.
            for encoding in ["gzip", "br", "deflate", "zstd"] {
                let (coding, value) = read_task(&served, how, &task, encoding, true);
                assert_eq!(coding.as_deref(), Some(encoding), "{how}");
                assert!(has_block(&value), "{attach:?} {how} {encoding}: {value}");
            }
            for encoding in [
                "gzip",
                "br",
                "deflate",
                "zstd",
                "gzip, deflate, br, zstd",
                "identity",
            ] {
                let (coding, value) = read_task(&served, how, &task, encoding, false);
                // The host was asked for no encoding; the layer compressed
                // the scrubbed body as the client accepts (not in zstd).
                let expected: &[&str] = match encoding {
                    "gzip" | "br" | "deflate" => &[encoding],
                    "gzip, deflate, br, zstd" => &["gzip", "deflate", "br"],
                    _ => &[],
                };
                match coding.as_deref() {
                    Some(coding) => assert!(
                        expected.contains(&coding),
                        "{attach:?} {how} {encoding}: {coding}"
                    ),
                    None => assert!(expected.is_empty(), "{attach:?} {how} {encoding}"),
                }
                assert!(!has_block(&value), "{attach:?} {how} {encoding}: {value}");
                assert!(
                    !value.to_string().contains(EXTENSION_URI),
                    "{attach:?} {how} {encoding}: {value}"
                );
                assert!(
                    value.to_string().contains(&task),
                    "{how} {encoding}: {value}"
                );
            }
        }
    }
}

/// A webhook on 127.0.0.1 that keeps every push it receives.
struct Webhook {
    url: String,
    received: Arc<Mutex<Vec<Value>>>,
}

fn webhook(served: &Served, name: &str) -> Webhook {
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = received.clone();
    let router = Router::new().route(
        "/hook",
        post(move |body: axum::body::Bytes| {
            let kept = kept.clone();
            async move {
                let value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                kept.lock().unwrap().push(value);
                "ok"
            }
        }),
    );
    let address = loopback::serve_on(&served.runtime, router);
    Webhook {
        url: format!("http://{address}/hook?{name}"),
        received,
    }
}

impl Webhook {
    /// The pushes received once `count` have come (or 20 s have passed).
    fn wait_for(&self, count: usize) -> Vec<Value> {
        let start = Instant::now();
        while self.received.lock().unwrap().len() < count
            && start.elapsed() < Duration::from_secs(20)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.received.lock().unwrap().clone()
    }
}

#[test]
fn no_push_carries_a_block_to_a_webhook_registered_without_activation() {
    for attach in [Attach::IfActivated, Attach::Always] {
        let served = agent(attach);
        let task = task_of_a(&served);
        let of_a = webhook(&served, "a");
        let of_b = webhook(&served, "b");
        let config = |hook: &Webhook| json!({"taskId": task, "url": hook.url});
        // B's registrations, by JSON-RPC and by REST, are refused.
        let refused = rpc(
            &served,
            "CreateTaskPushNotificationConfig",
            config(&of_b),
            &[VERSION],
        );
        assert_eq!(refused["error"]["code"], -32008, "{attach:?}: {refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("activated"),
            "{refused}"
        );
        let rest = client()
            .post(format!(
                "{}rest/tasks/{task}/pushNotificationConfigs",
                served.url
            ))
            .header(VERSION.0, VERSION.1)
            .header("content-type", "application/json")
            .body(json!({"url": of_b.url}).to_string())
            .send()
            .unwrap();
        assert!(
            !rest.status().is_success(),
            "{attach:?}: REST registration {}",
            rest.status()
        );
        // So is a SendMessage of B that carries a config.
        let inline = json!({"message": {"messageId": "m9", "role": "ROLE_USER",
                                        "parts": [{"text": "hi"}]},
                            "configuration": {"taskPushNotificationConfig": {"url": of_b.url}}});
        let refused = rpc(&served, "SendMessage", inline, &[VERSION]);
        assert_eq!(refused["error"]["code"], -32008, "{refused}");
        // A's registration is saved, and A continues the task.
        let saved = rpc(
            &served,
            "CreateTaskPushNotificationConfig",
            config(&of_a),
            &[VERSION, ACTIVATED],
        );
        assert!(saved["result"]["url"].is_string(), "{saved}");
        let listed = rpc(
            &served,
            "ListTaskPushNotificationConfigs",
            json!({"taskId": task}),
            &[VERSION],
        );
        assert_eq!(
            listed["result"]["configs"].as_array().map(Vec::len),
            Some(1),
            "{listed}"
        );
        let next = json!({"message": {"messageId": "m2", "role": "ROLE_USER", "taskId": task,
                                      "parts": [{"text": "cold chain"}]}});
        let done = rpc(&served, "SendMessage", next, &[VERSION, ACTIVATED]);
        assert!(done["error"].is_null(), "{done}");
        // A's webhook gets the three pushes, each with its block.
        let pushes = of_a.wait_for(3);
        assert_eq!(pushes.len(), 3, "{attach:?}: {pushes:?}");
        let kinds: HashMap<&str, bool> = pushes
            .iter()
            .filter_map(|push| push.as_object())
            .flat_map(|push| {
                push.iter()
                    .map(|(kind, event)| (kind.as_str(), has_block(event)))
            })
            .collect();
        for kind in ["task", "artifactUpdate", "statusUpdate"] {
            assert_eq!(
                kinds.get(kind),
                Some(&true),
                "{attach:?} {kind}: {pushes:?}"
            );
        }
        // B's got nothing at all.
        assert!(of_b.received.lock().unwrap().is_empty(), "{attach:?}");
    }
}
