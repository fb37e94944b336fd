//! What a client that did not activate the extension receives on the wire
//! from a host behind the Learnables layer, on 127.0.0.1: a body refused
//! before its first byte is answered `502 Bad Gateway` (not a closed
//! connection), a scrubbed message keeps no empty `metadata` or
//! `extensions` the host did not send, and a small scrubbed answer on a
//! kept-alive connection to an `axum::serve` host (Nagle's algorithm on)
//! comes as fast as the host's own.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a::{A2AError, AgentCard, Message, Part, Role, StreamResponse};
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::{AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore};
use axum::Router;
use axum::body::Body;
use axum::http::HeaderValue;
use axum::response::Response;
use axum::routing::get;
use futures::stream::{self, BoxStream};
use learnables::a2a::{LearnablesLayer, LearnablesService, Tokens};
use learnables::{Declaration, EXTENSION_URI, Knowledge};
use learnables_tests::loopback;
use serde_json::{Value, json};

const U: &str = EXTENSION_URI;

/// The layer with nothing to teach: it only scrubs.
fn layered(router: Router) -> Router {
    router.layer(LearnablesLayer::new(LearnablesService::new(
        Knowledge::in_memory(),
        Declaration::new(),
        Tokens::new(),
    )))
}

fn typed(content_type: &'static str, body: String) -> Response {
    let mut response = Response::new(Body::from(body));
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static(content_type));
    response
}

/// One exchange on a kept-alive connection: the status, the headers
/// (names lowercased) and the body, de-chunked.
fn exchange(
    writer: &mut TcpStream,
    reader: &mut BufReader<TcpStream>,
    request: &[u8],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    writer.write_all(request).unwrap();
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {line:?}"));
    let mut headers = Vec::new();
    for _ in 0..100 {
        line.clear();
        reader.read_line(&mut line).unwrap();
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap();
        headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(found, _)| found == name)
            .map(|(_, value)| value.clone())
    };
    let mut body = Vec::new();
    if let Some(length) = header("content-length") {
        body.resize(length.parse().unwrap(), 0);
        reader.read_exact(&mut body).unwrap();
    } else if header("transfer-encoding").as_deref() == Some("chunked") {
        for _ in 0..10_000 {
            line.clear();
            reader.read_line(&mut line).unwrap();
            let size = usize::from_str_radix(line.trim(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).unwrap();
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }
    (status, headers, body)
}

fn connect(address: SocketAddr) -> (TcpStream, BufReader<TcpStream>) {
    let stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let reader = BufReader::new(stream.try_clone().unwrap());
    (stream, reader)
}

fn get_request(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").into_bytes()
}

#[test]
fn a_body_refused_before_its_first_byte_is_answered_502() {
    let plain = format!(r#"{{"result":{{"metadata":{{"{U}":{{"teach":{{}}}}}}}}}}"#);
    let not_json = format!(r#"{{"a":1,}} {{"{U}":1}}"#);
    let (text, broken) = (plain.clone(), not_json.clone());
    let router = Router::new()
        .route(
            "/text",
            get(move || {
                let text = text.clone();
                async move { typed("text/plain", text) }
            }),
        )
        .route(
            "/not-json",
            get(move || {
                let broken = broken.clone();
                async move { typed("application/json", broken) }
            }),
        )
        .route(
            "/after",
            get(|| async { typed("application/json", r#"{"fine":true}"#.to_owned()) }),
        );
    let runtime = loopback::runtime();
    let address = loopback::serve_on(&runtime, layered(router));
    for path in ["/text", "/not-json"] {
        let (mut writer, mut reader) = connect(address);
        writer.write_all(&get_request(path)).unwrap();
        let mut answer = Vec::new();
        // Read to the end: the connection may close after the answer.
        let _ = reader.read_to_end(&mut answer);
        let shown = String::from_utf8_lossy(&answer);
        assert!(
            shown.starts_with("HTTP/1.1 502"),
            "{path}: the answer was {shown:?}"
        );
        assert!(!shown.contains(U), "{path}: {shown}");
    }
    // The connection still serves the next request after a 502.
    let (mut writer, mut reader) = connect(address);
    let (status, _, _) = exchange(&mut writer, &mut reader, &get_request("/text"));
    assert_eq!(status, 502);
    let (status, _, body) = exchange(&mut writer, &mut reader, &get_request("/after"));
    assert_eq!((status, &body[..]), (200, &br#"{"fine":true}"#[..]));
}

#[test]
fn no_empty_metadata_or_extensions_is_left_behind() {
    let block = r#"{"teach":{"collection":"routing_rules","entry":"85"}}"#;
    let cases = [
        // Only the block: the members go with it.
        (
            format!(
                r#"{{"result":{{"messageId":"m1","metadata":{{"{U}":{block}}},"extensions":["{U}"],"parts":[]}}}}"#
            ),
            r#"{"result":{"messageId":"m1","parts":[]}}"#.to_owned(),
        ),
        // First, last, with whitespace, the URI spelled with escapes.
        (
            format!(
                "{{\"metadata\" : {{ \"{}\" : {block} }} , \"extensions\":[ \"{U}\" ], \"k\":1}}",
                U.replace('/', "\\/")
            ),
            "{ \"k\":1}".to_owned(),
        ),
        (
            format!(r#"{{"k":1,"extensions":["{U}","{U}"],"metadata":{{"{U}":1,"{U}":2}}}}"#),
            r#"{"k":1}"#.to_owned(),
        ),
        // What the host sent empty stays, and so does what is kept.
        (
            format!(
                r#"{{"metadata":{{}},"extensions":[],"m":{{"metadata":{{"{U}":1,"x":2}},"extensions":["{U}","https://e.x/v1"]}}}}"#
            ),
            r#"{"metadata":{},"extensions":[],"m":{"metadata":{"x":2},"extensions":["https://e.x/v1"]}}"#
                .to_owned(),
        ),
        // Other keys keep their emptied objects; nested ones go whole.
        (
            format!(
                r#"[{{"other":{{"{U}":1}},"metadata":{{"metadata":{{"{U}":1}},"extensions":["{U}"]}}}}]"#
            ),
            r#"[{"other":{}}]"#.to_owned(),
        ),
    ];
    let bodies: Vec<String> = cases.iter().map(|(sent, _)| sent.clone()).collect();
    let router = Router::new().route(
        "/case/{index}",
        get(
            move |axum::extract::Path(index): axum::extract::Path<usize>| {
                let body = bodies[index].clone();
                async move { typed("application/json", body) }
            },
        ),
    );
    let runtime = loopback::runtime();
    let address = loopback::serve_on(&runtime, layered(router));
    let (mut writer, mut reader) = connect(address);
    for (index, (sent, expected)) in cases.iter().enumerate() {
        let (status, _, body) = exchange(
            &mut writer,
            &mut reader,
            &get_request(&format!("/case/{index}")),
        );
        assert_eq!(status, 200, "{sent}");
        assert_eq!(String::from_utf8_lossy(&body), *expected, "{sent}");
    }
}

/// A small body the host streams (its end known only once polled for
/// more) goes whole, with its `Content-Length`: one write, which no
/// delayed acknowledgement holds back.
#[test]
fn a_small_streamed_body_goes_whole_with_its_length() {
    let router = Router::new().route(
        "/streamed",
        get(|| async {
            let chunks = [
                format!(r#"{{"result":{{"metadata":{{"{U}":{{"teach":{{}}}}}},"#),
                r#""text":"Desk 4"}}"#.to_owned(),
            ];
            let body = Body::from_stream(stream::iter(
                chunks.map(|chunk| Ok::<_, std::io::Error>(chunk.into_bytes())),
            ));
            let mut response = Response::new(body);
            response
                .headers_mut()
                .insert("content-type", HeaderValue::from_static("application/json"));
            response
        }),
    );
    let runtime = loopback::runtime();
    let address = loopback::serve_on(&runtime, layered(router));
    let (mut writer, mut reader) = connect(address);
    for _ in 0..2 {
        let (status, headers, body) = exchange(&mut writer, &mut reader, &get_request("/streamed"));
        assert_eq!(status, 200);
        assert_eq!(
            String::from_utf8_lossy(&body),
            r#"{"result":{"text":"Desk 4"}}"#
        );
        let length = headers.iter().find(|(name, _)| name == "content-length");
        assert_eq!(
            length.map(|(_, value)| value.as_str()),
            Some("28"),
            "{headers:?}"
        );
        assert!(
            headers.iter().all(|(name, _)| name != "transfer-encoding"),
            "{headers:?}"
        );
    }
}

/// Replies to every message with a message carrying a teach block in its
/// metadata and the URI in its extensions, whoever asked: only the layer
/// stands between them and the client.
#[derive(Clone)]
struct Replier;

impl AgentExecutor for Replier {
    fn execute(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let mut reply = Message::new(Role::Agent, vec![Part::text("Desk 4 handles chapter 85.")]);
        reply.context_id = Some(context.context_id.clone());
        reply.metadata = Some(
            [(
                U.to_owned(),
                json!({"teach": {"collection": "routing_rules"}}),
            )]
            .into_iter()
            .collect(),
        );
        reply.extensions = Some(vec![U.to_owned()]);
        Box::pin(stream::once(
            async move { Ok(StreamResponse::Message(reply)) },
        ))
    }

    fn cancel(
        &self,
        _context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        Box::pin(stream::empty())
    }
}

fn card() -> AgentCard {
    serde_json::from_value(json!({
        "name": "Host agent", "description": "An agent on the official SDK", "version": "1",
        "supportedInterfaces": [{"url": "http://127.0.0.1/", "protocolBinding": "JSONRPC",
                                 "protocolVersion": "1.0"}],
        "capabilities": {},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": []
    }))
    .unwrap()
}

fn sdk_host() -> Router {
    let handler = DefaultRequestHandler::new(Replier, InMemoryTaskStore::new())
        .with_capabilities(card().capabilities);
    jsonrpc_router(Arc::new(handler))
}

fn send_message() -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                      "params": {"message": {"messageId": "m1", "role": "ROLE_USER",
                                             "parts": [{"text": "Route chapter 85"}]}}})
    .to_string();
    format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         A2A-Version: 1.0\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// How many exchanges each agent's median is taken over.
const EXCHANGES: usize = 25;

/// The layered agent's median time for a small `SendMessage` on a kept-alive
/// connection is at most twice the plain agent's: its scrubbed answer does
/// not wait for the client's delayed acknowledgement of a first write.
#[test]
fn a_small_scrubbed_answer_on_a_kept_alive_connection_is_as_fast_as_the_hosts() {
    let runtime = loopback::runtime();
    let plain = loopback::serve_on(&runtime, sdk_host());
    let with_layer = loopback::serve_on(&runtime, layered(sdk_host()));
    let mut connections = [connect(plain), connect(with_layer)];
    let request = send_message();
    let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    // Alternated, so that both see the same machine; the first exchange of
    // each connection warms it and is not counted.
    for round in 0..=EXCHANGES {
        for (which, (writer, reader)) in connections.iter_mut().enumerate() {
            let started = Instant::now();
            let (status, _, body) = exchange(writer, reader, &request);
            let took = started.elapsed();
            assert_eq!(status, 200);
            let answer: Value = serde_json::from_slice(&body).unwrap();
            let reply = &answer["result"]["message"];
            assert_eq!(reply["role"], "ROLE_AGENT", "{answer}");
            if which == 1 {
                assert!(!body.windows(U.len()).any(|w| w == U.as_bytes()));
            }
            if round > 0 {
                times[which].push(took);
            }
        }
    }
    let median = |times: &mut Vec<Duration>| {
        times.sort();
        times[times.len() / 2]
    };
    let (plain, with_layer) = (median(&mut times[0]), median(&mut times[1]));
    assert!(
        with_layer <= plain * 2,
        "median with the layer {with_layer:?}, without {plain:?}"
    );
    // Scrubbed, and nothing empty left where the block was.
    let (writer, reader) = &mut connections[1];
    let (_, _, body) = exchange(writer, reader, &request);
    let answer: Value = serde_json::from_slice(&body).unwrap();
    let reply = &answer["result"]["message"];
    assert!(reply.get("metadata").is_none(), "{answer}");
    assert!(reply.get("extensions").is_none(), "{answer}");
}
