//! The example customs agent, started for real on 127.0.0.1 for a test, and
//! a small JSON-RPC client for it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use learnables::{EXTENSION_URI, Knowledge};
use learnables_examples::customs_agent::{self, BoundedTaskStore, DataLocation, Teacher};
use reqwest::blocking::Client;
use serde_json::{Value, json};

/// The teachers every test agent knows.
pub fn teachers() -> Vec<Teacher> {
    vec![
        Teacher {
            email: "alice@example.com".into(),
            token: "alice-token".into(),
        },
        Teacher {
            email: "deploy-bot@example.com".into(),
            token: "bot-token".into(),
        },
        // A second person, who reviews what alice proposes.
        Teacher {
            email: "bob@example.com".into(),
            token: "bob-token".into(),
        },
    ]
}

/// A running agent; stopped when dropped.
pub struct Agent {
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// Where it listens.
    pub address: SocketAddr,
    /// Its store's directory.
    pub data: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    client: Client,
}

impl Agent {
    /// Starts the agent on a free port with its knowledge in `data`.
    pub fn start(data: &Path) -> Agent {
        Agent::start_on(DataLocation::Directory(data.to_owned()))
    }

    /// Starts the agent on a free port with its knowledge at `location` (a
    /// directory, or a PostgreSQL database shared with other agents).
    pub fn start_on(location: DataLocation) -> Agent {
        let data = match &location {
            DataLocation::Directory(dir) => dir.clone(),
            DataLocation::Postgres(_) => PathBuf::new(),
        };
        let knowledge = location.open().expect("the knowledge opens");
        let mut agent = Agent::start_with(knowledge, BoundedTaskStore::default());
        agent.data = data;
        agent
    }

    /// Starts the agent on a free port over `knowledge` (its learnables
    /// registered) and `task_store`.
    pub fn start_with(knowledge: Knowledge, task_store: BoundedTaskStore) -> Agent {
        Agent::serving(move |listener, shutdown| async move {
            customs_agent::serve_with(listener, knowledge, &teachers(), task_store, shutdown)
                .await
                .unwrap();
        })
    }

    /// The agent on both of its bindings (`customs_agent --grpc`): JSON-RPC
    /// on a free port, and A2A's gRPC binding on another; returns it and
    /// the gRPC address. `learnables` false: the same agent without
    /// Learnables on either (the SDK's servers alone). `card_url` writes the
    /// gRPC interface's URL on the card from its address (the SDK writes
    /// `HOST:PORT`, which its clients read; the TCK reads only a URL with a
    /// scheme, `grpc://HOST:PORT`).
    pub fn start_with_grpc(
        data: &Path,
        learnables: bool,
        card_url: fn(SocketAddr) -> String,
    ) -> (Agent, SocketAddr) {
        let grpc = std::net::TcpListener::bind("127.0.0.1:0").expect("a gRPC port");
        grpc.set_nonblocking(true).expect("a non-blocking listener");
        let grpc_address = grpc.local_addr().expect("the gRPC address");
        let location = DataLocation::Directory(data.to_owned());
        let mut agent = Agent::serving(move |listener, shutdown| async move {
            let address = listener.local_addr().unwrap();
            let base_url = format!("http://{address}/");
            let grpc_at = card_url(grpc_address);
            let knowledge = location.open().expect("the knowledge opens");
            let bindings = if learnables {
                learnables_examples::install_crypto_provider();
                customs_agent::bindings(
                    knowledge,
                    &teachers(),
                    &base_url,
                    Some(&grpc_at),
                    BoundedTaskStore::default(),
                    a2a_server::HttpPushSender::new(None),
                )
                .expect("the agent builds")
            } else {
                customs_agent::register(&knowledge).unwrap();
                customs_agent::bindings_without_learnables(knowledge, &base_url, Some(&grpc_at))
            };
            let grpc = tokio::net::TcpListener::from_std(grpc).unwrap();
            let (stop_grpc, grpc_stopped) = tokio::sync::oneshot::channel::<()>();
            let grpc = tokio::spawn(bindings.grpc.serve(grpc, async {
                let _ = grpc_stopped.await;
            }));
            learnables::a2a::serve::serve(
                listener,
                bindings.json_rpc,
                Default::default(),
                shutdown,
            )
            .await
            .unwrap();
            let _ = stop_grpc.send(());
            grpc.await.unwrap().unwrap();
        });
        agent.data = data.to_owned();
        (agent, grpc_address)
    }

    /// The same agent without Learnables (the SDK's routers over the same
    /// executor and card), on a free port, in memory.
    pub fn start_without_learnables() -> Agent {
        Agent::serving(|listener, shutdown| async move {
            let address = listener.local_addr().unwrap();
            let knowledge = Knowledge::in_memory();
            customs_agent::register(&knowledge).unwrap();
            let router =
                customs_agent::router_without_learnables(knowledge, &format!("http://{address}/"));
            axum::serve(listener, router)
                .with_graceful_shutdown(shutdown)
                .await
                .unwrap();
        })
    }

    /// The agent `router` makes for its base URL (`http://127.0.0.1:PORT/`),
    /// served on a free port with the framework's default limits.
    pub fn start_router<R>(router: R) -> Agent
    where
        R: FnOnce(&str) -> axum::Router + Send + 'static,
    {
        Agent::serving(move |listener, shutdown| async move {
            let address = listener.local_addr().unwrap();
            let router = router(&format!("http://{address}/"));
            learnables::a2a::serve::serve(listener, router, Default::default(), shutdown)
                .await
                .unwrap();
        })
    }

    /// An agent `serve` serves on a free port of 127.0.0.1, on a runtime of
    /// its own, until it is stopped.
    fn serving<F, S>(serve: S) -> Agent
    where
        S: FnOnce(tokio::net::TcpListener, std::pin::Pin<Box<dyn Future<Output = ()> + Send>>) -> F
            + Send
            + 'static,
        F: Future<Output = ()>,
    {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (bound, address) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                bound.send(listener.local_addr().unwrap()).unwrap();
                let shutdown = Box::pin(async {
                    let _ = stopped.await;
                });
                serve(listener, shutdown).await;
            });
        });
        let address = address.recv().expect("the agent binds");
        learnables_examples::install_crypto_provider();
        Agent {
            base_url: format!("http://{address}/"),
            address,
            data: PathBuf::new(),
            stop: Some(stop),
            thread: Some(thread),
            client: Client::new(),
        }
    }

    /// Stops the agent and waits until it has let go of its store.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            thread.join().expect("the agent stops cleanly");
        }
    }

    /// POSTs a raw body to the JSON-RPC endpoint with `headers`, and
    /// `A2A-Version: 1.0` unless they give a version.
    pub fn post(
        &self,
        body: impl Into<reqwest::blocking::Body>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut request = self
            .client
            .post(&self.base_url)
            .header("content-type", "application/json")
            .body(body);
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case(VERSION.0))
        {
            request = request.header(VERSION.0, VERSION.1);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        Reply::from(request.send().expect("the agent answers"))
    }

    /// Sends `request`, bytes exactly as given (request line, headers and
    /// body), on a new connection, and reads the reply.
    pub fn raw(&self, request: &[u8]) -> Reply {
        let mut stream = self.connect();
        stream.write_all(request).expect("the request is sent");
        read_reply(&mut stream)
    }

    /// A new connection to the agent; reads on it give up after 5 s.
    pub fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.address).expect("the agent accepts a connection");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("a read timeout");
        stream
    }

    /// A JSON-RPC call with the extension activated and alice's token.
    pub fn call(&self, method: &str, params: Value) -> Reply {
        self.call_with(method, params, &[ACTIVATED, AS_ALICE])
    }

    /// A JSON-RPC call with the given headers only.
    pub fn call_with(&self, method: &str, params: Value, headers: &[(&str, &str)]) -> Reply {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
        self.post(body.to_string(), headers)
    }

    /// The agent card.
    pub fn card(&self) -> Value {
        self.client
            .get(format!("{}.well-known/agent-card.json", self.base_url))
            .send()
            .expect("the card is served")
            .json()
            .expect("the card is JSON")
    }

    /// Asks the agent to route a declaration of `chapter`, in a new task or
    /// in `task`.
    pub fn route(&self, chapter: u32, task: Option<&str>, headers: &[(&str, &str)]) -> Value {
        let mut message = json!({
            "messageId": format!("m-{chapter}"),
            "role": "ROLE_USER",
            "parts": [{"text": format!("Route a declaration for HS chapter {chapter}")}]
        });
        if let Some(task) = task {
            message["taskId"] = json!(task);
        }
        let reply = self.call_with("SendMessage", json!({ "message": message }), headers);
        reply.result()["task"].clone()
    }

    /// Teaches a routing rule as alice.
    pub fn teach_rule(&self, chapter: u32, desk: &str) -> Reply {
        self.call(
            "rsaxb.learnables.Teach",
            json!({
                "collection": "routing_rules",
                "entry": chapter.to_string(),
                "value": {"chapter": chapter.to_string(), "desk": desk},
                "taughtBy": "alice@example.com"
            }),
        )
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The A2A version header the official SDK's server requires.
pub const VERSION: (&str, &str) = ("A2A-Version", "1.0");

/// The activation header.
pub const ACTIVATED: (&str, &str) = ("A2A-Extensions", EXTENSION_URI);

/// Alice's bearer token.
pub const AS_ALICE: (&str, &str) = ("Authorization", "Bearer alice-token");

/// Bob's bearer token: the second teacher, who reviews alice's lessons.
pub const AS_BOB: (&str, &str) = ("Authorization", "Bearer bob-token");

/// The bearer token of a teacher whose identity looks like a service account.
pub const AS_BOT: (&str, &str) = ("Authorization", "Bearer bot-token");

/// An HTTP reply, read.
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The extensions the `A2A-Extensions` header echoed.
    pub echoed: Vec<String>,
    /// The body, as JSON (`Null` when it is not JSON).
    pub body: Value,
    /// Every header, the name in lower case.
    pub headers: Vec<(String, String)>,
}

impl From<reqwest::blocking::Response> for Reply {
    fn from(response: reqwest::blocking::Response) -> Reply {
        let status = response.status().as_u16();
        let echoed = response
            .headers()
            .get_all("A2A-Extensions")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .map(str::to_owned)
            .collect();
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect();
        let text = response.text().unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply {
            status,
            echoed,
            body,
            headers,
        }
    }
}

/// The body of a chunked reply whose first bytes are `read`, decoded,
/// read from `stream` to its last chunk (and the blank line after it).
fn read_chunks(stream: &mut TcpStream, mut read: Vec<u8>) -> Vec<u8> {
    let mut body = Vec::new();
    let mut buffer = [0u8; 8192];
    let mut more = |read: &mut Vec<u8>| {
        let got = stream.read(&mut buffer).expect("the body arrives in time");
        assert!(got > 0, "the agent closed the connection mid-body");
        read.extend_from_slice(&buffer[..got]);
    };
    loop {
        let line_end = loop {
            if let Some(end) = read.windows(2).position(|window| window == b"\r\n") {
                break end;
            }
            more(&mut read);
        };
        let line = String::from_utf8_lossy(&read[..line_end]).into_owned();
        let size = usize::from_str_radix(line.split(';').next().unwrap_or_default().trim(), 16)
            .unwrap_or_else(|_| panic!("not a chunk size: {line}"));
        while read.len() < line_end + 2 + size + 2 {
            more(&mut read);
        }
        body.extend_from_slice(&read[line_end + 2..line_end + 2 + size]);
        read.drain(..line_end + 2 + size + 2);
        if size == 0 {
            return body;
        }
    }
}

/// Reads one HTTP/1.1 response from `stream` (its body sized by
/// `Content-Length`, chunked, or read to the end of the connection).
pub fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(end) = bytes.windows(4).position(|window| window == b"\r\n\r\n") {
            break end;
        }
        let read = stream.read(&mut chunk).expect("the agent answers in time");
        assert!(
            read > 0,
            "the agent closed the connection without answering"
        );
        bytes.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {head}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let header = |name: &'static str| {
        headers
            .iter()
            .filter(move |(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    let chunked = header("transfer-encoding").any(|coding| coding.eq_ignore_ascii_case("chunked"));
    let mut body = bytes[head_end + 4..].to_vec();
    if chunked {
        body = read_chunks(stream, body);
    }
    match header("content-length").next() {
        _ if chunked => {}
        Some(length) => {
            let length: usize = length.parse().expect("a Content-Length");
            while body.len() < length {
                let read = stream.read(&mut chunk).expect("the body arrives in time");
                assert!(read > 0, "the agent closed the connection mid-body");
                body.extend_from_slice(&chunk[..read]);
            }
            body.truncate(length);
        }
        None if status == 204 || status == 304 || status < 200 => {}
        None => {
            let _ = stream.read_to_end(&mut body);
        }
    }
    let echoed = header("a2a-extensions").map(str::to_owned).collect();
    Reply {
        status,
        echoed,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        headers,
    }
}

impl Reply {
    /// The values of the header `name` (in lower case).
    pub fn header(&self, name: &str) -> impl Iterator<Item = &str> {
        self.headers
            .iter()
            .filter(move |(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The result; panics with the error if there is one.
    pub fn result(&self) -> &Value {
        assert!(
            self.body.get("error").is_none(),
            "unexpected error: {}",
            self.body
        );
        &self.body["result"]
    }

    /// The error code; panics if the call succeeded.
    pub fn code(&self) -> i64 {
        self.body["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("expected an error, got {}", self.body))
    }

    /// The error message.
    pub fn message(&self) -> &str {
        self.body["error"]["message"].as_str().unwrap_or_default()
    }

    /// The error's typed detail of `@type` `kind` (A2A v1.0 carries
    /// details as an array of typed objects).
    fn detail(&self, kind: &str) -> Option<&Value> {
        self.body["error"]["data"]
            .as_array()?
            .iter()
            .find(|detail| detail["@type"] == kind)
    }

    /// The fields the error names (its `google.rpc.BadRequest`), in order,
    /// each with its description.
    pub fn violations(&self) -> Vec<(&str, &str)> {
        let Some(bad_request) = self.detail(learnables::a2a::json_rpc::BAD_REQUEST_TYPE) else {
            return Vec::new();
        };
        bad_request["fieldViolations"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|violation| {
                (
                    violation["field"].as_str().unwrap_or_default(),
                    violation["description"].as_str().unwrap_or_default(),
                )
            })
            .collect()
    }

    /// The first field the error names, if any.
    pub fn field(&self) -> Option<&str> {
        self.violations().first().map(|(field, _)| *field)
    }

    /// The error's stable reason (its `google.rpc.ErrorInfo`).
    pub fn reason(&self) -> Option<&str> {
        self.detail(learnables::a2a::json_rpc::ERROR_INFO_TYPE)?["reason"].as_str()
    }

    /// A fact of the error's `google.rpc.ErrorInfo` metadata.
    pub fn metadata(&self, key: &str) -> Option<&str> {
        self.detail(learnables::a2a::json_rpc::ERROR_INFO_TYPE)?["metadata"][key].as_str()
    }
}
