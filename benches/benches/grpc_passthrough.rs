//! What the gRPC layer costs the host's own traffic, beside
//! `layer_passthrough`: a 1 MiB `SendMessage` over gRPC to the SDK's
//! `GrpcHandler` (`a2a-grpc`) with Learnables' gRPC layer over it, the
//! client not activated (each answer decoded, scrubbed and encoded again),
//! against the same server without the layer, in the same run. Two
//! executors: one answering with the length of the text it received (as
//! `layer_passthrough`'s), one answering with the text itself (a 1 MiB
//! answer through the scrubber). Requests per second from 4 concurrent
//! clients on one HTTP/2 connection each; the budget is at least 0.9.
//!
//! `cargo bench -p learnables-benches --bench grpc_passthrough`

use std::sync::Arc;
use std::time::Duration;

use a2a::{A2AError, Message, Part, Role, StreamResponse};
use a2a_grpc::GrpcHandler;
use a2a_pb::proto;
use a2a_pb::proto::a2a_service_client::A2aServiceClient;
use a2a_pb::proto::a2a_service_server::A2aServiceServer;
use a2a_server::{AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::stream::{self, BoxStream};
use learnables::a2a::{LearnablesService, Tokens};
use learnables::{Declaration, Knowledge, TEACH_METHOD};
use tokio::runtime::Runtime;
use tonic::transport::{Channel, Server};

const CLIENTS: u64 = 4;

/// Answers with the length of the text it received, or the text itself.
struct Answering {
    echo: bool,
}

impl AgentExecutor for Answering {
    fn execute(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let text: String = context
            .message
            .iter()
            .flat_map(|message| message.parts.iter())
            .filter_map(Part::as_text)
            .collect();
        let answer = if self.echo {
            text
        } else {
            text.len().to_string()
        };
        let reply = Message::new(Role::Agent, vec![Part::text(answer)]);
        Box::pin(stream::once(
            async move { Ok(StreamResponse::Message(reply)) },
        ))
    }

    fn cancel(&self, _: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        Box::pin(stream::empty())
    }
}

/// The SDK's gRPC server on 127.0.0.1, with the layer or without; its URL.
fn serve(runtime: &Runtime, echo: bool, layered: bool) -> String {
    let handler = Arc::new(DefaultRequestHandler::new(
        Answering { echo },
        InMemoryTaskStore::new(),
    ));
    let service = A2aServiceServer::new(GrpcHandler::new(handler))
        .max_decoding_message_size(8 << 20)
        .max_encoding_message_size(8 << 20);
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("a port");
    let address = listener.local_addr().expect("an address");
    let incoming = tonic::transport::server::TcpIncoming::from(listener);
    if layered {
        let learnables = LearnablesService::new(
            Knowledge::in_memory(),
            Declaration::new().teach_method(TEACH_METHOD),
            Tokens::new(),
        );
        runtime.spawn(
            Server::builder()
                .layer(learnables.grpc_layer())
                .add_service(service)
                .serve_with_incoming(incoming),
        );
    } else {
        runtime.spawn(
            Server::builder()
                .add_service(service)
                .serve_with_incoming(incoming),
        );
    }
    format!("http://{address}")
}

fn request(text: &str) -> proto::SendMessageRequest {
    proto::SendMessageRequest {
        message: Some(proto::Message {
            message_id: "m".into(),
            role: proto::Role::User as i32,
            parts: vec![proto::Part {
                content: Some(proto::part::Content::Text(text.into())),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn send(
    client: &mut A2aServiceClient<Channel>,
    message: &proto::SendMessageRequest,
) -> usize {
    let mut request = tonic::Request::new(message.clone());
    request
        .metadata_mut()
        .insert("a2a-version", "1.0".parse().expect("a value"));
    let answer = client.send_message(request).await.expect("an answer");
    match answer.into_inner().payload {
        Some(proto::send_message_response::Payload::Message(message)) => message.parts.len(),
        other => panic!("not a message: {other:?}"),
    }
}

/// One client a connection.
fn clients(runtime: &Runtime, url: &str) -> Vec<A2aServiceClient<Channel>> {
    (0..CLIENTS)
        .map(|_| {
            runtime
                .block_on(A2aServiceClient::connect(url.to_owned()))
                .expect("connected")
                .max_decoding_message_size(8 << 20)
                .max_encoding_message_size(8 << 20)
        })
        .collect()
}

fn load(
    runtime: &Runtime,
    clients: &[A2aServiceClient<Channel>],
    message: &proto::SendMessageRequest,
    iters: u64,
) -> Duration {
    let started = std::time::Instant::now();
    runtime.block_on(async {
        let runs = clients.iter().enumerate().map(|(at, client)| {
            let mut client = client.clone();
            let message = message.clone();
            let count = iters / CLIENTS + u64::from((at as u64) < iters % CLIENTS);
            tokio::spawn(async move {
                for _ in 0..count {
                    std::hint::black_box(send(&mut client, &message).await);
                }
            })
        });
        for run in futures::future::join_all(runs).await {
            run.expect("a client's run");
        }
    });
    started.elapsed()
}

fn grpc_passthrough(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let text = "x".repeat(1024 * 1024);
    let message = request(&text);
    let mut group = c.benchmark_group("grpc_passthrough");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Bytes(text.len() as u64));
    for (echo, answer) in [(false, "length_answer"), (true, "echo_answer")] {
        let layered = clients(&runtime, &serve(&runtime, echo, true));
        let bare = clients(&runtime, &serve(&runtime, echo, false));
        group.bench_function(format!("send_message_1mib_{answer}_with_layer"), |b| {
            b.iter_custom(|iters| load(&runtime, &layered, &message, iters));
        });
        group.bench_function(format!("send_message_1mib_{answer}_sdk_alone"), |b| {
            b.iter_custom(|iters| load(&runtime, &bare, &message, iters));
        });
    }
    group.finish();
}

criterion_group!(benches, grpc_passthrough);
criterion_main!(benches);
