//! What scrubbing costs a large response: a 200 MB `GetTask`-shaped
//! response (a task whose history holds 100,000 questions, each with a
//! teach block) through the Learnables layer to a client that did not
//! activate the extension (every block removed as the body flows), against
//! the same response from the same host without the layer, and through the
//! layer to a client that activated (passed through), in the same run.
//! Each run's host is a child process of its own, so its peak resident
//! memory (`VmHWM`) is its own, and the client reads in this process, as a
//! real client does in its own. Reported: throughput (the host's response
//! read to its end over 127.0.0.1, per second: the same 200 MB response on
//! every side, so the ratio is one of times; the bytes the client reads are
//! also given, fewer when scrubbed by the blocks removed), time to the
//! first byte, and peak memory; the goals are at least 0.8 of the
//! throughput without the layer, and under 2x the activated client's peak
//! memory.
//!
//! The host is a handler that sends one chunk made once again and again,
//! so that it costs almost nothing and the ratio is the scrubber's worst
//! case; with `--sdk`, it is the official A2A server SDK's JSON-RPC router
//! answering `GetTask` for a task of the same 100,000 messages held in its
//! in-memory store (what an agent built on the SDK serves).
//!
//! `cargo bench -p learnables-benches --bench layer_scrub` (with `--sdk`, the
//! SDK's host; with `--test`, one
//! small round; with `--scrub-only [ROUNDS]`, the scrubber alone over the
//! same body in memory, no HTTP, 3 rounds unless told; with `--counted`,
//! the instructions the scrubber alone spends per byte of that body, counted
//! under Valgrind's cachegrind: a run of one round less a run of none).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

mod cachegrind;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::response::Response;
use axum::routing::get;
use futures::stream::{self, BoxStream};
use learnables::a2a::{LearnablesLayer, LearnablesService, Tokens};
use learnables::{Declaration, EXTENSION_URI, Knowledge};

/// Messages in the history of each chunk the host sends.
const PER_CHUNK: usize = 16;

fn message(index: usize) -> String {
    let text = "Which desk handles chapter 85? ".repeat(64);
    format!(
        r#"{{"messageId":"m{index}","role":"ROLE_AGENT","parts":[{{"text":"{text}"}}],"metadata":{{"{EXTENSION_URI}":{{"teach":{{"collection":"routing_rules","entry":"85"}}}}}},"extensions":["{EXTENSION_URI}"]}}"#
    )
}

/// The response: a head, `chunks` chunks of messages (one chunk made once
/// and sent again, so the host costs almost nothing), the tail.
fn response(chunks: usize) -> Response {
    let head = Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"result":"#);
    let head = [head, Bytes::from_static(TASK_HEAD)].concat().into();
    let mut first = Vec::new();
    let mut next = Vec::new();
    for index in 0..PER_CHUNK {
        if index > 0 {
            first.push(b',');
        }
        next.push(b',');
        first.extend_from_slice(message(index).as_bytes());
        next.extend_from_slice(message(index).as_bytes());
    }
    let (first, next) = (Bytes::from(first), Bytes::from(next));
    let body = (0..chunks).map(move |chunk| {
        if chunk == 0 {
            first.clone()
        } else {
            next.clone()
        }
    });
    let parts = std::iter::once(head)
        .chain(body)
        .chain(std::iter::once(Bytes::from_static(b"]}}")));
    let mut response = Response::new(Body::from_stream(stream::iter(
        parts.map(Ok::<_, std::io::Error>),
    )));
    response.headers_mut().insert(
        "content-type",
        axum::http::HeaderValue::from_static("application/json"),
    );
    response
}

/// The task's JSON up to its first message.
const TASK_HEAD: &[u8] =
    br#"{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED"},"history":["#;

/// `count` messages, comma-separated, as a history array holds them.
fn history(count: usize) -> Vec<u8> {
    let mut messages = Vec::new();
    for index in 0..count {
        if index > 0 {
            messages.push(b',');
        }
        messages.extend_from_slice(message(index % PER_CHUNK).as_bytes());
    }
    messages
}

/// The same task as `response`'s, `chunks * PER_CHUNK` messages, as the SDK
/// holds it.
fn task(chunks: usize) -> a2a::Task {
    let json = [TASK_HEAD, &history(chunks * PER_CHUNK), b"]}"].concat();
    serde_json::from_slice(&json).unwrap()
}

/// The SDK's executor, never called: the task is in the store already.
struct Idle;

impl a2a_server::AgentExecutor for Idle {
    fn execute(
        &self,
        _: a2a_server::ExecutorContext,
    ) -> BoxStream<'static, Result<a2a::StreamResponse, a2a::A2AError>> {
        Box::pin(stream::empty())
    }

    fn cancel(
        &self,
        _: a2a_server::ExecutorContext,
    ) -> BoxStream<'static, Result<a2a::StreamResponse, a2a::A2AError>> {
        Box::pin(stream::empty())
    }
}

/// The SDK's JSON-RPC router, its store holding the task.
async fn sdk_host(chunks: usize) -> Router {
    use a2a_server::TaskStore as _;
    let store = a2a_server::InMemoryTaskStore::new();
    store.create(task(chunks)).await.unwrap();
    a2a_server::jsonrpc::jsonrpc_router(Arc::new(a2a_server::DefaultRequestHandler::new(
        Idle, store,
    )))
}

/// The host, in this (child) process: serves the response on 127.0.0.1,
/// prints its port, and once stdin closes (the parent has read the body)
/// prints its peak memory in KiB and exits. The client runs in the parent,
/// as a real client runs in a process of its own.
fn serve(mode: &str, chunks: usize, sdk: bool) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let host = if sdk {
        runtime.block_on(sdk_host(chunks))
    } else {
        Router::new().route("/task", get(move || async move { response(chunks) }))
    };
    let router = if mode == "bare" {
        host
    } else {
        host.layer(LearnablesLayer::new(LearnablesService::new(
            Knowledge::in_memory(),
            Declaration::new(),
            Tokens::new(),
        )))
    };
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address: SocketAddr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        println!("{}", address.port());
        tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink()))
            .await
            .unwrap()
            .unwrap();
        println!("{}", peak_kib());
    });
}

fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}

/// A run: the host in a child process, the body read here to its end.
/// (bytes read, seconds to the first byte, seconds in all, the host's
/// peak KiB).
fn run(mode: &str, chunks: usize, sdk: bool) -> (u64, f64, f64, u64) {
    let host_kind = if sdk { "sdk" } else { "chunks" };
    let mut host = Command::new(std::env::current_exe().unwrap())
        .args(["--serve", mode, &chunks.to_string(), host_kind])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    let port: u16 = lines.next().unwrap().unwrap().parse().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (bytes, first, total) = runtime.block_on(async move {
        learnables_examples::install_crypto_provider();
        let client = reqwest::Client::new();
        let mut request = if sdk {
            client
                .post(format!("http://127.0.0.1:{port}/"))
                .header("A2A-Version", "1.0")
                .header("Content-Type", "application/json")
                .body(r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t1"}}"#)
        } else {
            client.get(format!("http://127.0.0.1:{port}/task"))
        };
        if mode == "activated" {
            request = request.header("A2A-Extensions", EXTENSION_URI);
        }
        let start = Instant::now();
        let mut response = request.send().await.unwrap();
        assert!(response.status().is_success(), "{}", response.status());
        let mut first = None;
        let mut bytes = 0u64;
        while let Some(chunk) = response.chunk().await.unwrap() {
            first.get_or_insert_with(|| start.elapsed());
            bytes += chunk.len() as u64;
        }
        let total = start.elapsed();
        (bytes, first.unwrap_or(total), total)
    });
    drop(host.stdin.take());
    let peak: u64 = lines.next().unwrap().unwrap().parse().unwrap();
    assert!(host.wait().unwrap().success());
    (bytes, first.as_secs_f64(), total.as_secs_f64(), peak)
}

/// The body `--scrub-only` scrubs: 100,000 messages in one array.
fn scrub_only_body() -> Vec<u8> {
    [&b"["[..], &history(100_000), b"]"].concat()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == "--serve") {
        serve(
            &args[at + 1],
            args[at + 2].parse().unwrap(),
            args[at + 3] == "sdk",
        );
        return;
    }
    if let Some(at) = args.iter().position(|arg| arg == "--scrub-only") {
        let rounds = args.get(at + 1).and_then(|n| n.parse().ok()).unwrap_or(3);
        let body = scrub_only_body();
        // One output buffer for every round, touched once before them: the
        // rounds time the scrubber, not the kernel's first touch of 200 MB.
        let mut out = vec![1u8; body.len()];
        for _ in 0..rounds {
            out.clear();
            let start = Instant::now();
            let mut scrubber =
                learnables::a2a::ResponseScrubber::new(Some("application/json"), None).unwrap();
            for chunk in body.chunks(32 * 1024) {
                scrubber.feed(chunk, &mut out).unwrap();
            }
            scrubber.finish(&mut out).unwrap();
            let took = start.elapsed();
            println!(
                "scrub only: {} MB in {:?}: {:.0} MB/s",
                body.len() / 1_000_000,
                took,
                body.len() as f64 / took.as_secs_f64() / 1e6
            );
        }
        return;
    }
    if args.iter().any(|arg| arg == "--counted") {
        let bytes = scrub_only_body().len() as f64;
        let args = |rounds: u64| vec!["--scrub-only".to_owned(), rounds.to_string()];
        match cachegrind::per_operation(args, 1) {
            Some(counts) => println!(
                "layer_scrub counted: {:.3} instructions and {:.4} level-1 data misses per byte scrubbed ({} MB, the scrubber alone, its input and output copied by `feed`)",
                counts.instructions / bytes,
                counts.l1_data_misses / bytes,
                bytes as u64 / 1_000_000
            ),
            None => println!("layer_scrub counted: valgrind did not run"),
        }
        return;
    }
    let test = args.iter().any(|arg| arg == "--test");
    if test {
        // Both hosts, so that neither rots.
        measure(true, false);
        measure(true, true);
    } else {
        measure(false, args.iter().any(|arg| arg == "--sdk"));
    }
}

/// Every side, round after round, and the ratios; one small round in test
/// mode; the SDK's host with `sdk`.
fn measure(test: bool, sdk: bool) {
    let message_bytes = message(0).len() + 1;
    // 200 MB, or one small round in test mode.
    let chunks = if test {
        16
    } else {
        200_000_000 / (message_bytes * PER_CHUNK) + 1
    };
    let rounds = if test { 1 } else { 5 };
    let modes = ["bare", "scrubbed", "activated"];
    let mut times = vec![Vec::new(); 3];
    let mut firsts = vec![Vec::new(); 3];
    let mut peaks = vec![Vec::new(); 3];
    let mut sizes = [0; 3];
    for round in 0..rounds {
        // Alternate the order, so neither side always runs first.
        let order: Vec<usize> = if round % 2 == 0 {
            vec![0, 1, 2]
        } else {
            vec![2, 1, 0]
        };
        for mode in order {
            let (bytes, first, total, peak) = run(modes[mode], chunks, sdk);
            sizes[mode] = bytes;
            times[mode].push(total);
            firsts[mode].push(first * 1e3);
            peaks[mode].push(peak as f64 / 1024.0);
        }
    }
    // The host's response: what the client reads without the layer.
    let response_bytes = sizes[0] as f64;
    let took: Vec<f64> = times.iter_mut().map(|times| median(times)).collect();
    for mode in 0..3 {
        println!(
            "layer_scrub {:>9}: {:>7.1} MB/s of the response ({:>11} bytes read), first byte {:>7.2} ms, peak {:>6.1} MiB (medians of {rounds})",
            modes[mode],
            response_bytes / took[mode] / 1e6,
            sizes[mode],
            median(&mut firsts[mode]),
            median(&mut peaks[mode]),
        );
    }
    let ratio = took[0] / took[1];
    let read_ratio = ratio * sizes[1] as f64 / response_bytes;
    let memory = median(&mut peaks[1]) / median(&mut peaks[2]);
    let first = median(&mut firsts[1]) / median(&mut firsts[2]);
    let host = if sdk {
        "the SDK's GetTask"
    } else {
        "a host that costs nothing"
    };
    println!(
        "layer_scrub ({host}): throughput {ratio:.2} of the host without the layer (goal >= 0.8; in bytes read {read_ratio:.2}); peak memory {memory:.2}x and first byte {first:.2}x the activated client's (goals < 2)"
    );
}
