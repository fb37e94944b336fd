//! What the Learnables layer costs the host's own traffic: a 1 MiB
//! `SendMessage` to the official A2A server SDK's JSON-RPC router with the
//! layer over it, against the same request to the same router without the
//! layer, in the same run. The executor only answers with the length of the
//! text it received. Measured as requests per second from 4 concurrent
//! clients over keep-alive connections; the goal is at least 0.95.
//!
//! `cargo bench -p learnables-benches --bench layer_passthrough`

use std::sync::Arc;
use std::time::Duration;

use a2a::{A2AError, Message, Part, Role, StreamResponse};
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::{AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore};
use axum::Router;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::stream::{self, BoxStream};
use learnables::a2a::{LearnablesLayer, LearnablesService, Tokens};
use learnables::{Declaration, Knowledge, TEACH_METHOD};
use learnables_tests::loopback;
use serde_json::{Value, json};
use tokio::runtime::Runtime;

const CLIENTS: u64 = 4;

/// Answers with the length of the text it received.
struct LengthExecutor;

impl AgentExecutor for LengthExecutor {
    fn execute(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let length: usize = context
            .message
            .iter()
            .flat_map(|message| message.parts.iter())
            .filter_map(Part::as_text)
            .map(str::len)
            .sum();
        let reply = Message::new(Role::Agent, vec![Part::text(length.to_string())]);
        Box::pin(stream::once(
            async move { Ok(StreamResponse::Message(reply)) },
        ))
    }

    fn cancel(&self, _: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        Box::pin(stream::empty())
    }
}

fn sdk_router() -> Router {
    jsonrpc_router(Arc::new(DefaultRequestHandler::new(
        LengthExecutor,
        InMemoryTaskStore::new(),
    )))
}

async fn send(client: &reqwest::Client, url: &str, body: &bytes::Bytes) -> Value {
    let response = client
        .post(url)
        .header("A2A-Version", "1.0")
        .header("Content-Type", "application/json")
        .body(body.clone())
        .send()
        .await
        .expect("a response");
    assert!(response.status().is_success(), "{}", response.status());
    response.json().await.expect("a JSON answer")
}

fn load(
    runtime: &Runtime,
    client: &reqwest::Client,
    url: &str,
    body: &bytes::Bytes,
    iters: u64,
) -> Duration {
    learnables_tests::load::spread(runtime, CLIENTS, iters, |count| {
        let client = client.clone();
        let url = url.to_owned();
        let body = body.clone();
        async move {
            for _ in 0..count {
                std::hint::black_box(send(&client, &url, &body).await);
            }
        }
    })
}

fn layer_passthrough(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let service = LearnablesService::new(
        Knowledge::in_memory(),
        Declaration::new().teach_method(TEACH_METHOD),
        Tokens::new(),
    );
    let _entered = runtime.enter();
    let layered = loopback::serve_on(&runtime, sdk_router().layer(LearnablesLayer::new(service)));
    let bare = loopback::serve_on(&runtime, sdk_router());
    let text = "x".repeat(1024 * 1024);
    let body = bytes::Bytes::from(
        json!({
            "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": {"messageId": "m", "role": "ROLE_USER",
                                    "parts": [{"text": text}]}}
        })
        .to_string(),
    );
    let client = learnables_tests::load::client(CLIENTS as usize);
    let layered = format!("http://{layered}/");
    let bare = format!("http://{bare}/");
    runtime.block_on(async {
        for url in [&layered, &bare] {
            let answer = send(&client, url, &body).await;
            assert_eq!(
                answer["result"]["message"]["parts"][0]["text"],
                text.len().to_string(),
                "{answer}"
            );
        }
    });

    let mut group = c.benchmark_group("layer_passthrough");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("send_message_1mib_with_layer", |b| {
        b.iter_custom(|iters| load(&runtime, &client, &layered, &body, iters));
    });
    group.bench_function("send_message_1mib_sdk_alone", |b| {
        b.iter_custom(|iters| load(&runtime, &client, &bare, &body, iters));
    });
    group.finish();
}

criterion_group!(benches, layer_passthrough);
criterion_main!(benches);
