//! The cost of the server's limits: the same small JSON endpoint served by
//! `learnables::a2a::serve::serve` (timeouts, connection cap) and by
//! `axum::serve` (none), in the same run, as requests per second from 16
//! concurrent clients: over kept-alive connections, and with a new
//! connection per request.
//!
//! `cargo bench -p learnables-benches --bench server_limits`

use std::hint::black_box;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::routing::post;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use learnables::a2a::serve::{ServerLimits, serve};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

/// Concurrent client tasks.
const CLIENTS: u64 = 16;

async fn echo(Json(body): Json<Value>) -> Json<Value> {
    Json(json!({"id": body.get("id").cloned().unwrap_or(Value::Null), "ok": true}))
}

async fn listener() -> (tokio::net::TcpListener, SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind an ephemeral port");
    let address = listener.local_addr().expect("the bound address");
    (listener, address)
}

/// Sends `iters` requests to `url` from [`CLIENTS`] concurrent tasks; the
/// time from the first sent to the last answered.
fn load(runtime: &Runtime, client: &reqwest::Client, url: &str, iters: u64) -> Duration {
    learnables_tests::load::spread(runtime, CLIENTS, iters, |count| {
        let client = client.clone();
        let url = url.to_owned();
        async move {
            for n in 0..count {
                let response = client
                    .post(&url)
                    .header("Content-Type", "application/json")
                    .body(json!({"id": n, "params": {"entry": "85"}}).to_string())
                    .send()
                    .await
                    .expect("a response");
                assert!(response.status().is_success(), "{}", response.status());
                black_box(response.bytes().await.expect("a body"));
            }
        }
    })
}

fn server_limits(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let (limited, bare) = runtime.block_on(async {
        let router = Router::new().route("/", post(echo));
        let (limited_listener, limited) = listener().await;
        let (bare_listener, bare) = listener().await;
        let limited_router = router.clone();
        tokio::spawn(async move {
            serve(
                limited_listener,
                limited_router,
                ServerLimits::default(),
                std::future::pending(),
            )
            .await
            .expect("serve");
        });
        tokio::spawn(async move {
            axum::serve(bare_listener, router).await.expect("serve");
        });
        (format!("http://{limited}/"), format!("http://{bare}/"))
    });

    let kept_alive = learnables_tests::load::client(CLIENTS as usize);
    let fresh = learnables_tests::load::client(0);

    let mut group = c.benchmark_group("server_limits");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(1));
    for (name, client) in [("keep_alive", &kept_alive), ("new_connection", &fresh)] {
        group.bench_function(format!("{name}/serve_with_limits"), |b| {
            b.iter_custom(|iters| load(&runtime, client, &limited, iters));
        });
        group.bench_function(format!("{name}/axum_serve"), |b| {
            b.iter_custom(|iters| load(&runtime, client, &bare, iters));
        });
    }
    group.finish();
}

criterion_group!(benches, server_limits);
criterion_main!(benches);
