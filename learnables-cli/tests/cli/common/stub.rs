//! A scripted agent on 127.0.0.1: plain HTTP/1.1 over TCP (or over TLS
//! with a certificate made for the test), one request a connection, each
//! answered by the test's handler and recorded. For hostile agents: it
//! sends exactly the bytes the test says, however wrong.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// A request as the stub read it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`.
    pub method: String,
    /// The request target, `/.well-known/agent-card.json` say.
    pub path: String,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl Request {
    /// The JSON-RPC method of a POST, if its body is one.
    pub fn rpc_method(&self) -> Option<String> {
        let body: serde_json::Value = serde_json::from_str(&self.body).ok()?;
        body.get("method")?.as_str().map(str::to_owned)
    }

    /// Whether this asks for the agent card.
    pub fn is_card(&self) -> bool {
        self.method == "GET" && self.path.ends_with("/.well-known/agent-card.json")
    }
}

/// How the body of a reply is sent.
#[derive(Debug, Clone)]
pub enum Body {
    /// These bytes, with their `Content-Length`.
    Bytes(Vec<u8>),
    /// Spaces without end and without a `Content-Length`, until the client
    /// hangs up.
    Endless,
    /// One byte every `Duration`, without end.
    Drip(Duration),
}

/// A reply.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// Headers besides `Content-Length` and `Connection`.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
}

impl Reply {
    /// 200 with `value` as JSON.
    pub fn json(value: &serde_json::Value) -> Reply {
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: Body::Bytes(value.to_string().into_bytes()),
        }
    }

    /// A JSON-RPC result.
    pub fn result(result: serde_json::Value) -> Reply {
        Reply::json(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": result}))
    }

    /// A redirect with `status` to `location`.
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply {
            status,
            headers: vec![("Location".into(), location.into())],
            body: Body::Bytes(Vec::new()),
        }
    }

    /// 200 with `body`, sent as `body` says.
    pub fn streamed(body: Body) -> Reply {
        Reply {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body,
        }
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// A running stub; stopped when dropped.
pub struct Stub {
    /// `http://127.0.0.1:PORT/` (or `https://localhost:PORT/`).
    pub url: String,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    port: u16,
    thread: Option<JoinHandle<()>>,
}

impl Stub {
    /// A plain HTTP stub answering with `handler`.
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Stub {
        Stub::serve(Arc::new(handler), None)
    }

    /// A stub over TLS, with `config`'s certificate (for `localhost`).
    pub fn start_tls(
        config: Arc<rustls::ServerConfig>,
        handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> Stub {
        Stub::serve(Arc::new(handler), Some(config))
    }

    fn serve(handler: Arc<Handler>, tls: Option<Arc<rustls::ServerConfig>>) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("an address").port();
        let url = match tls {
            Some(_) => format!("https://localhost:{port}/"),
            None => format!("http://127.0.0.1:{port}/"),
        };
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let requests = Arc::clone(&requests);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let handler = Arc::clone(&handler);
                    let requests = Arc::clone(&requests);
                    let tls = tls.clone();
                    let stop = Arc::clone(&stop);
                    std::thread::spawn(move || {
                        let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
                        let _ = stream.set_write_timeout(Some(Duration::from_secs(30)));
                        match tls {
                            None => answer(stream, &*handler, &requests, &stop),
                            Some(config) => {
                                let Ok(connection) = rustls::ServerConnection::new(config) else {
                                    return;
                                };
                                let stream = rustls::StreamOwned::new(connection, stream);
                                answer(stream, &*handler, &requests, &stop);
                            }
                        }
                    });
                }
            })
        };
        Stub {
            url,
            requests,
            stop,
            port,
            thread: Some(thread),
        }
    }

    /// Every request read so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("the lock").clone()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads one request from `stream`, records it, and answers it.
fn answer(
    mut stream: impl Read + Write,
    handler: &Handler,
    requests: &Mutex<Vec<Request>>,
    stop: &AtomicBool,
) {
    let Some(request) = read_request(&mut stream) else {
        return;
    };
    requests.lock().expect("the lock").push(request.clone());
    let reply = handler(&request);
    let reason = match reply.status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {} {reason}\r\nConnection: close\r\n",
        reply.status
    );
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Body::Bytes(bytes) = &reply.body {
        head.push_str(&format!("Content-Length: {}\r\n", bytes.len()));
    }
    head.push_str("\r\n");
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    match reply.body {
        Body::Bytes(bytes) => {
            let _ = stream.write_all(&bytes);
        }
        Body::Endless => {
            let chunk = vec![b' '; 64 * 1024];
            while !stop.load(Ordering::SeqCst) && stream.write_all(&chunk).is_ok() {}
        }
        Body::Drip(every) => {
            while !stop.load(Ordering::SeqCst)
                && stream.write_all(b" ").is_ok()
                && stream.flush().is_ok()
            {
                std::thread::sleep(every);
            }
        }
    }
    let _ = stream.flush();
}

fn read_request(stream: &mut impl Read) -> Option<Request> {
    let mut reader = BufReader::new(stream);
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    let mut parts = first.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length.min(1 << 20)];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// A self-signed certificate for `localhost`, made now: the server's TLS
/// configuration and the certificate as PEM (what `--ca-cert` reads).
pub fn self_signed_localhost() -> (Arc<rustls::ServerConfig>, String) {
    let rcgen::CertifiedKey { cert, signing_key } =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("a certificate");
    let pem = cert.pem();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(signing_key.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("TLS versions")
    .with_no_client_auth()
    .with_single_cert(vec![cert.der().clone()], key)
    .expect("a server configuration");
    (Arc::new(config), pem)
}

/// `teach URL -c rules -e r1 --taught-by ALICE --token TOKEN`, then
/// `extra`: a lesson for the stubs' learnable `rules`.
pub fn teach_rules(url: &str, token: &str, extra: &[&str]) -> Vec<String> {
    let base = [
        "teach",
        url,
        "-c",
        "rules",
        "-e",
        "r1",
        "--taught-by",
        super::ALICE,
    ];
    base.iter()
        .chain(&["--token", token])
        .chain(extra)
        .map(|arg| (*arg).to_owned())
        .collect()
}

/// A server on 127.0.0.1 that answers every connection with bytes that are
/// not HTTP; stopped when dropped.
pub struct NotHttp {
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
    stop: Arc<AtomicBool>,
    port: u16,
    thread: Option<JoinHandle<()>>,
}

impl NotHttp {
    /// Starts it on a free port.
    pub fn start() -> NotHttp {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("an address").port();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(mut stream) = stream else { continue };
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
                    let mut request = [0; 4096];
                    let _ = stream.read(&mut request);
                    let _ = stream.write_all(b"SSH-2.0-not-an-agent\r\n\x00\x01garbage\r\n\r\n");
                }
            })
        };
        NotHttp {
            url: format!("http://127.0.0.1:{port}/"),
            stop,
            port,
            thread: Some(thread),
        }
    }
}

impl Drop for NotHttp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The URL of a port on 127.0.0.1 that nothing listens on (bound, then
/// closed).
pub fn closed_port_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("an address").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/")
}
