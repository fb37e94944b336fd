//! Teach round trips over HTTP under concurrent load, against a bare axum
//! JSON echo endpoint in the same run: the customs agent's
//! `rsaxb.learnables.Teach` through the Learnables layer over the official
//! A2A server SDK's routers (JSON-RPC, activation, bearer authentication,
//! teacher check, the lesson parsed and committed) next to a server that
//! only parses the same body into a `serde_json::Value` and answers a small
//! JSON object. Both are measured as requests per second by 16 concurrent
//! clients over keep-alive connections; the goal is teach throughput at
//! least 0.8 of echo throughput. Criterion measures the two one after the
//! other; the machine's speed drifts between them, so the bench then runs
//! paired rounds (teach and echo back to back, in alternating order) and
//! prints the median of their ratios.
//!
//! `cargo bench -p learnables-benches --bench http_teach`

use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::routing::post;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use learnables::Knowledge;
use learnables_examples::customs_agent::{self, Teacher};
use learnables_tests::loopback;
use serde_json::{Value, json};
use tokio::runtime::Runtime;

/// Concurrent client tasks.
const CLIENTS: u64 = 16;
const EMAIL: &str = "alice@example.com";
const TOKEN: &str = "bench-token";
const DESKS: [&str; 3] = ["general", "dangerous-goods", "cold chain"];

/// The teach body of the `n`th request. Entries cycle through the 96 HS
/// chapters and each round moves every chapter to the next desk, so a
/// lesson differs from the entry's current value and learns (bar the few
/// that concurrent clients send out of order).
fn teach_body(n: u64) -> String {
    let count = learnables_examples::Chapter::COUNT as u64;
    let chapter = learnables_examples::Chapter::nth((n % count) as usize);
    let desk = DESKS[((n / count) % 3) as usize];
    json!({
        "jsonrpc": "2.0",
        "id": n,
        "method": "rsaxb.learnables.Teach",
        "params": {
            "collection": "routing_rules",
            "entry": chapter.to_string(),
            "value": {"chapter": chapter.to_string(), "desk": desk},
            "taughtBy": EMAIL,
        },
    })
    .to_string()
}

/// The bare endpoint: the body parsed into a `Value`, a small JSON answer.
async fn echo(Json(body): Json<Value>) -> Json<Value> {
    Json(json!({
        "jsonrpc": "2.0",
        "id": body.get("id").cloned().unwrap_or(Value::Null),
        "result": {"learned": true},
    }))
}

/// One endpoint under load: where it is, and the request counter that
/// numbers the bodies sent to it.
#[derive(Clone)]
struct Target {
    url: String,
    next: Arc<AtomicU64>,
    learned: Arc<AtomicU64>,
}

impl Target {
    fn new(address: SocketAddr) -> Target {
        Target {
            url: format!("http://{address}/"),
            next: Arc::new(AtomicU64::new(0)),
            learned: Arc::new(AtomicU64::new(0)),
        }
    }

    async fn send(&self, client: &reqwest::Client) -> Value {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let response = client
            .post(&self.url)
            .header("A2A-Version", "1.0")
            .header(learnables::ACTIVATION_HEADER, learnables::EXTENSION_URI)
            .header("Authorization", format!("Bearer {TOKEN}"))
            .header("Content-Type", "application/json")
            .body(teach_body(n))
            .send()
            .await
            .expect("a response");
        assert!(response.status().is_success(), "{}", response.status());
        let answer: Value = response.json().await.expect("a JSON answer");
        if answer["result"]["learned"] == true {
            self.learned.fetch_add(1, Ordering::Relaxed);
        }
        answer
    }

    /// Sends `iters` requests from [`CLIENTS`] concurrent tasks; the time
    /// from the first sent to the last answered.
    fn load(&self, runtime: &Runtime, client: &reqwest::Client, iters: u64) -> Duration {
        learnables_tests::load::spread(runtime, CLIENTS, iters, |count| {
            let target = self.clone();
            let client = client.clone();
            async move {
                for _ in 0..count {
                    black_box(target.send(&client).await);
                }
            }
        })
    }
}

fn http_teach(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");

    // In memory, so that the comparison measures the HTTP, JSON-RPC,
    // authentication and teach path rather than the store's sync to disk.
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).expect("register the agent's learnables");
    let teachers = [Teacher {
        email: EMAIL.to_owned(),
        token: TOKEN.to_owned(),
    }];
    let _entered = runtime.enter();
    // The card's URL only has to be well formed.
    let agent = customs_agent::router(knowledge.clone(), &teachers, "http://127.0.0.1/")
        .expect("the agent's router");
    let teach = Target::new(loopback::serve_on(&runtime, agent));
    let echo = Target::new(loopback::serve_on(
        &runtime,
        Router::new().route("/", post(echo)),
    ));

    let client = learnables_tests::load::client(CLIENTS as usize);

    // Both endpoints answer as expected before anything is timed.
    runtime.block_on(async {
        let answer = teach.send(&client).await;
        assert_eq!(answer["result"]["learned"], true, "{answer}");
        assert!(answer["result"]["definitionVersion"].is_u64(), "{answer}");
        let answer = echo.send(&client).await;
        assert_eq!(answer["result"]["learned"], true, "{answer}");
    });

    let mut group = c.benchmark_group("http_teach");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(1));
    group.bench_function("teach", |b| {
        b.iter_custom(|iters| teach.load(&runtime, &client, iters));
    });
    group.bench_function("echo", |b| {
        b.iter_custom(|iters| echo.load(&runtime, &client, iters));
    });
    group.finish();

    paired_rounds(&runtime, &client, &teach, &echo);

    let sent = teach.next.load(Ordering::Relaxed);
    let learned = teach.learned.load(Ordering::Relaxed);
    println!(
        "teach: {learned} of {sent} lessons learned; the knowledge is at definition version {}",
        knowledge.history("routing_rules").len()
    );
}

/// Rounds of teach and echo back to back, for a ratio that the machine's
/// speed, which drifts over the seconds between criterion's two
/// measurements, moves much less: each round's two halves run within a
/// second of each other, in alternating order.
const ROUNDS: usize = 10;
/// Round trips in each half of a round.
const ROUND_TRIPS: u64 = 20_000;

/// Runs [`ROUNDS`] paired rounds and prints the teach/echo ratios of
/// their throughput: the median, and the range.
/// Under `cargo bench -- --test` (a check that the bench runs), one short
/// round.
fn paired_rounds(runtime: &Runtime, client: &reqwest::Client, teach: &Target, echo: &Target) {
    let testing = std::env::args().any(|arg| arg == "--test");
    let (rounds, round_trips) = if testing {
        (1, 100)
    } else {
        (ROUNDS, ROUND_TRIPS)
    };
    let mut ratios: Vec<f64> = (0..rounds)
        .map(|round| {
            let (teach_time, echo_time) = if round % 2 == 0 {
                let teach_time = teach.load(runtime, client, round_trips);
                (teach_time, echo.load(runtime, client, round_trips))
            } else {
                let echo_time = echo.load(runtime, client, round_trips);
                (teach.load(runtime, client, round_trips), echo_time)
            };
            echo_time.as_secs_f64() / teach_time.as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let median = (ratios[(rounds - 1) / 2] + ratios[rounds / 2]) / 2.0;
    println!(
        "teach/echo throughput over {rounds} paired rounds of {round_trips} round trips each: \
         median {median:.2}, range {:.2}-{:.2}",
        ratios[0],
        ratios[rounds - 1]
    );
}

criterion_group!(benches, http_teach);
criterion_main!(benches);
