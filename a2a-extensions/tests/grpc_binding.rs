//! The extension on A2A's gRPC binding, over HTTP/2 on 127.0.0.1: the SDK's
//! `DefaultRequestHandler` served on JSON-RPC (`jsonrpc_router` under
//! `ExtensionLayer`) and on gRPC (`a2a-grpc`'s `GrpcHandler` under
//! `GrpcExtensionLayer`) over one task store, asked with the generated
//! client of the SDK's `a2a-pb`. A task asked on JSON-RPC by an activated
//! client is read over gRPC by one that did not activate: no metadata, no
//! URI. An activated gRPC client gets it and the echo; its executor is told
//! through its service params. Hostile answers end with a status, nothing
//! of them sent.

use std::sync::{Arc, Mutex};

use a2a::{A2AError, Message, Part, Role, StreamResponse, Task, TaskState, TaskStatus};
use a2a_extensions::grpc::GrpcExtensionLayer;
use a2a_extensions::{Activation, Call, Extension, ExtensionLayer, RpcError};
use a2a_grpc::GrpcHandler;
use a2a_pb::proto;
use a2a_pb::proto::a2a_service_client::A2aServiceClient;
use a2a_pb::proto::a2a_service_server::A2aServiceServer;
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::{AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore};
use futures::stream::{self, BoxStream, StreamExt};
use prost::Message as _;
use serde_json::{Value, json};
use tonic::transport::{Channel, Server};

const URI: &str = "https://example.com/a2a/greeting/v1";

fn greeting() -> Extension {
    Extension::new(URI).named("Greeting")
}

/// What each execution was told: activated by its service params, and
/// whether `Activation::current` had anything.
type Seen = Arc<Mutex<Vec<(bool, bool)>>>;

/// Asks a question (`INPUT_REQUIRED`) carrying the extension's metadata
/// and URI, for everyone, and keeps the execution open so that the task
/// can be subscribed to.
struct Asker {
    seen: Seen,
}

fn tagged(text: &str) -> Message {
    let mut message = Message::new(Role::Agent, vec![Part::text(text)]);
    message.metadata = Some([(URI.to_owned(), json!({"teach": {"field": "desk"}}))].into());
    message.extensions = Some(vec![URI.to_owned()]);
    message
}

impl AgentExecutor for Asker {
    fn execute(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let activated = Activation::from_service_params(&context.service_params).includes(URI);
        self.seen
            .lock()
            .unwrap()
            .push((activated, Activation::current().is_some()));
        let mut question = tagged("Which desk?");
        question.context_id = Some(context.context_id.clone());
        question.task_id = Some(context.task_id.clone());
        let task = Task {
            id: context.task_id.clone(),
            context_id: context.context_id.clone(),
            status: TaskStatus {
                state: TaskState::InputRequired,
                message: Some(question),
                timestamp: None,
            },
            artifacts: None,
            history: None,
            metadata: Some([(URI.to_owned(), json!({"asked": true}))].into()),
        };
        Box::pin(
            stream::once(async move { Ok(StreamResponse::Task(task)) }).chain(stream::pending()),
        )
    }

    fn cancel(&self, _: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        Box::pin(stream::empty())
    }
}

struct Agent {
    json_rpc: String,
    grpc: String,
    seen: Seen,
}

/// The agent on both bindings, over one handler and task store.
async fn agent() -> Agent {
    let seen = Seen::default();
    let handler = Arc::new(DefaultRequestHandler::new(
        Asker { seen: seen.clone() },
        InMemoryTaskStore::new(),
    ));
    let none = |_: Call| async { Ok::<(), RpcError>(()) };
    let router = jsonrpc_router(handler.clone()).layer(ExtensionLayer::new(greeting(), none));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let json_rpc = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    let grpc = serve_grpc(
        A2aServiceServer::new(GrpcHandler::new(handler))
            .send_compressed(tonic::codec::CompressionEncoding::Gzip)
            .accept_compressed(tonic::codec::CompressionEncoding::Gzip),
        GrpcExtensionLayer::new(greeting()),
    )
    .await;
    Agent {
        json_rpc,
        grpc,
        seen,
    }
}

/// Serves `service` under `layer` on 127.0.0.1; its URL.
async fn serve_grpc<S>(service: S, layer: GrpcExtensionLayer) -> String
where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
            Error = std::convert::Infallible,
        > + tonic::server::NamedService
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let incoming = tonic::transport::server::TcpIncoming::from(listener);
    tokio::spawn(
        Server::builder()
            .layer(layer)
            .add_service(service)
            .serve_with_incoming(incoming),
    );
    format!("http://{address}")
}

async fn client(url: &str) -> A2aServiceClient<Channel> {
    A2aServiceClient::connect(url.to_owned())
        .await
        .unwrap()
        .accept_compressed(tonic::codec::CompressionEncoding::Gzip)
}

fn request<T>(message: T, activate: bool) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("a2a-version", "1.0".parse().unwrap());
    if activate {
        request
            .metadata_mut()
            .insert("a2a-extensions", URI.parse().unwrap());
    }
    request
}

fn echoed<T>(response: &tonic::Response<T>) -> Option<&str> {
    response
        .metadata()
        .get("a2a-extensions")
        .and_then(|value| value.to_str().ok())
}

/// Whether a message's encoding holds the URI anywhere.
fn names_uri(message: &impl prost::Message) -> bool {
    memchr::memmem::find(&message.encode_to_vec(), URI.as_bytes()).is_some()
}

/// Asks on JSON-RPC, activated; the task's id.
async fn ask_on_json_rpc(url: &str) -> String {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": {"messageId": "m1", "role": "ROLE_USER",
                               "parts": [{"text": "route HS 85"}]},
                   "configuration": {"returnImmediately": true}}});
    let answer: Value = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .header("a2a-extensions", URI)
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let task = &answer["result"]["task"];
    assert_eq!(
        task["status"]["message"]["metadata"][URI]["teach"]["field"], "desk",
        "the activated JSON-RPC client sees the block: {answer}"
    );
    task["id"].as_str().unwrap().to_owned()
}

fn send(text: &str) -> proto::SendMessageRequest {
    proto::SendMessageRequest {
        message: Some(proto::Message {
            message_id: format!("m-{text}"),
            role: proto::Role::User as i32,
            parts: vec![proto::Part {
                content: Some(proto::part::Content::Text(text.into())),
                ..Default::default()
            }],
            ..Default::default()
        }),
        // The execution stays open (to be subscribed to): the answer is
        // the task as it stands.
        configuration: Some(proto::SendMessageConfiguration {
            return_immediately: true,
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_task_asked_on_json_rpc_shows_nothing_over_grpc_to_a_client_that_did_not_activate() {
    let agent = agent().await;
    let id = ask_on_json_rpc(&agent.json_rpc).await;
    let mut grpc = client(&agent.grpc).await;

    let got = grpc
        .get_task(request(
            proto::GetTaskRequest {
                id: id.clone(),
                ..Default::default()
            },
            false,
        ))
        .await
        .unwrap();
    assert_eq!(echoed(&got), None);
    let task = got.into_inner();
    assert_eq!(task.id, id);
    assert!(!names_uri(&task), "{task:?}");
    let question = task.status.as_ref().unwrap().message.as_ref().unwrap();
    assert!(question.metadata.is_none() && question.extensions.is_empty());
    assert!(matches!(&question.parts[0].content,
        Some(proto::part::Content::Text(text)) if text == "Which desk?"));

    let listed = grpc
        .list_tasks(request(proto::ListTasksRequest::default(), false))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.tasks.iter().any(|task| task.id == id));
    assert!(!names_uri(&listed), "{listed:?}");

    let mut events = grpc
        .subscribe_to_task(request(
            proto::SubscribeToTaskRequest {
                id: id.clone(),
                ..Default::default()
            },
            false,
        ))
        .await
        .unwrap();
    assert_eq!(echoed(&events), None);
    let first = events.get_mut().message().await.unwrap().unwrap();
    assert!(
        matches!(&first.payload, Some(proto::stream_response::Payload::Task(task)) if task.id == id),
        "{first:?}"
    );
    assert!(!names_uri(&first), "{first:?}");
}

#[tokio::test]
async fn an_activated_grpc_client_gets_the_metadata_and_the_echo_and_its_executor_is_told() {
    let agent = agent().await;
    let mut grpc = client(&agent.grpc).await;
    let answer = grpc.send_message(request(send("a"), true)).await.unwrap();
    assert_eq!(echoed(&answer), Some(URI));
    let Some(proto::send_message_response::Payload::Task(task)) = answer.into_inner().payload
    else {
        panic!("no task");
    };
    let question = task.status.unwrap().message.unwrap();
    assert_eq!(question.extensions, [URI]);
    assert!(question.metadata.unwrap().fields.contains_key(URI));

    let unactivated = grpc.send_message(request(send("b"), false)).await.unwrap();
    assert!(!names_uri(unactivated.get_ref()));

    // The one call an executor makes tells it on both bindings; the
    // task-local `current` is not set under the SDK's handler.
    ask_on_json_rpc(&agent.json_rpc).await;
    assert_eq!(
        *agent.seen.lock().unwrap(),
        [(true, false), (false, false), (true, false)]
    );
}

#[tokio::test]
async fn streamed_events_are_scrubbed_one_by_one_and_compression_is_not_asked_for() {
    let agent = agent().await;
    let mut grpc = client(&agent.grpc).await;
    let mut events = grpc
        .send_streaming_message(request(send("s"), false))
        .await
        .unwrap();
    // The host compresses for clients that accept gzip; this one was
    // asked for none, so that its messages could be read.
    assert_eq!(events.metadata().get("grpc-encoding"), None);
    let first = events.get_mut().message().await.unwrap().unwrap();
    assert!(first.payload.is_some());
    assert!(!names_uri(&first), "{first:?}");

    let mut activated = grpc
        .send_streaming_message(request(send("t"), true))
        .await
        .unwrap();
    assert_eq!(echoed(&activated), Some(URI));
    let first = activated.get_mut().message().await.unwrap().unwrap();
    assert!(names_uri(&first));
}

/// A host that answers `GetTask` with the given bytes as its one message
/// (its prefix's compressed flag given), then status OK.
#[derive(Clone)]
struct Hostile {
    compressed: bool,
    message: Arc<Vec<u8>>,
}

impl tonic::server::NamedService for Hostile {
    const NAME: &'static str = a2a_extensions::grpc::A2A_SERVICE;
}

impl tower::Service<http::Request<tonic::body::Body>> for Hostile {
    type Response = http::Response<tonic::body::Body>;
    type Error = std::convert::Infallible;
    type Future = std::future::Ready<Result<Self::Response, Self::Error>>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: http::Request<tonic::body::Body>) -> Self::Future {
        let mut framed = vec![u8::from(self.compressed)];
        framed.extend_from_slice(&(self.message.len() as u32).to_be_bytes());
        framed.extend_from_slice(&self.message);
        let mut trailers = http::HeaderMap::new();
        trailers.insert("grpc-status", "0".parse().unwrap());
        let body = http_body_util::StreamBody::new(stream::iter([
            Ok::<_, std::convert::Infallible>(http_body::Frame::data(bytes::Bytes::from(framed))),
            Ok(http_body::Frame::trailers(trailers)),
        ]));
        let mut response = http::Response::new(tonic::body::Body::new(body));
        response
            .headers_mut()
            .insert("content-type", "application/grpc".parse().unwrap());
        if self.compressed {
            response
                .headers_mut()
                .insert("grpc-encoding", "gzip".parse().unwrap());
        }
        std::future::ready(Ok(response))
    }
}

/// A task whose metadata nests `depth` Structs, the URI's key at the bottom.
fn nested(depth: usize) -> proto::Task {
    use prost_types::{Struct, Value, value::Kind};
    let mut inner = Struct {
        fields: [(
            URI.to_owned(),
            Value {
                kind: Some(Kind::BoolValue(true)),
            },
        )]
        .into(),
    };
    for _ in 0..depth {
        inner = Struct {
            fields: [(
                "x".to_owned(),
                Value {
                    kind: Some(Kind::StructValue(inner)),
                },
            )]
            .into(),
        };
    }
    proto::Task {
        id: "t".into(),
        metadata: Some(inner),
        ..Default::default()
    }
}

#[tokio::test]
async fn hostile_answers_end_with_a_status_and_nothing_of_them_is_sent() {
    let big = proto::Task {
        id: "t".into(),
        history: vec![tagged_proto(); 64],
        ..Default::default()
    };
    let cases: [(&str, bool, Vec<u8>, tonic::Code); 4] = [
        (
            "nested past prost's limit",
            false,
            nested(120).encode_to_vec(),
            tonic::Code::Internal,
        ),
        (
            "over the size limit",
            false,
            big.encode_to_vec(),
            tonic::Code::ResourceExhausted,
        ),
        (
            "garbage",
            false,
            b"\x0a\xff\xff\xff\xff\x0f https://example.com/a2a/greeting/v1".to_vec(),
            tonic::Code::Internal,
        ),
        (
            "compressed anyway",
            true,
            nested(1).encode_to_vec(),
            tonic::Code::Internal,
        ),
    ];
    for (case, compressed, message, code) in cases {
        assert!(
            memchr::memmem::find(&message, URI.as_bytes()).is_some(),
            "{case}"
        );
        let hostile = Hostile {
            compressed,
            message: Arc::new(message),
        };
        let url = serve_grpc(
            hostile,
            GrpcExtensionLayer::new(greeting()).max_message(4096),
        )
        .await;
        let mut grpc = client(&url).await;
        let refused = grpc
            .get_task(request(proto::GetTaskRequest::default(), false))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), code, "{case}: {refused:?}");
        assert!(!refused.message().contains(URI), "{case}");
        // Activated, the same bytes are the client's to read.
        let activated = grpc
            .get_task(request(proto::GetTaskRequest::default(), true))
            .await;
        if case == "over the size limit" {
            assert!(names_uri(&activated.unwrap().into_inner()), "{case}");
        }
    }
    // Nested within the limit, the key at the bottom is removed.
    let url = serve_grpc(
        Hostile {
            compressed: false,
            message: Arc::new(nested(30).encode_to_vec()),
        },
        GrpcExtensionLayer::new(greeting()),
    )
    .await;
    let task = client(&url)
        .await
        .get_task(request(proto::GetTaskRequest::default(), false))
        .await
        .unwrap()
        .into_inner();
    assert!(!names_uri(&task));
}

fn tagged_proto() -> proto::Message {
    a2a_pb::pbconv::to_proto_message(&tagged("a question long enough to be counted"))
}

#[tokio::test]
async fn a_required_extension_refuses_a_grpc_request_that_did_not_activate_it() {
    let handler = Arc::new(DefaultRequestHandler::new(
        Asker {
            seen: Seen::default(),
        },
        InMemoryTaskStore::new(),
    ));
    let url = serve_grpc(
        A2aServiceServer::new(GrpcHandler::new(handler)),
        GrpcExtensionLayer::new(greeting().required(true)),
    )
    .await;
    let mut grpc = client(&url).await;
    let refused = grpc
        .send_message(request(send("r"), false))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
    assert!(
        refused
            .message()
            .contains("Greeting extension must be activated")
    );
    assert!(grpc.send_message(request(send("r"), true)).await.is_ok());
}

/// The host's error (a trailers-only answer, its status in the headers)
/// reaches a client that did not activate as the host sent it.
#[tokio::test]
async fn the_hosts_errors_reach_a_client_that_did_not_activate_as_they_are() {
    let agent = agent().await;
    let mut grpc = client(&agent.grpc).await;
    for activate in [false, true] {
        let refused = grpc
            .get_task(request(
                proto::GetTaskRequest {
                    id: "no-such-task".into(),
                    ..Default::default()
                },
                activate,
            ))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), tonic::Code::NotFound, "{refused:?}");
        assert!(!refused.details().is_empty(), "the error's details pass");
    }
}
