//! Bodies an attacker would try, from a host behind the Learnables layer
//! on 127.0.0.1, to a client that did not activate the extension: keys
//! written with escapes, duplicate keys, numbers serde_json cannot hold,
//! trailing data, deep nesting, other and missing content types, event
//! streams ended by CR alone, encodings the host applied though none was
//! asked for (known, unknown, stacked, as a transfer coding, a gigabyte
//! of JSON in a few kilobytes), a 200 MB response, one sent as a single
//! frame and endless ones, with the process's memory sampled. A client
//! that activated gets every body byte for byte.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Path;
use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;
use axum::routing::get;
use futures::stream;
use learnables::a2a::{LearnablesLayer, LearnablesService, Tokens};
use learnables::{Declaration, EXTENSION_URI, Knowledge};
use learnables_tests::loopback;

/// A body the host sends: its headers and bytes.
struct Case {
    name: &'static str,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

fn json(name: &'static str, body: String) -> Case {
    Case {
        name,
        headers: vec![("content-type", "application/json".into())],
        body: body.into_bytes(),
    }
}

fn typed(name: &'static str, content_type: &str, body: impl Into<Vec<u8>>) -> Case {
    Case {
        name,
        headers: vec![("content-type", content_type.into())],
        body: body.into(),
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

const U: &str = EXTENSION_URI;

/// What a client that did not activate must get.
enum Expect {
    /// These bytes, exactly.
    Exactly(String),
    /// The body unchanged.
    Unchanged,
    /// A body cut off with an error before any of the URI, after the
    /// head (and a first part of the body) went out.
    CutOff,
    /// This status, and no body worth reading.
    Status(u16),
}

fn cases() -> Vec<(Case, Expect)> {
    let block = r#"{"teach":{"collection":"routing_rules","entry":"85"}}"#;
    let escaped_slashes = U.replace('/', "\\/");
    let escaped_h = U.replacen('h', "\\u0068", 1);
    let deep = format!(
        "{}{{\"metadata\":{{\"{U}\":{block}}}}}{}",
        "[".repeat(200),
        "]".repeat(200)
    );
    let deep_scrubbed = format!("{}{{}}{}", "[".repeat(200), "]".repeat(200));
    let plain_json = format!(r#"{{"result":{{"metadata":{{"{U}":{block}}}}}}}"#);
    let utf16: Vec<u8> = plain_json
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend((0..4096u32).map(|at| (at.wrapping_mul(2_654_435_761) >> 13) as u8));
    vec![
        (
            json("escaped slashes", format!(r#"{{"result":{{"metadata":{{"{escaped_slashes}":{block},"k":1}}}}}}"#)),
            Expect::Exactly(r#"{"result":{"metadata":{"k":1}}}"#.into()),
        ),
        (
            json("an escaped letter", format!(r#"{{"metadata":{{"k":1,"{escaped_h}":{block}}}}}"#)),
            Expect::Exactly(r#"{"metadata":{"k":1}}"#.into()),
        ),
        (
            json(
                "duplicate keys",
                format!(r#"{{"metadata":{{"{U}":{block}}},"metadata":{{"x":2,"{U}":{{}},"{escaped_slashes}":1}}}}"#),
            ),
            Expect::Exactly(r#"{"metadata":{"x":2}}"#.into()),
        ),
        (
            json(
                "numbers, key order and whitespace",
                format!("{{\"z\": 123456789012345678901234567890, \"a\":1e400,\n \"m\":{{\"b\":1,\"a\":2}},\"metadata\":{{\"{U}\":{block}}} , \"w\" : [ 1 , -0.0 ] }}"),
            ),
            Expect::Exactly(
                "{\"z\": 123456789012345678901234567890, \"a\":1e400,\n \"m\":{\"b\":1,\"a\":2}, \"w\" : [ 1 , -0.0 ] }".into(),
            ),
        ),
        (
            json("trailing data", format!(r#"{{"a":1}} {{"metadata":{{"{U}":1}}}}"#)),
            Expect::Exactly(r#"{"a":1} {}"#.into()),
        ),
        (json("nesting past 125", deep), Expect::Exactly(deep_scrubbed)),
        (
            json("extensions beside a block", format!(r#"{{"metadata":{{"{U}":{block}}},"extensions":["{U}","https://e.x/v1"]}}"#)),
            Expect::Exactly(r#"{"extensions":["https://e.x/v1"]}"#.into()),
        ),
        (
            json("the URI in values only", format!(r#"{{"uri":"{U}","text":"see {U}"}}"#)),
            Expect::Unchanged,
        ),
        // Refused before anything was sent: a status says so.
        (json("not JSON after all", format!(r#"{{"a":1,}} {{"{U}":{block}}}"#)), Expect::Status(502)),
        (typed("text/plain", "text/plain", plain_json.clone()), Expect::Status(502)),
        (
            Case { name: "no content type", headers: vec![], body: plain_json.clone().into_bytes() },
            Expect::Status(502),
        ),
        (typed("UTF-16 JSON", "application/json", utf16), Expect::Status(502)),
        (
            typed("text naming the URI far in", "text/plain", format!("{}{U}", "x".repeat(300_000))),
            Expect::CutOff,
        ),
        (typed("text without the URI", "text/plain", "nothing to see"), Expect::Unchanged),
        (typed("an image", "image/png", png), Expect::Unchanged),
        (
            typed("events ended by CR", "text/event-stream", format!("id: 1\rdata: {plain_json}\r\rdata: {{}}\r\r")),
            Expect::Exactly("id: 1\rdata: {\"result\":{}}\r\rdata: {}\r\r".into()),
        ),
        (
            Case {
                name: "gzip by the host",
                headers: vec![("content-type", "application/json".into()), ("content-encoding", "gzip".into())],
                body: gzip(plain_json.as_bytes()),
            },
            Expect::Status(502),
        ),
        (
            Case {
                name: "an unknown encoding",
                headers: vec![("content-type", "application/json".into()), ("content-encoding", "compress".into())],
                body: plain_json.clone().into_bytes(),
            },
            Expect::Status(502),
        ),
        (
            Case {
                name: "stacked encodings",
                headers: vec![("content-type", "application/json".into()), ("content-encoding", "gzip, gzip".into())],
                body: gzip(&gzip(plain_json.as_bytes())),
            },
            Expect::Status(502),
        ),
        (
            Case {
                name: "gzip as a transfer coding",
                headers: vec![("content-type", "application/json".into()), ("transfer-encoding", "gzip".into())],
                body: gzip(plain_json.as_bytes()),
            },
            Expect::Status(502),
        ),
    ]
}

/// The test's host: each case at `/case/{index}`, and the large and
/// endless bodies; under the layer.
fn host() -> Router {
    let router = Router::new()
        .route(
            "/case/{index}",
            get(|Path(index): Path<usize>| async move {
                let (case, _) = cases().swap_remove(index);
                let mut response = Response::new(Body::from(case.body));
                for (name, value) in case.headers {
                    response.headers_mut().insert(
                        HeaderName::from_static(name),
                        HeaderValue::from_str(&value).unwrap(),
                    );
                }
                response
            }),
        )
        .route(
            "/big",
            get(|| async { streamed("application/json", Some(BIG_MESSAGES)) }),
        )
        .route(
            "/one-frame",
            get(|| async {
                let mut response = Response::new(Body::from(ONE_FRAME.clone()));
                response
                    .headers_mut()
                    .insert("content-type", HeaderValue::from_static("application/json"));
                response
            }),
        )
        .route(
            "/endless.json",
            get(|| async { streamed("application/json", None) }),
        )
        .route(
            "/endless.ndjson",
            get(|| async { streamed("application/x-ndjson", None) }),
        );
    router.layer(LearnablesLayer::new(LearnablesService::new(
        Knowledge::in_memory(),
        Declaration::new(),
        Tokens::new(),
    )))
}

/// How many messages the 200 MB response holds.
const BIG_MESSAGES: usize = 100_000;

/// How many messages the response sent as one frame holds: more bytes
/// than [`MEMORY_BOUND`], so that a copy of it would show.
const ONE_FRAME_MESSAGES: usize = 40_000;

/// That response, made once: the host holds it whole, as a host that
/// serializes its answer before sending it does.
static ONE_FRAME: LazyLock<Bytes> = LazyLock::new(|| {
    body_chunks("application/json", Some(ONE_FRAME_MESSAGES), false)
        .flatten()
        .collect::<Vec<u8>>()
        .into()
});

fn message(index: usize, scrubbed: bool) -> String {
    let text = "Which desk handles chapter 85? ".repeat(64);
    // Scrubbed, the message has no `metadata` or `extensions` left.
    let block = if scrubbed {
        String::new()
    } else {
        format!(
            r#","metadata":{{"{U}":{{"teach":{{"collection":"routing_rules","entry":"85"}}}}}},"extensions":["{U}"]"#
        )
    };
    format!(
        r#"{{"messageId":"m{index}","role":"ROLE_AGENT","parts":[{{"text":"{text}"}}]{block}}}"#
    )
}

/// A `GetTask`-shaped response of `count` messages in its history (or an
/// endless one: an array never closed, or NDJSON lines), made as it is sent.
fn streamed(content_type: &'static str, count: Option<usize>) -> Response {
    let chunks = body_chunks(content_type, count, false);
    let mut response = Response::new(Body::from_stream(stream::iter(
        chunks.map(|chunk| Ok::<_, std::io::Error>(Bytes::from(chunk))),
    )));
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static(content_type));
    response
}

/// The chunks of such a response, as sent or as scrubbed.
fn body_chunks(
    content_type: &str,
    count: Option<usize>,
    scrubbed: bool,
) -> impl Iterator<Item = Vec<u8>> + Send + 'static {
    let ndjson = content_type.contains("ndjson");
    let head = if ndjson {
        String::new()
    } else {
        r#"{"jsonrpc":"2.0","id":1,"result":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED"},"history":["#.to_owned()
    };
    let per_chunk = 16;
    let chunks = count.map_or(usize::MAX, |count| count.div_ceil(per_chunk));
    let total = count.unwrap_or(usize::MAX);
    let body = (0..chunks).map(move |chunk| {
        let mut bytes = Vec::new();
        for index in chunk * per_chunk..((chunk + 1) * per_chunk).min(total) {
            if ndjson {
                bytes.extend_from_slice(message(index, scrubbed).as_bytes());
                bytes.push(b'\n');
            } else {
                if index > 0 {
                    bytes.push(b',');
                }
                bytes.extend_from_slice(message(index, scrubbed).as_bytes());
            }
        }
        bytes
    });
    let tail = count.filter(|_| !ndjson).map(|_| b"]}}".to_vec());
    std::iter::once(head.into_bytes()).chain(body).chain(tail)
}

fn serve() -> (tokio::runtime::Runtime, String) {
    let runtime = loopback::runtime();
    let address = loopback::serve_on(&runtime, host());
    (runtime, format!("http://{address}"))
}

fn client() -> reqwest::blocking::Client {
    learnables_examples::install_crypto_provider();
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
}

/// A response read to its end or to its error: the status (0 when the
/// connection ended before one came), the bytes that came, and whether it
/// ended cleanly.
fn fetch(url: &str, activated: bool) -> (u16, Vec<u8>, bool) {
    let mut request = client().get(url);
    if activated {
        request = request.header("A2A-Extensions", EXTENSION_URI);
    }
    let Ok(mut response) = request.send() else {
        return (0, Vec::new(), false);
    };
    let status = response.status().as_u16();
    let mut body = Vec::new();
    let mut buffer = [0; 16 * 1024];
    loop {
        match response.read(&mut buffer) {
            Ok(0) => return (status, body, true),
            Ok(read) => body.extend_from_slice(&buffer[..read]),
            Err(_) => return (status, body, false),
        }
    }
}

fn mentions_uri(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, U.as_bytes()).is_some()
}

#[test]
fn every_body_reaches_a_client_that_did_not_activate_without_a_block() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let (_runtime, url) = serve();
    for (index, (case, expect)) in cases().into_iter().enumerate() {
        let name = case.name;
        let case_url = format!("{url}/case/{index}");
        let (status, body, clean) = fetch(&case_url, false);
        let shown = String::from_utf8_lossy(&body).into_owned();
        match expect {
            Expect::Exactly(expected) => {
                assert_eq!((status, clean), (200, true), "{name}: {shown}");
                assert_eq!(shown, expected, "{name}");
            }
            Expect::Unchanged => {
                assert_eq!((status, clean), (200, true), "{name}: {shown}");
                assert_eq!(body, case.body, "{name}");
            }
            Expect::CutOff => {
                assert_eq!(status, 200, "{name}");
                assert!(!clean, "{name}: the body ended cleanly: {shown}");
                assert!(!mentions_uri(&body), "{name}: {shown}");
                let utf16: Vec<u8> = body.iter().copied().filter(|&byte| byte != 0).collect();
                assert!(!mentions_uri(&utf16), "{name}: {shown}");
            }
            Expect::Status(code) => assert_eq!(status, code, "{name}: {shown}"),
        }
        // A client that activated gets what the host sent.
        if case
            .headers
            .iter()
            .all(|(name, _)| *name != "transfer-encoding")
        {
            let (status, body, clean) = fetch(&case_url, true);
            assert_eq!((status, clean), (200, true), "{name}, activated");
            assert_eq!(body, case.body, "{name}, activated");
        }
    }
}

/// The memory tests measure the process, so the tests run one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The process's resident memory now, in bytes.
fn resident() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// Samples the process's resident memory until dropped; the highest seen.
struct Sampler {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    fn start() -> Sampler {
        let peak = Arc::new(AtomicU64::new(resident()));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen, stopped) = (peak.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                seen.fetch_max(resident(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        Sampler {
            peak,
            stop,
            thread: Some(thread),
        }
    }

    fn peak(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
        self.peak.load(Ordering::Relaxed)
    }
}

/// What the layer may add to the process's memory while a body of any
/// size flows through it (the client's and server's buffers included).
const MEMORY_BOUND: u64 = 64 << 20;

#[test]
fn a_200_mb_response_flows_scrubbed_byte_for_byte_in_bounded_memory() {
    flows_scrubbed_in_bounded_memory("big", BIG_MESSAGES, || {
        let sent = body_chunks("application/json", Some(BIG_MESSAGES), false)
            .map(|chunk| chunk.len() as u64)
            .sum();
        assert!(sent > 200_000_000, "{sent}");
        sent
    });
}

/// A host that sends its whole answer as one frame (as the SDK's JSON
/// answers are): the layer scrubs and sends it a piece at a time, holding
/// no scrubbed copy of it.
#[test]
fn a_response_sent_as_one_frame_flows_a_piece_at_a_time() {
    flows_scrubbed_in_bounded_memory("one-frame", ONE_FRAME_MESSAGES, || {
        let sent = ONE_FRAME.len() as u64;
        assert!(sent > MEMORY_BOUND, "{sent}");
        sent
    });
}

/// The response of `messages` messages at `path` reaches a client that did
/// not activate scrubbed byte for byte, and the process grows by less than
/// [`MEMORY_BOUND`] meanwhile; `sent` gives its size (making what it needs
/// before the memory is measured, once the other memory tests are done).
fn flows_scrubbed_in_bounded_memory(path: &str, messages: usize, sent: impl FnOnce() -> u64) {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let sent = sent();
    let (_runtime, url) = serve();
    let before = resident();
    let sampler = Sampler::start();
    read_as(
        &format!("{url}/{path}"),
        body_chunks("application/json", Some(messages), true),
    );
    let grown = sampler.peak().saturating_sub(before);
    assert!(
        grown < MEMORY_BOUND,
        "{path}: the process grew by {grown} bytes for a {sent}-byte body"
    );
}

/// Reads a response from `url` (as a client that did not activate),
/// checking it against `expected` as it comes, without holding it.
fn read_as(url: &str, mut expected: impl Iterator<Item = Vec<u8>>) {
    let mut response = client().get(url).send().unwrap();
    assert_eq!(response.status(), 200);
    let mut pending: Vec<u8> = Vec::new();
    let mut buffer = vec![0; 64 * 1024];
    let mut total = 0u64;
    loop {
        let read = response.read(&mut buffer).unwrap();
        if read == 0 {
            break;
        }
        while pending.len() < read {
            match expected.next() {
                Some(chunk) => pending.extend_from_slice(&chunk),
                None => panic!("the body is longer than expected, at {total}"),
            }
        }
        assert!(
            buffer[..read] == pending[..read],
            "the body differs near byte {total}"
        );
        pending.drain(..read);
        total += read as u64;
    }
    assert!(pending.is_empty(), "the body ended early, at {total}");
    assert!(
        expected.next().is_none(),
        "the body ended early, at {total}"
    );
}

#[test]
fn endless_responses_flow_in_bounded_memory() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let (_runtime, url) = serve();
    for path in ["endless.json", "endless.ndjson"] {
        let before = resident();
        let sampler = Sampler::start();
        let mut response = client().get(format!("{url}/{path}")).send().unwrap();
        // The headers came, though the body never ends.
        assert_eq!(response.status(), 200, "{path}");
        let mut buffer = vec![0; 64 * 1024];
        let mut total = 0usize;
        let mut tail = Vec::new();
        while total < 96 << 20 {
            let read = response.read(&mut buffer).unwrap();
            assert!(read > 0, "{path} ended");
            tail.extend_from_slice(&buffer[..read]);
            assert!(!mentions_uri(&tail), "{path} at {total}");
            tail.drain(..tail.len().saturating_sub(U.len()));
            total += read;
        }
        drop(response);
        let grown = sampler.peak().saturating_sub(before);
        assert!(
            grown < MEMORY_BOUND,
            "{path}: the process grew by {grown} bytes"
        );
    }
}

/// How many bytes of `a` the long string of an encoded gigabyte holds.
const GIGABYTE: usize = 1 << 30;

/// The JSON a host encodes in the gigabyte tests: a teach block, then one
/// string of [`GIGABYTE`] bytes.
const GIGABYTE_HEAD: &str = r#"{"result":{"metadata":{"https://rsaxb.com/a2a/learnables/v1":{"teach":{"collection":"routing_rules","entry":"85"}}},"text":""#;

/// A response of about a gigabyte of JSON, encoded as `coding` as the host
/// sends it: br and gzip made a mebibyte at a time as it is read, zstd (32
/// KiB) in one frame when it is first read, so that a layer that never
/// reads it costs nothing.
fn encoded_gigabyte(coding: &'static str) -> Response {
    const STEP: usize = 1 << 20;
    let steps = GIGABYTE / STEP;
    let body = if coding == "zstd" {
        Body::from_stream(stream::once(async {
            Ok::<_, std::io::Error>(Bytes::from(zstd_gigabyte()))
        }))
    } else {
        Body::from_stream(stream::unfold(
            (0usize, Some(Encoder::new(coding))),
            move |(step, mut encoder)| async move {
                let bytes = match encoder.take() {
                    Some(mut writer) if step == 0 => {
                        let bytes = writer.write(GIGABYTE_HEAD.as_bytes());
                        encoder = Some(writer);
                        bytes
                    }
                    Some(mut writer) if step <= steps => {
                        let bytes = writer.write(&vec![b'a'; STEP]);
                        encoder = Some(writer);
                        bytes
                    }
                    Some(writer) => writer.end(br#""}}"#),
                    None => return None,
                };
                Some((
                    Ok::<_, std::io::Error>(Bytes::from(bytes)),
                    (step + 1, encoder),
                ))
            },
        ))
    };
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    headers.insert("content-encoding", HeaderValue::from_static(coding));
    response
}

/// A streaming encoder: what each write adds to the encoded body.
enum Encoder {
    Br(Box<brotli::CompressorWriter<Vec<u8>>>),
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
}

/// The largest block of a zstd frame.
const ZSTD_BLOCK: usize = 128 << 10;

impl Encoder {
    fn new(coding: &str) -> Encoder {
        match coding {
            "br" => Encoder::Br(Box::new(brotli::CompressorWriter::new(
                Vec::new(),
                4096,
                1,
                24,
            ))),
            "gzip" => Encoder::Gzip(flate2::write::GzEncoder::new(
                Vec::new(),
                flate2::Compression::fast(),
            )),
            other => panic!("the test does not encode {other}"),
        }
    }

    fn write(&mut self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Encoder::Br(writer) => {
                writer.write_all(bytes).unwrap();
                std::mem::take(writer.get_mut())
            }
            Encoder::Gzip(writer) => {
                writer.write_all(bytes).unwrap();
                std::mem::take(writer.get_mut())
            }
        }
    }

    fn end(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Encoder::Br(mut writer) => {
                writer.write_all(bytes).unwrap();
                writer.into_inner()
            }
            Encoder::Gzip(mut writer) => {
                writer.write_all(bytes).unwrap();
                writer.finish().unwrap()
            }
        }
    }
}

/// The gigabyte's JSON in zstd, written by hand as a compressing host may
/// write it: one frame of a raw block, RLE blocks (a run of one byte, 4
/// bytes a block) and a last raw block.
fn zstd_gigabyte() -> Vec<u8> {
    // Magic, no content size, a 128 KiB window.
    let mut out = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38];
    zstd_block(&mut out, 0, GIGABYTE_HEAD.len(), false);
    out.extend_from_slice(GIGABYTE_HEAD.as_bytes());
    for _ in 0..GIGABYTE / ZSTD_BLOCK {
        zstd_block(&mut out, 1, ZSTD_BLOCK, false);
        out.push(b'a');
    }
    zstd_block(&mut out, 0, 3, true);
    out.extend_from_slice(br#""}}"#);
    out
}

/// A zstd block header: `kind` 0 raw, 1 RLE; `size` the bytes it stands for.
fn zstd_block(out: &mut Vec<u8>, kind: u32, size: usize, last: bool) {
    let header = u32::from(last) | kind << 1 | (size as u32) << 3;
    out.extend_from_slice(&header.to_le_bytes()[..3]);
}

/// A host that encodes a gigabyte response whatever the client accepts:
/// the layer neither decodes it nor holds it, and sends no teach block.
#[test]
fn an_encoded_gigabyte_keeps_the_process_in_bounded_memory() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let router = Router::new()
        .route("/zstd", get(|| async { encoded_gigabyte("zstd") }))
        .route("/br", get(|| async { encoded_gigabyte("br") }))
        .route("/gzip", get(|| async { encoded_gigabyte("gzip") }))
        .layer(LearnablesLayer::new(LearnablesService::new(
            Knowledge::in_memory(),
            Declaration::new(),
            Tokens::new(),
        )));
    let runtime = loopback::runtime();
    let url = format!("http://{}", loopback::serve_on(&runtime, router));
    for coding in ["zstd", "br", "gzip"] {
        let before = resident();
        let sampler = Sampler::start();
        let mut request = client().get(format!("{url}/{coding}"));
        for accepted in ["gzip", "br", "zstd"] {
            request = request.header("accept-encoding", accepted);
        }
        let (status, tail) = match request.send() {
            Ok(mut response) => {
                // Only the last bytes are kept: a URI split across reads
                // is still seen.
                let mut tail = Vec::new();
                let mut buffer = vec![0; 64 * 1024];
                while let Ok(read) = response.read(&mut buffer) {
                    if read == 0 {
                        break;
                    }
                    tail.extend_from_slice(&buffer[..read]);
                    assert!(!mentions_uri(&tail), "{coding}: a teach block was sent");
                    tail.drain(..tail.len().saturating_sub(U.len()));
                }
                (response.status().as_u16(), tail)
            }
            Err(_) => (0, Vec::new()),
        };
        let grown = sampler.peak().saturating_sub(before);
        assert!(
            grown < MEMORY_BOUND,
            "{coding}: the process grew by {grown} bytes"
        );
        assert!(!mentions_uri(&tail), "{coding}");
        // The host encoded though it was asked for no encoding.
        assert_eq!(status, 502, "{coding}");
    }
}
