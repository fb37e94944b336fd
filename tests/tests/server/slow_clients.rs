//! Clients that send their request bodies a few bytes at a time, or never
//! read their responses, on a real server on 127.0.0.1: they cannot lock
//! real clients out, and a response nobody reads is cut off.
//!
//! The bound on the real client's answer (2 s) is the one the task under
//! test sets; every other bound is a safety margin, never a speed
//! expectation.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::routing::{get, post};
use learnables::a2a::serve::{ServerLimits, serve};
use learnables_tests::support::agent::Agent;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinSet;
use tokio::time::Instant;

/// One more than the default cap of 512 connections, and two to spare.
const SLOW_BODIES: usize = 515;
/// How long the slow bodies keep coming.
const FLOOD_FOR: Duration = Duration::from_secs(30);
/// How long a real client waits for its answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(2);
/// A safety margin past a deadline.
const SLACK: Duration = Duration::from_secs(10);

/// A request head announcing a body far longer than what a slow client
/// sends during the test, then its first bytes.
const SLOW_HEAD: &[u8] = b"POST / HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\n\
A2A-Version: 1.0\r\nContent-Length: 200\r\n\r\n{\"j";
/// The pause between two dribbles of a slow body: its 200 bytes would
/// take 3 bytes * 200 / 3 * 0.5 s, longer than the test.
const DRIP_EVERY: Duration = Duration::from_millis(500);
/// More reopenings than a slow client can make in `FLOOD_FOR` at the rate
/// the server closes them; a bound, not an expectation.
const MAX_REOPENINGS: usize = 100_000;

/// A client that connects, sends `SLOW_HEAD` and then its body three bytes
/// every `DRIP_EVERY`, and reconnects whenever the server closes or answers
/// it, until `end`. Counts itself in `started` after its first head.
async fn slow_body(address: SocketAddr, end: Instant, started: Arc<AtomicUsize>) {
    let mut counted = false;
    for _ in 0..MAX_REOPENINGS {
        if Instant::now() >= end {
            return;
        }
        let Ok(Ok(mut stream)) = tokio::time::timeout_at(end, TcpStream::connect(address)).await
        else {
            // Out of ports or refused: try again, within the bounds.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        if stream.write_all(SLOW_HEAD).await.is_err() {
            continue;
        }
        if !counted {
            counted = true;
            started.fetch_add(1, Ordering::Relaxed);
        }
        let mut buffer = [0u8; 512];
        // Bounded by `end`: at most FLOOD_FOR / DRIP_EVERY rounds.
        while Instant::now() < end {
            tokio::select! {
                read = stream.read(&mut buffer) => match read {
                    // Closed, or answered (408): reconnect.
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                },
                () = tokio::time::sleep(DRIP_EVERY) => {
                    if stream.write_all(b"son").await.is_err() {
                        break;
                    }
                }
            }
        }
    }
}

/// A real client's request for the agent card on a fresh connection:
/// whether it was answered `200 OK` within `ANSWER_WITHIN`.
async fn card_answered(address: SocketAddr) -> bool {
    let exchange = async {
        let mut stream = TcpStream::connect(address).await?;
        stream
            .write_all(
                b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: agent\r\nConnection: close\r\n\r\n",
            )
            .await?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await?;
        Ok::<_, std::io::Error>(answer)
    };
    match tokio::time::timeout(ANSWER_WITHIN, exchange).await {
        Ok(Ok(answer)) => {
            let answer = String::from_utf8_lossy(&answer);
            answer.starts_with("HTTP/1.1 200 OK") && answer.contains(r#""name":"Customs agent""#)
        }
        _ => false,
    }
}

#[test]
fn slow_request_bodies_beyond_the_cap_do_not_lock_a_real_client_out() {
    let dir = tempfile::tempdir().expect("a directory");
    // The example agent, served with the framework's default limits.
    let agent = Agent::start(dir.path());
    let address = agent.address;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let (answered, asked) = runtime.block_on(async move {
        let end = Instant::now() + FLOOD_FOR;
        let started = Arc::new(AtomicUsize::new(0));
        let mut flood = JoinSet::new();
        for _ in 0..SLOW_BODIES {
            flood.spawn(slow_body(address, end, Arc::clone(&started)));
        }
        // Bounded by `end`: the slow clients are all sending their bodies.
        while started.load(Ordering::Relaxed) < SLOW_BODIES && Instant::now() < end {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(
            started.load(Ordering::Relaxed),
            SLOW_BODIES,
            "the slow clients could not all connect"
        );
        let (mut answered, mut asked) = (0usize, 0usize);
        // Bounded by `end`: each round takes at least 100 ms.
        while Instant::now() < end {
            asked += 1;
            if card_answered(address).await {
                answered += 1;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::timeout(SLACK, async { while flood.join_next().await.is_some() {} })
            .await
            .expect("the slow clients stop at the end of the flood");
        (answered, asked)
    });
    agent.stop();
    println!("the real client was answered within {ANSWER_WITHIN:?} {answered} times of {asked}");
    assert!(asked >= 10, "only {asked} requests asked");
    assert!(
        answered * 10 >= asked * 9,
        "the real client was answered within {ANSWER_WITHIN:?} only {answered} times of {asked}"
    );
}

/// A response far larger than what the kernel buffers for one socket.
const LARGE: usize = 64 << 20;
/// The write timeout under test.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_its_large_response_is_cut_off_and_others_are_served() {
    let router = Router::new()
        .route("/", get(|| async { "ok" }))
        .route("/large", get(|| async { vec![b'x'; LARGE] }));
    let server = Served::start(
        router,
        ServerLimits::default().with_write_timeout(WRITE_TIMEOUT),
    )
    .await;
    let address = server.address;
    let exchange = |raw: &'static [u8]| async move {
        let mut stream = TcpStream::connect(address).await.expect("connect");
        stream.write_all(raw).await.expect("send");
        stream
    };
    const LARGE_GET: &[u8] = b"GET /large HTTP/1.1\r\nHost: test\r\n\r\n";

    // A client that reads takes its whole response, well past the write
    // timeout's worth of socket buffers.
    let mut reader = exchange(LARGE_GET).await;
    let mut head = vec![0u8; 4096];
    let mut total = 0usize;
    let whole = tokio::time::timeout(SLACK, async {
        let mut buffer = vec![0u8; 1 << 16];
        loop {
            let n = reader.read(&mut buffer).await.expect("read");
            assert!(n > 0, "closed after {total} bytes");
            if total < head.len() {
                let take = n.min(head.len() - total);
                head[total..total + take].copy_from_slice(&buffer[..take]);
            }
            total += n;
            let text = String::from_utf8_lossy(&head);
            if let Some(end) = text.find("\r\n\r\n")
                && total == end + 4 + LARGE
            {
                return;
            }
        }
    })
    .await;
    assert!(whole.is_ok(), "a reading client got only {total} bytes");

    // A client that never reads.
    let mut idle_reader = exchange(LARGE_GET).await;
    tokio::time::sleep(WRITE_TIMEOUT).await;
    // Other clients are served meanwhile.
    for _ in 0..5 {
        let mut stream =
            exchange(b"GET / HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").await;
        let mut answer = Vec::new();
        tokio::time::timeout(SLACK, stream.read_to_end(&mut answer))
            .await
            .expect("a real client is answered")
            .expect("read");
        assert!(answer.starts_with(b"HTTP/1.1 200 OK") && answer.ends_with(b"ok"));
    }
    tokio::time::sleep(WRITE_TIMEOUT * 2).await;
    // The client reads at last: what the kernel had buffered, then the end.
    let mut got = 0usize;
    let ended = tokio::time::timeout(SLACK, async {
        let mut buffer = vec![0u8; 1 << 16];
        // Bounded by SLACK and by the response's length.
        while got <= LARGE {
            match idle_reader.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got += n,
            }
        }
    })
    .await;
    assert!(
        ended.is_ok() && got < LARGE,
        "a client that did not read for twice the write timeout still got {got} of {LARGE} bytes"
    );

    server.shut_down().await;
}

/// `router` served with `limits` on 127.0.0.1.
struct Served {
    address: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Served {
    async fn start(router: Router, limits: ServerLimits) -> Served {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1");
        let address = listener.local_addr().expect("local address");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(serve(listener, router, limits, async {
            let _ = stopped.await;
        }));
        Served {
            address,
            stop,
            task,
        }
    }

    async fn shut_down(self) {
        let _ = self.stop.send(());
        tokio::time::timeout(SLACK, self.task)
            .await
            .expect("the server shuts down")
            .expect("no panic")
            .expect("no error");
    }
}

/// The body timeout under test.
const BODY_TIMEOUT: Duration = Duration::from_millis(300);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_its_handler_holds_unread_is_closed_at_the_body_deadline() {
    // A handler that waits on something else before it reads its body: its
    // connection still waits on the client for the body.
    let router = Router::new().route(
        "/hold",
        post(|body: Body| async move {
            tokio::time::sleep(Duration::from_secs(600)).await;
            drop(body);
            "late"
        }),
    );
    let server = Served::start(
        router,
        ServerLimits::default().with_body_read_timeout(BODY_TIMEOUT),
    )
    .await;
    let mut stream = TcpStream::connect(server.address).await.expect("connect");
    stream
        .write_all(b"POST /hold HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\nonly part")
        .await
        .expect("send");
    // The deadline, the second a reading handler has to answer 408, and a
    // safety margin.
    let mut read = Vec::new();
    let closed = tokio::time::timeout(
        BODY_TIMEOUT + Duration::from_secs(1) + SLACK,
        stream.read_to_end(&mut read),
    )
    .await;
    assert!(
        closed.is_ok(),
        "a connection whose body never arrived is still open"
    );
    assert!(read.is_empty(), "{:?}", String::from_utf8_lossy(&read));
    server.shut_down().await;
}

/// A body of `chunks` times 64 KiB, made as it is sent.
fn streamed(chunks: usize) -> Body {
    static CHUNK: [u8; 1 << 16] = [b'x'; 1 << 16];
    let chunks = (0..chunks).map(|_| Ok::<_, std::convert::Infallible>(&CHUNK[..]));
    Body::from_stream(futures::stream::iter(chunks))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_do_not_read_give_way_to_a_real_client_at_the_cap() {
    const CAP: usize = 8;
    // Only the cap protects here: no write timeout runs out during the test.
    let limits = ServerLimits::default()
        .with_max_connections(CAP)
        .with_write_timeout(Duration::from_secs(600));
    let router = Router::new()
        .route("/", get(|| async { "ok" }))
        .route("/large", get(|| async { streamed(1024) }));
    let server = Served::start(router, limits).await;
    let mut not_reading = Vec::new();
    for _ in 0..CAP + 4 {
        let mut stream = TcpStream::connect(server.address).await.expect("connect");
        stream
            .write_all(b"GET /large HTTP/1.1\r\nHost: test\r\n\r\n")
            .await
            .expect("send");
        not_reading.push(stream);
    }
    for _ in 0..3 {
        let mut stream = TcpStream::connect(server.address).await.expect("connect");
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
            .await
            .expect("send");
        let mut answer = Vec::new();
        tokio::time::timeout(SLACK, stream.read_to_end(&mut answer))
            .await
            .expect("a real client is answered while every slot holds a client that does not read")
            .expect("read");
        assert!(answer.starts_with(b"HTTP/1.1 200 OK") && answer.ends_with(b"ok"));
    }
    drop(not_reading);
    server.shut_down().await;
}
