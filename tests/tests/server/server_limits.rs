//! The server's limits against hostile clients, on a real server on
//! 127.0.0.1: clients stalled in a request's head, in its body, or idle
//! after a request are closed within the timeout while a real client keeps
//! being answered; a flood of idle connections beyond the cap does not keep
//! real clients out.
//!
//! Every bound below is a safety margin (the timeout plus seconds), never a
//! speed expectation.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::routing::{get, post};
use learnables::a2a::serve::{ServerLimits, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinSet;

/// Stalled clients of each kind.
const STALLED: usize = 64;
/// The timeout under test.
const SHORT: Duration = Duration::from_millis(300);
/// The timeouts not under test: longer than any test runs.
const LONG: Duration = Duration::from_secs(600);
/// How long past its timeout a stalled connection may stay open.
const SLACK: Duration = Duration::from_secs(5);
/// How long a real client may wait for its answer.
const ANSWERED_WITHIN: Duration = Duration::from_secs(30);

/// A server on 127.0.0.1 with `limits`: `GET /` answers `ok`, `POST /echo`
/// answers the length of the body it read.
struct Server {
    address: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Server {
    async fn start(limits: ServerLimits) -> Server {
        let router = Router::new().route("/", get(|| async { "ok" })).route(
            "/echo",
            post(|body: Bytes| async move { body.len().to_string() }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1");
        let address = listener.local_addr().expect("local address");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(listener, router, limits, async {
            let _ = stopped.await;
        }));
        Server {
            address,
            stop: Some(stop),
            task,
        }
    }

    async fn shut_down(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(LONG, self.task)
            .await
            .expect("the server shuts down")
            .expect("the server task does not panic")
            .expect("the server ends without an error");
    }
}

/// One request on a fresh connection, as a real client sends it; the whole
/// answer, read to the server's close.
async fn request(address: SocketAddr, raw: &str) -> String {
    let exchange = async {
        let mut stream = TcpStream::connect(address).await?;
        stream.write_all(raw.as_bytes()).await?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await?;
        Ok::<_, std::io::Error>(String::from_utf8_lossy(&answer).into_owned())
    };
    tokio::time::timeout(ANSWERED_WITHIN, exchange)
        .await
        .expect("a real client is answered")
        .expect("a real client's exchange succeeds")
}

const GET: &str = "GET / HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";
const ECHO: &str =
    "POST /echo HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello";

/// A real client asking again and again until told to stop; how many
/// answers it got, each checked.
fn real_client(address: SocketAddr, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<usize> {
    tokio::spawn(async move {
        let mut answered = 0;
        while !stop.load(Ordering::Relaxed) || answered == 0 {
            let answer = request(address, GET).await;
            assert!(
                answer.starts_with("HTTP/1.1 200 OK") && answer.ends_with("ok"),
                "{answer:?}"
            );
            let answer = request(address, ECHO).await;
            assert!(
                answer.starts_with("HTTP/1.1 200 OK") && answer.ends_with("\r\n\r\n5"),
                "{answer:?}"
            );
            answered += 2;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        answered
    })
}

/// Reads `stream` to its end (EOF or reset), within `bound`; what it read.
async fn closed_within(mut stream: TcpStream, bound: Duration) -> Option<Vec<u8>> {
    tokio::time::timeout(bound, async {
        let mut read = Vec::new();
        let mut buffer = [0u8; 1024];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return read,
                Ok(n) => read.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await
    .ok()
}

/// Opens `STALLED` connections, each sent `prefix` (after `setup`'s
/// request when given), then checks each is closed within `SHORT + SLACK`
/// while a real client is answered throughout; what each one read.
async fn stall_and_serve(limits: ServerLimits, setup: Option<&str>, prefix: &str) -> Vec<Vec<u8>> {
    let server = Server::start(limits).await;
    let address = server.address;
    let mut stalled = Vec::new();
    for _ in 0..STALLED {
        let mut stream = TcpStream::connect(address).await.expect("connect");
        if let Some(setup) = setup {
            stream.write_all(setup.as_bytes()).await.expect("send");
            let mut head = Vec::new();
            let mut buffer = [0u8; 256];
            while !String::from_utf8_lossy(&head).ends_with("ok") {
                let n = stream.read(&mut buffer).await.expect("read the answer");
                assert!(n > 0, "closed before answering: {head:?}");
                head.extend_from_slice(&buffer[..n]);
            }
        }
        stream.write_all(prefix.as_bytes()).await.expect("send");
        stalled.push(stream);
    }

    let stop = Arc::new(AtomicBool::new(false));
    let client = real_client(address, Arc::clone(&stop));
    let mut waits = JoinSet::new();
    for stream in stalled {
        waits.spawn(closed_within(stream, SHORT + SLACK));
    }
    let mut reads = Vec::new();
    while let Some(read) = waits.join_next().await {
        let read = read.expect("no panic");
        assert!(
            read.is_some(),
            "a stalled connection was still open {:?} after its timeout",
            SLACK
        );
        reads.extend(read);
    }
    stop.store(true, Ordering::Relaxed);
    let answered = client.await.expect("the real client never failed");
    assert!(answered > 0);
    let answer = request(address, GET).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer:?}");
    server.shut_down().await;
    reads
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_stalled_in_the_head_are_closed_while_others_are_served() {
    let limits = ServerLimits::default()
        .with_header_read_timeout(SHORT)
        .with_body_read_timeout(LONG)
        .with_idle_timeout(LONG);
    let reads = stall_and_serve(limits, None, "GET / HTTP/1.1\r\nHost: te").await;
    assert!(
        reads.iter().all(Vec::is_empty),
        "a half-sent head is not answered"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_are_closed_by_the_head_timeout() {
    let limits = ServerLimits::default()
        .with_header_read_timeout(SHORT)
        .with_body_read_timeout(LONG)
        .with_idle_timeout(LONG);
    let reads = stall_and_serve(limits, None, "").await;
    assert!(reads.iter().all(Vec::is_empty));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_stalled_in_the_body_get_408_and_are_closed_while_others_are_served() {
    let limits = ServerLimits::default()
        .with_header_read_timeout(LONG)
        .with_body_read_timeout(SHORT)
        .with_idle_timeout(LONG);
    let reads = stall_and_serve(
        limits,
        None,
        "POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\nonly part of it",
    )
    .await;
    for read in reads {
        let read = String::from_utf8_lossy(&read);
        assert!(read.starts_with("HTTP/1.1 408 Request Timeout"), "{read:?}");
        assert!(read.contains("connection: close"), "{read:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_idle_after_a_request_are_closed_while_others_are_served() {
    let limits = ServerLimits::default()
        .with_header_read_timeout(LONG)
        .with_body_read_timeout(LONG)
        .with_idle_timeout(SHORT);
    let reads = stall_and_serve(limits, Some("GET / HTTP/1.1\r\nHost: test\r\n\r\n"), "").await;
    assert!(reads.iter().all(Vec::is_empty));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_idle_connections_beyond_the_cap_does_not_keep_real_clients_out() {
    const CAP: usize = 32;
    const FLOOD: usize = 200;
    // Only the cap protects here: no timeout runs out during the test.
    let limits = ServerLimits::default()
        .with_header_read_timeout(LONG)
        .with_body_read_timeout(LONG)
        .with_idle_timeout(LONG)
        .with_max_connections(CAP);
    let server = Server::start(limits).await;
    let address = server.address;

    let stop = Arc::new(AtomicBool::new(false));
    let client = real_client(address, Arc::clone(&stop));
    let closed = Arc::new(AtomicUsize::new(0));
    let mut flood = JoinSet::new();
    for i in 0..FLOOD {
        let mut stream = TcpStream::connect(address).await.expect("connect");
        if i % 2 == 0 {
            // Idle after a request of its own, kept alive.
            stream
                .write_all(b"GET / HTTP/1.1\r\nHost: test\r\n\r\n")
                .await
                .expect("send");
        }
        let closed = Arc::clone(&closed);
        flood.spawn(async move {
            let mut buffer = [0u8; 256];
            loop {
                match stream.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            closed.fetch_add(1, Ordering::Relaxed);
        });
    }
    // A real client that arrives after the flood is answered too.
    for _ in 0..10 {
        let answer = request(address, ECHO).await;
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer:?}");
    }
    stop.store(true, Ordering::Relaxed);
    let answered = client.await.expect("the real client never failed");
    assert!(answered > 0);

    // The server keeps at most CAP connections: all but CAP of the flood
    // have been closed (a safety bound, not a speed one).
    let all_but_cap = FLOOD - CAP;
    let waited = tokio::time::timeout(SLACK, async {
        while closed.load(Ordering::Relaxed) < all_but_cap {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(
        waited.is_ok(),
        "only {} of {FLOOD} flood connections closed with a cap of {CAP}",
        closed.load(Ordering::Relaxed)
    );
    assert!(closed.load(Ordering::Relaxed) <= FLOOD);
    flood.abort_all();
    server.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_a_request_in_flight_finish_and_closes_idle_connections() {
    let limits = ServerLimits::default()
        .with_header_read_timeout(LONG)
        .with_body_read_timeout(LONG)
        .with_idle_timeout(LONG);
    let server = Server::start(limits).await;
    let address = server.address;
    let mut idle = TcpStream::connect(address).await.expect("connect");
    idle.write_all(b"GET / HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .expect("send");
    let mut answer = [0u8; 256];
    let n = idle.read(&mut answer).await.expect("answer");
    assert!(answer[..n].starts_with(b"HTTP/1.1 200 OK"));
    // A request whose body is still on its way when shutdown begins.
    let mut busy = TcpStream::connect(address).await.expect("connect");
    busy.write_all(b"POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\n\r\nhello")
        .await
        .expect("send");
    tokio::time::sleep(Duration::from_millis(100)).await;

    let Server { stop, task, .. } = server;
    stop.expect("not stopped yet")
        .send(())
        .expect("server running");
    assert!(
        closed_within(idle, SLACK).await.is_some(),
        "an idle connection outlived the shutdown"
    );
    busy.write_all(b"world").await.expect("send the rest");
    let read = closed_within(busy, SLACK)
        .await
        .expect("closed after its answer");
    let read = String::from_utf8_lossy(&read);
    assert!(
        read.starts_with("HTTP/1.1 200 OK") && read.ends_with("10"),
        "{read:?}"
    );
    tokio::time::timeout(SLACK, task)
        .await
        .expect("the server returns once its connections are closed")
        .expect("no panic")
        .expect("no error");
}

/// The environment variable that makes [`limited_server_child`] serve.
const CHILD: &str = "LEARNABLES_LIMITED_SERVER_CHILD";

#[test]
fn out_of_file_descriptors_the_server_closes_a_waiting_connection_and_serves_a_real_client() {
    // The server runs in a child process allowed 48 open files, with a cap
    // far above that: only the handling of failed accepts protects it.
    let test_binary = std::env::current_exe().expect("the test binary");
    // The child test's name as the harness knows it: its module path
    // without the crate's name.
    let child_test = concat!(module_path!(), "::limited_server_child");
    let child_test = child_test
        .split_once("::")
        .map_or(child_test, |(_, name)| name);
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -n 48 && exec "$0" --ignored --exact "$1" --nocapture"#)
        .arg(test_binary)
        .arg(child_test)
        .env(CHILD, "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start the child server");
    let stdout = child.stdout.take().expect("the child's stdout");
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let address: SocketAddr = lines
        .by_ref()
        .map(|line| line.expect("the child's output"))
        .find_map(|line| line.strip_prefix("listening ").map(str::to_owned))
        .expect("the child server's address")
        .parse()
        .expect("an address");
    // The rest of its output, read so that its test harness can write it.
    std::thread::spawn(move || lines.for_each(drop));

    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let mut flood = Vec::new();
        for _ in 0..100 {
            flood.push(TcpStream::connect(address).await.expect("connect"));
        }
        for _ in 0..3 {
            let answer = request(address, ECHO).await;
            assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer:?}");
        }
    });

    drop(child.stdin.take());
    let status = runtime.block_on(async {
        tokio::time::timeout(
            ANSWERED_WITHIN,
            tokio::task::spawn_blocking(move || child.wait()),
        )
        .await
        .expect("the child server stops when its stdin closes")
        .expect("no panic")
        .expect("the child's status")
    });
    assert!(status.success(), "the child server failed: {status}");
}

/// The child process of the test above: serves on 127.0.0.1 with a cap of
/// 1000 connections, prints `listening ADDRESS`, and stops when its stdin
/// closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the child process of out_of_file_descriptors_..., run by it"]
async fn limited_server_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let limits = ServerLimits::default()
        .with_header_read_timeout(LONG)
        .with_body_read_timeout(LONG)
        .with_idle_timeout(LONG)
        .with_max_connections(1000);
    let router = Router::new().route(
        "/echo",
        post(|body: Bytes| async move { body.len().to_string() }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    println!("listening {}", listener.local_addr().expect("address"));
    let (stop, stopped) = oneshot::channel::<()>();
    std::thread::spawn(move || {
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
        let _ = stop.send(());
    });
    serve(listener, router, limits, async {
        let _ = stopped.await;
    })
    .await
    .expect("serve");
}
