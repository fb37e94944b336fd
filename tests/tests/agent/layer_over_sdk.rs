//! The Learnables layer over the official A2A server SDK's routers, served
//! for real on 127.0.0.1: the host's own traffic passes through untouched
//! (large messages, streams, other methods and paths, its card route with
//! its headers), and no teach block reaches a client that did not activate
//! the extension, by either line of defence.

use std::hash::{DefaultHasher, Hasher};
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a::{
    A2AError, AgentCard, Message, Part, Role, StreamResponse, Task, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use a2a_server::agent_card::agent_card_router;
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::{
    AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore, StaticAgentCard,
};
use axum::Router;
use axum::routing::get;
use futures::stream::{self, BoxStream, StreamExt};
use learnables::a2a::json_rpc::codes;
use learnables::a2a::{DeclaredCard, LearnablesLayer, LearnablesService, Principal, Tokens};
use learnables::{Declaration, EXTENSION_URI, Knowledge, Learnable, TEACH_METHOD, TeachBlock};
use learnables_examples::RoutingRule;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

/// How the test executor treats teach blocks.
#[derive(Clone, Copy)]
enum Attach {
    /// Through the typed helper, which needs activation.
    IfActivated,
    /// Straight onto the message, whoever asked: only the layer stands
    /// between the block and the client.
    Always,
}

/// Replies with the length and hash of the text it received, a teach
/// block tried on every reply; a message saying `wait` holds its second
/// event until the test lets it go.
#[derive(Clone)]
struct TestExecutor {
    attach: Attach,
    gate: Arc<Semaphore>,
}

fn digest(text: &str) -> String {
    let mut hasher = DefaultHasher::new();
    hasher.write(text.as_bytes());
    format!("{} {:016x}", text.len(), hasher.finish())
}

impl TestExecutor {
    fn reply(&self, context: &ExecutorContext) -> Message {
        let text: String = context
            .message
            .iter()
            .flat_map(|message| message.parts.iter())
            .filter_map(Part::as_text)
            .collect();
        let mut reply = Message::new(Role::Agent, vec![Part::text(digest(&text))]);
        let block = TeachBlock::builder::<RoutingRule>(["85"])
            .suggest(
                RoutingRule::FIELDS.chapter,
                learnables_examples::Chapter::try_from(85).expect("a chapter"),
            )
            .with_lesson_fields();
        match self.attach {
            Attach::IfActivated => {
                block.attach_if_activated(context, &mut reply).unwrap();
            }
            Attach::Always => block.build().attach_to_message(&mut reply).unwrap(),
        }
        reply
    }
}

impl AgentExecutor for TestExecutor {
    fn execute(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let reply = self.reply(&context);
        let wait = reply_text(&context) == "wait";
        let gate = self.gate.clone();
        let working = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: context.task_id.clone(),
            context_id: context.context_id.clone(),
            status: TaskStatus {
                state: TaskState::Working,
                message: Some(reply.clone()),
                timestamp: None,
            },
            metadata: None,
        });
        let done = StreamResponse::Task(Task {
            id: context.task_id.clone(),
            context_id: context.context_id.clone(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: Some(reply),
                timestamp: None,
            },
            artifacts: None,
            history: None,
            metadata: None,
        });
        let second = stream::once(async move {
            if wait {
                let _ = gate.acquire().await.map(|permit| permit.forget());
            }
            Ok(done)
        });
        Box::pin(stream::once(async move { Ok(working) }).chain(second))
    }

    fn cancel(
        &self,
        _context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        Box::pin(stream::empty())
    }
}

fn reply_text(context: &ExecutorContext) -> String {
    context
        .message
        .iter()
        .flat_map(|message| message.parts.iter())
        .filter_map(Part::as_text)
        .collect()
}

fn card() -> AgentCard {
    serde_json::from_value(json!({
        "name": "Host agent", "description": "An agent on the official SDK", "version": "7",
        "supportedInterfaces": [{"url": "http://127.0.0.1/", "protocolBinding": "JSONRPC",
                                 "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "route-declaration", "name": "Route", "description": "Routes",
                    "tags": []}]
    }))
    .unwrap()
}

fn declaration(teaches: bool) -> Declaration {
    let declaration = Declaration::new().learnable::<RoutingRule>();
    if teaches {
        declaration.teach_method(TEACH_METHOD)
    } else {
        declaration
    }
}

/// The host agent: the SDK's JSON-RPC and card routers and a route of its
/// own, with the layer over them all (or without it).
fn host(attach: Attach, layered: bool, teaches: bool, gate: Arc<Semaphore>) -> Router {
    let knowledge = Knowledge::in_memory();
    knowledge.register::<RoutingRule>().unwrap();
    let handler =
        DefaultRequestHandler::new(TestExecutor { attach, gate }, InMemoryTaskStore::new());
    let declaration = declaration(teaches);
    let producer = DeclaredCard::new(StaticAgentCard::new(card()), declaration.clone()).unwrap();
    let router = jsonrpc_router(Arc::new(handler))
        .merge(agent_card_router(Arc::new(producer)))
        .route(
            "/health",
            get(|| async { ([("x-host", "yes")], "host health") }),
        );
    if !layered {
        return router;
    }
    let tokens = Tokens::new().with("alice-token", Principal::human("alice@example.com"));
    router.layer(LearnablesLayer::new(LearnablesService::new(
        knowledge,
        declaration,
        tokens,
    )))
}

/// A host served on a free port until the test ends.
struct Served {
    url: String,
    gate: Arc<Semaphore>,
    _runtime: tokio::runtime::Runtime,
}

fn serve(attach: Attach, layered: bool, teaches: bool) -> Served {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let gate = Arc::new(Semaphore::new(0));
    let router = host(attach, layered, teaches, gate.clone());
    let address: SocketAddr = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        address
    });
    Served {
        url: format!("http://{address}/"),
        gate,
        _runtime: runtime,
    }
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

fn rpc(
    served: &Served,
    method: &str,
    params: Value,
    headers: &[(&str, &str)],
) -> reqwest::blocking::Response {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = client()
        .post(&served.url)
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().unwrap()
}

fn message(text: &str) -> Value {
    json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": text}]}})
}

fn echoed(response: &reqwest::blocking::Response) -> bool {
    response
        .headers()
        .get_all("A2A-Extensions")
        .iter()
        .any(|value| value.to_str().unwrap_or_default().contains(EXTENSION_URI))
}

/// The reply message of a `SendMessage` result (a task).
fn reply_of(result: &Value) -> &Value {
    &result["task"]["status"]["message"]
}

#[test]
fn a_five_mebibyte_message_reaches_the_sdk_byte_for_byte() {
    let served = serve(Attach::IfActivated, true, true);
    // Escapes, non-ASCII and quotes, so any rewriting would show.
    let unit = "Zoll \"€\" \\ 85 ✓\n";
    let text = unit.repeat(5 * 1024 * 1024 / unit.len() + 1);
    for headers in [&[VERSION][..], &[VERSION, ACTIVATED]] {
        let response = rpc(&served, "SendMessage", message(&text), headers);
        assert_eq!(response.status(), 200);
        let body: Value = response.json().unwrap();
        assert_eq!(
            reply_of(&body["result"])["parts"][0]["text"],
            digest(&text),
            "{headers:?}"
        );
    }
}

#[test]
fn a_streamed_reply_is_streamed_through_with_the_echo() {
    let served = serve(Attach::IfActivated, true, true);
    let response = rpc(
        &served,
        "SendStreamingMessage",
        message("wait"),
        &[VERSION, ACTIVATED],
    );
    assert_eq!(response.status(), 200);
    assert!(echoed(&response), "{:?}", response.headers());
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut reader = BufReader::new(response);
    // The first event arrives while the executor still holds the second.
    let first = read_event(&mut reader);
    assert_eq!(
        first["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    let block = &first["result"]["statusUpdate"]["status"]["message"]["metadata"][EXTENSION_URI];
    assert_eq!(block["teach"]["collection"], "routing_rules");
    served.gate.add_permits(1);
    let second = read_event(&mut reader);
    assert_eq!(
        second["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

/// The data of the next event of a stream.
fn read_event(reader: &mut impl BufRead) -> Value {
    let mut data = String::new();
    loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "the stream ended");
        let line = line.trim_end();
        if let Some(rest) = line.strip_prefix("data:") {
            data.push_str(rest.trim_start());
        } else if line.is_empty() && !data.is_empty() {
            return serde_json::from_str(&data).unwrap();
        }
    }
}

#[test]
fn other_methods_and_paths_reach_the_host() {
    let served = serve(Attach::IfActivated, true, true);
    let health = client()
        .get(format!("{}health", served.url))
        .header(ACTIVATED.0, ACTIVATED.1)
        .send()
        .unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(health.headers()["x-host"], "yes");
    assert!(echoed(&health));
    assert_eq!(health.text().unwrap(), "host health");
    // A GET to the JSON-RPC endpoint is the SDK's to refuse (405), not ours.
    let get = client().get(&served.url).send().unwrap();
    assert_eq!(get.status(), 405);
    // So is a method the SDK has and we do not.
    let listed = rpc(&served, "ListTasks", json!({}), &[VERSION]);
    let listed: Value = listed.json().unwrap();
    assert_eq!(listed["result"]["pageSize"], 50, "{listed}");
}

#[test]
fn the_hosts_card_route_serves_the_declaration_with_its_own_headers() {
    let served = serve(Attach::IfActivated, true, true);
    let response = client()
        .get(format!("{}.well-known/agent-card.json", served.url))
        .header("Origin", "https://teacher.example")
        .send()
        .unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert_eq!(
        headers["access-control-allow-origin"],
        "https://teacher.example"
    );
    assert_eq!(headers["etag"], "\"7\"");
    assert!(
        headers["cache-control"]
            .to_str()
            .unwrap()
            .contains("max-age")
    );
    let card: Value = response.json().unwrap();
    let extension = &card["capabilities"]["extensions"][0];
    assert_eq!(extension["uri"], EXTENSION_URI);
    assert_eq!(
        extension["params"]["learnables"][0]["collection"],
        RoutingRule::descriptor().collection
    );
    assert_eq!(card["capabilities"]["streaming"], true);
}

/// Whether a `SendMessage` reply (and, streamed, each event) carries a block.
fn blocks_seen(served: &Served, headers: &[(&str, &str)]) -> (bool, bool) {
    let unary: Value = rpc(served, "SendMessage", message("85?"), headers)
        .json()
        .unwrap();
    assert!(unary.get("result").is_some(), "{unary}");
    let unary_block = unary.to_string().contains(EXTENSION_URI);
    let mut streamed = String::new();
    rpc(served, "SendStreamingMessage", message("85?"), headers)
        .read_to_string(&mut streamed)
        .unwrap();
    assert!(streamed.contains("TASK_STATE_COMPLETED"), "{streamed}");
    (unary_block, streamed.contains(EXTENSION_URI))
}

#[test]
fn the_executor_helper_attaches_no_block_without_activation() {
    // The first line of defence alone: the SDK's router without the layer.
    let bare = serve(Attach::IfActivated, false, true);
    assert_eq!(blocks_seen(&bare, &[VERSION]), (false, false));
    assert_eq!(blocks_seen(&bare, &[VERSION, ACTIVATED]), (true, true));
}

#[test]
fn the_layer_removes_blocks_an_executor_sends_without_activation() {
    // The second line alone: an executor that attaches whoever asks.
    let bare = serve(Attach::Always, false, true);
    assert_eq!(
        blocks_seen(&bare, &[VERSION]),
        (true, true),
        "the executor does attach"
    );
    let layered = serve(Attach::Always, true, true);
    assert_eq!(blocks_seen(&layered, &[VERSION]), (false, false));
    assert_eq!(blocks_seen(&layered, &[VERSION, ACTIVATED]), (true, true));
    // The rest of the reply is as the executor made it.
    let unary: Value = rpc(&layered, "SendMessage", message("85?"), &[VERSION])
        .json()
        .unwrap();
    let reply = reply_of(&unary["result"]);
    assert_eq!(reply["parts"][0]["text"], digest("85?"));
    assert_eq!(reply["role"], "ROLE_AGENT");
}

#[test]
fn without_a_teach_method_in_the_declaration_none_is_served() {
    let served = serve(Attach::IfActivated, true, false);
    let lesson = json!({
        "collection": "routing_rules", "entry": "85",
        "value": {"chapter": "85", "desk": "general"}, "taughtBy": "alice@example.com"
    });
    let auth = ("Authorization", "Bearer alice-token");
    let taught: Value = rpc(&served, TEACH_METHOD, lesson, &[VERSION, ACTIVATED, auth])
        .json()
        .unwrap();
    assert_eq!(taught["error"]["code"], codes::METHOD_NOT_FOUND, "{taught}");
    // Show-back is still served.
    let shown: Value = rpc(
        &served,
        learnables::SHOW_BACK_METHOD,
        json!({"collection": "routing_rules", "entry": "85"}),
        &[VERSION, ACTIVATED, auth],
    )
    .json()
    .unwrap();
    assert_eq!(shown["error"]["code"], codes::NOT_FOUND, "{shown}");
}

#[test]
fn an_unsupported_a2a_version_is_refused_with_32009() {
    let served = serve(Attach::IfActivated, true, true);
    for version in ["0.3", "2.0"] {
        let sent: Value = rpc(
            &served,
            "SendMessage",
            message("85?"),
            &[("A2A-Version", version)],
        )
        .json()
        .unwrap();
        assert_eq!(
            sent["error"]["code"],
            codes::VERSION_NOT_SUPPORTED,
            "{sent}"
        );
        let shown: Value = rpc(
            &served,
            learnables::SHOW_BACK_METHOD,
            json!({"collection": "routing_rules", "entry": "85"}),
            &[("A2A-Version", version), ACTIVATED],
        )
        .json()
        .unwrap();
        assert_eq!(
            shown["error"]["code"],
            codes::VERSION_NOT_SUPPORTED,
            "{shown}"
        );
        assert_eq!(shown["id"], 1);
    }
    // The SDK reads a missing header as 0.3.
    let unversioned: Value = rpc(&served, "SendMessage", message("85?"), &[])
        .json()
        .unwrap();
    assert_eq!(unversioned["error"]["code"], codes::VERSION_NOT_SUPPORTED);
    // And so do the learnables methods: one rule for every method.
    let unversioned: Value = rpc(
        &served,
        learnables::SHOW_BACK_METHOD,
        json!({"collection": "routing_rules", "entry": "85"}),
        &[ACTIVATED],
    )
    .json()
    .unwrap();
    assert_eq!(
        unversioned["error"]["code"],
        codes::VERSION_NOT_SUPPORTED,
        "{unversioned}"
    );
}

/// A teacher policy with a bug: it panics on chapter 85.
struct PanicsOnChapter85;

impl learnables::a2a::TeacherPolicy for PanicsOnChapter85 {
    fn allow(&self, _: &Principal, lesson: &learnables::Lesson) -> Result<(), String> {
        assert_ne!(lesson.entry, "85", "a bug in the host's policy");
        Ok(())
    }
}

#[test]
fn a_panic_in_the_hosts_policy_is_an_internal_error_and_the_agent_goes_on() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let knowledge = Knowledge::in_memory();
    knowledge.register::<RoutingRule>().unwrap();
    let tokens = Tokens::new().with("alice-token", Principal::human("alice@example.com"));
    let service = LearnablesService::new(knowledge.clone(), declaration(true), tokens)
        .with_policy(PanicsOnChapter85);
    let router = Router::new()
        .route("/health", get(|| async { "host health" }))
        .layer(LearnablesLayer::new(service));
    let address: SocketAddr = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        address
    });
    let served = Served {
        url: format!("http://{address}/"),
        gate: Arc::new(Semaphore::new(0)),
        _runtime: runtime,
    };
    let auth = ("Authorization", "Bearer alice-token");
    let lesson = |entry: &str| {
        json!({
            "collection": "routing_rules", "entry": entry,
            "value": {"chapter": entry, "desk": "general"}, "taughtBy": "alice@example.com"
        })
    };
    let failed = rpc(
        &served,
        TEACH_METHOD,
        lesson("85"),
        &[VERSION, ACTIVATED, auth],
    );
    assert_eq!(failed.status(), 500);
    let failed: Value = failed.json().unwrap();
    assert_eq!(failed["error"]["code"], codes::INTERNAL_ERROR, "{failed}");
    assert!(knowledge.history("routing_rules").is_empty());
    // The same connection pool, the same server: the next lesson is taught.
    let taught: Value = rpc(
        &served,
        TEACH_METHOD,
        lesson("84"),
        &[VERSION, ACTIVATED, auth],
    )
    .json()
    .unwrap();
    assert_eq!(taught["result"]["learned"], true, "{taught}");
    assert_eq!(knowledge.history("routing_rules").len(), 1);
}
