//! A second extension, not Learnables (one method, one metadata key), on
//! two hosts over HTTP on 127.0.0.1: the A2A server SDK's routers
//! (`jsonrpc_router` and a trivial executor) and a plain axum JSON-RPC
//! app. Activation is echoed, the method answered, refusals typed, other
//! traffic untouched, and the extension's metadata scrubbed for a client
//! that did not activate it (JSON and SSE, gzip accepted).

use std::io::Read;
use std::sync::Arc;

use a2a::{A2AError, Message, Part, Role, StreamResponse};
use a2a_extensions::{Call, Extension, ExtensionLayer, RpcError};
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::{AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore};
use axum::Router;
use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use futures::stream::{self, BoxStream};
use serde_json::{Value, json};

/// An HTTP client, with ring as the process's crypto provider should the
/// workspace's features leave reqwest without one.
fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// The second extension's URI, and the key of its metadata.
const URI: &str = "https://example.com/a2a/greeting/v1";
const GREET: &str = "example.greeting.Greet";

fn greeting() -> Extension {
    Extension::new(URI).named("Greeting").method(GREET)
}

async fn greet(call: Call) -> Result<Value, RpcError> {
    match call.params["name"].as_str() {
        Some(name) => Ok(json!({"greeting": format!("Hello, {name}!")})),
        None => Err(
            RpcError::invalid_params("name", "`name` is the person's name").because("NAME_MISSING"),
        ),
    }
}

/// A message carrying the extension's metadata and its URI in
/// `extensions`, as a host that attaches it for everyone would send it.
fn tagged_message() -> Value {
    json!({"messageId": "r1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}],
           "metadata": {URI: {"greeted": true}}, "extensions": [URI]})
}

/// Replies to every message with one carrying the extension's metadata.
struct Replier;

impl AgentExecutor for Replier {
    fn execute(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let mut reply = Message::new(Role::Agent, vec![Part::text("hi")]);
        reply.context_id = Some(context.context_id.clone());
        reply.metadata = Some([(URI.to_owned(), json!({"greeted": true}))].into());
        reply.extensions = Some(vec![URI.to_owned()]);
        Box::pin(stream::once(
            async move { Ok(StreamResponse::Message(reply)) },
        ))
    }

    fn cancel(&self, _: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        Box::pin(stream::empty())
    }
}

fn sdk_host() -> Router {
    jsonrpc_router(Arc::new(DefaultRequestHandler::new(
        Replier,
        InMemoryTaskStore::new(),
    )))
}

/// A plain axum JSON-RPC app: `Echo` answers the bytes it received,
/// anything else a message carrying the extension's metadata; `/events`
/// streams it as server-sent events.
fn axum_host() -> Router {
    async fn rpc(body: Bytes) -> impl IntoResponse {
        let request: Value = serde_json::from_slice(&body).unwrap_or_default();
        let result = if request["method"] == "Echo" {
            json!({"received": String::from_utf8_lossy(&body)})
        } else {
            json!({"message": tagged_message()})
        };
        axum::Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
    }
    async fn events() -> impl IntoResponse {
        let event = json!({"jsonrpc": "2.0", "id": 1, "result": {"message": tagged_message()}});
        (
            [("content-type", "text/event-stream")],
            format!("data: {event}\n\ndata: {event}\n\n"),
        )
    }
    Router::new()
        .route("/", post(rpc))
        .route("/events", get(events))
}

/// Serves `host` under the extension's layer on 127.0.0.1; its base URL.
async fn serve(host: Router) -> String {
    let agent = host.layer(ExtensionLayer::new(greeting(), greet));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, agent).await });
    format!("http://{address}")
}

struct Answer {
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&self.body)))
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn echoed(&self) -> Option<&str> {
        self.headers
            .get("a2a-extensions")
            .and_then(|value| value.to_str().ok())
    }
}

/// Sends `body` to `url`; `activate` names the extension; `extra` headers.
async fn post_json(url: &str, body: &Value, activate: bool, extra: &[(&str, &str)]) -> Answer {
    let client = client();
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .body(body.to_string());
    if activate {
        request = request.header("a2a-extensions", URI);
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let headers = response.headers().clone();
    let body = response.bytes().await.unwrap().to_vec();
    Answer { headers, body }
}

fn send_message() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
           "params": {"message": {"messageId": "m1", "role": "ROLE_USER",
                                  "parts": [{"text": "hello"}]}}})
}

fn greet_request(params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": "g", "method": GREET, "params": params})
}

/// The host's message reaches an activating client whole, the URI echoed;
/// a client that did not activate gets it without the extension's
/// metadata.
async fn scrubs_and_echoes(base: &str) {
    let activated = post_json(base, &send_message(), true, &[]).await;
    assert_eq!(activated.echoed(), Some(URI));
    let message = &activated.json()["result"]["message"];
    assert_eq!(
        message["metadata"][URI]["greeted"],
        true,
        "{}",
        activated.text()
    );
    assert_eq!(message["extensions"], json!([URI]));

    let other = post_json(base, &send_message(), false, &[]).await;
    assert_eq!(other.echoed(), None);
    assert!(!other.text().contains(URI), "{}", other.text());
    assert_eq!(other.json()["result"]["message"]["parts"][0]["text"], "hi");
}

/// The extension's method is answered on any host; its refusals are
/// typed A2A v1.0 errors in the extension's domain.
async fn answers_and_refuses(base: &str) {
    let answered = post_json(base, &greet_request(json!({"name": "Ada"})), true, &[]).await;
    assert_eq!(answered.echoed(), Some(URI));
    assert_eq!(
        answered.json(),
        json!({"jsonrpc": "2.0", "id": "g", "result": {"greeting": "Hello, Ada!"}})
    );

    let not_activated = post_json(base, &greet_request(json!({"name": "Ada"})), false, &[]).await;
    let error = &not_activated.json()["error"];
    assert_eq!(error["code"], -32008);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("needs the Greeting extension activated"),
        "{error}"
    );
    assert_eq!(error["data"][0]["reason"], "EXTENSION_NOT_ACTIVATED");
    assert_eq!(error["data"][0]["domain"], URI);

    let bad_params = post_json(base, &greet_request(json!({})), true, &[]).await;
    let error = &bad_params.json()["error"];
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"][0]["@type"], a2a_extensions::BAD_REQUEST_TYPE);
    assert_eq!(error["data"][0]["fieldViolations"][0]["field"], "name");
    assert_eq!(error["data"][1]["reason"], "NAME_MISSING");
    assert_eq!(error["data"][1]["domain"], URI);

    let client = client();
    for version in [None, Some("0.3")] {
        let mut request = client
            .post(base)
            .header("content-type", "application/json")
            .header("a2a-extensions", URI)
            .body(greet_request(json!({"name": "Ada"})).to_string());
        if let Some(version) = version {
            request = request.header("a2a-version", version);
        }
        let error: Value = request.send().await.unwrap().json().await.unwrap();
        assert_eq!(error["error"]["code"], -32009, "{error}");
        assert_eq!(error["error"]["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
        assert_eq!(error["error"]["data"][0]["domain"], URI);
    }
}
#[tokio::test]
async fn on_the_sdks_routers() {
    let base = serve(sdk_host()).await;
    scrubs_and_echoes(&base).await;
    answers_and_refuses(&base).await;
}

#[tokio::test]
async fn on_a_plain_axum_app() {
    let base = serve(axum_host()).await;
    scrubs_and_echoes(&base).await;
    answers_and_refuses(&base).await;

    // Another method reaches the host with the bytes the client sent.
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "Echo",
                      "params": {"n": 1.50, "s": "é"}});
    let echoed = post_json(&base, &body, true, &[]).await;
    assert_eq!(echoed.json()["result"]["received"], body.to_string());
}

#[tokio::test]
async fn events_and_gzip_are_scrubbed_for_a_client_that_did_not_activate() {
    let base = serve(axum_host()).await;
    let client = client();
    let events = client
        .get(format!("{base}/events"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(events.matches("data: ").count(), 2, "{events}");
    assert!(!events.contains(URI), "{events}");
    assert!(events.contains(r#""parts":[{"text":"hi"}]"#), "{events}");

    let activated = client
        .get(format!("{base}/events"))
        .header("a2a-extensions", URI)
        .send()
        .await
        .unwrap();
    assert_eq!(
        activated
            .headers()
            .get("a2a-extensions")
            .unwrap()
            .to_str()
            .unwrap(),
        URI
    );
    assert_eq!(activated.text().await.unwrap().matches(URI).count(), 4);

    // A client that accepts gzip gets the scrubbed body gzipped by the
    // layer, the host having been asked for none.
    let gzipped = post_json(
        &base,
        &send_message(),
        false,
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(
        gzipped
            .headers
            .get("content-encoding")
            .map(|value| value.as_bytes()),
        Some(&b"gzip"[..])
    );
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gzipped.body[..])
        .read_to_string(&mut text)
        .unwrap();
    assert!(!text.contains(URI), "{text}");
    assert!(text.contains(r#""text":"hi""#), "{text}");
}
