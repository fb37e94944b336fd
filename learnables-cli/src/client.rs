//! HTTP and HTTPS to the agent: its card, and JSON-RPC calls with the
//! Learnables extension activated and the teacher's bearer token.
//!
//! Everything the agent sends is hostile until read:
//!
//! - **TLS**: rustls, with the platform's verifier and the system's roots;
//!   `--ca-cert FILE` adds authorities (an agent whose certificate a
//!   company or test authority signed).
//! - **Redirects**: the card may be redirected within its origin (same
//!   scheme, host and port), at most [`MAX_CARD_REDIRECTS`] times; a
//!   JSON-RPC call (a lesson, a show-back) follows none, so a lesson and
//!   the token go nowhere but the URL the person gave. A redirect not
//!   followed is an error naming its target.
//! - **Bounds**: at most [`MAX_CARD_BYTES`] of a card and
//!   [`MAX_ANSWER_BYTES`] of an answer are read, streamed: a larger one is
//!   refused without being buffered.
//! - **Timeouts**: connecting takes at most [`MAX_CONNECT_TIMEOUT`] (or
//!   `--timeout`, if shorter), and a whole request, body included, at most
//!   `--timeout`.

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use learnables::a2a::json_rpc::{BAD_REQUEST_TYPE, ERROR_INFO_TYPE};
use learnables::untrusted::Untrusted;
use learnables::{ACTIVATION_HEADER, EXTENSION_URI};
use reqwest::blocking::{Client, Response};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, LOCATION};
use reqwest::redirect::Policy;
use reqwest::{Certificate, Url};
use serde_json::{Value, json};

use crate::error::{CliError, Refusal};
use crate::spinner::Spinner;

/// Where the agent card is, below an agent's base URL.
pub const CARD_PATH: &str = ".well-known/agent-card.json";

/// The most of an agent card read: 4 MiB.
pub const MAX_CARD_BYTES: u64 = 4 * 1024 * 1024;

/// The most of a JSON-RPC answer read: 1 MiB.
pub const MAX_ANSWER_BYTES: u64 = 1024 * 1024;

/// The most of a `--ca-cert` file read: 1 MiB.
pub const MAX_CA_CERT_BYTES: u64 = 1024 * 1024;

/// How many redirects within its origin a card fetch follows.
pub const MAX_CARD_REDIRECTS: usize = 5;

/// The longest wait for a connection, whatever `--timeout` says.
pub const MAX_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How the client reaches agents: its timeout and the authorities it
/// trusts beyond the system's.
#[derive(Debug, Clone, Default)]
pub struct Connection<'a> {
    /// The longest a whole request may take.
    pub timeout: Duration,
    /// A PEM file of certificate authorities to trust besides the
    /// system's (`--ca-cert`).
    pub ca_cert: Option<&'a Path>,
    /// Whether a spinner shows the wait (on standard error, when it is a
    /// terminal); off for `--json`.
    pub spinner: bool,
}

/// An agent reached over HTTP or HTTPS.
#[derive(Debug, Clone)]
pub struct AgentClient {
    base: String,
    /// For the card: follows redirects within the card's origin.
    card_http: Client,
    /// For JSON-RPC calls: follows no redirect.
    call_http: Client,
    spinner: bool,
}

impl AgentClient {
    /// A client for the agent at `url` (see [`base_url`] for what is
    /// accepted), reached as `connection` says.
    pub fn new(url: &str, connection: &Connection<'_>) -> Result<AgentClient, CliError> {
        let base = base_url(url)?;
        let roots = match connection.ca_cert {
            Some(file) => read_ca_cert(file)?,
            None => Vec::new(),
        };
        let card_http = http_client(connection, &roots, same_origin_redirects())?;
        let call_http = http_client(connection, &roots, Policy::none())?;
        Ok(AgentClient {
            base,
            card_http,
            call_http,
            spinner: connection.spinner,
        })
    }

    /// Runs `work`, with a spinner saying `message` if this client shows
    /// one.
    fn waiting<T>(&self, message: &str, work: impl FnOnce() -> T) -> T {
        if self.spinner {
            Spinner::during(message, work)
        } else {
            work()
        }
    }

    /// The agent's base URL, ending in `/`: where JSON-RPC calls go.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The URL of the agent card.
    pub fn card_url(&self) -> String {
        format!("{}{CARD_PATH}", self.base)
    }

    /// Fetches the agent card (no activation needed: the declaration is
    /// data-only).
    pub fn fetch_card(&self) -> Result<Value, CliError> {
        let url = self.card_url();
        let response = self
            .waiting("fetching the agent card", || {
                self.card_http.get(&url).send()
            })
            .map_err(|error| request_failed(&url, &error))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(CliError::not_understood(format!(
                "the agent card at {} redirects to {} (HTTP {status}), another origin: \
                 learnables follows a card's redirects only within its origin (the same \
                 scheme, host and port)",
                shown(&url),
                redirect_target(&response)
            )));
        }
        if !status.is_success() {
            return Err(CliError::not_understood(format!(
                "no agent card at {}: the server answered HTTP {status}",
                shown(&url)
            )));
        }
        let body = read_bounded(response, MAX_CARD_BYTES, "the agent card", &url)?;
        serde_json::from_slice(&body).map_err(|error| {
            CliError::not_understood(format!(
                "the agent card at {} is not JSON: {}",
                shown(&url),
                shown(&error.to_string())
            ))
        })
    }

    /// Calls `method` with `params`, the extension activated and `token`
    /// as the bearer token: the result, or the agent's refusal of `what`
    /// ("the lesson", say). `waiting` is what the spinner says meanwhile.
    pub fn call(
        &self,
        method: &str,
        params: Value,
        token: &str,
        what: &str,
        waiting: &str,
    ) -> Result<Value, CliError> {
        let mut authorization = HeaderValue::from_str(&format!("Bearer {}", token.trim()))
            .map_err(|_| CliError::usage("the token has characters an HTTP header cannot carry"))?;
        authorization.set_sensitive(true);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let url = self.base.as_str();
        let response = self
            .waiting(waiting, || {
                self.call_http
                    .post(url)
                    .header(CONTENT_TYPE, "application/json")
                    .header(ACTIVATION_HEADER, EXTENSION_URI)
                    // A2A v1.0: a request without it counts as version 0.3.
                    .header("A2A-Version", "1.0")
                    .header(AUTHORIZATION, authorization)
                    .body(body.to_string())
                    .send()
            })
            .map_err(|error| request_failed(url, &error))?;
        let status = response.status();
        let method = shown(method);
        if status.is_redirection() {
            return Err(CliError::not_understood(format!(
                "the agent at {} answered `{method}` with a redirect to {} (HTTP {status}); \
                 learnables follows no redirect for {what}, so nothing was sent there",
                shown(url),
                redirect_target(&response)
            )));
        }
        let text = read_bounded(response, MAX_ANSWER_BYTES, "its answer", url)?;
        let reply: Value = serde_json::from_slice(&text).map_err(|_| {
            CliError::not_understood(format!(
                "the agent at {} answered `{method}` with HTTP {status} and no JSON-RPC response",
                shown(url)
            ))
        })?;
        read_reply(reply, what).map_err(|error| match error {
            ReplyError::Refused(refusal) => CliError::Refused(refusal),
            ReplyError::Malformed => CliError::not_understood(format!(
                "the agent at {} answered `{method}` (HTTP {status}) with neither a result \
                 nor an error",
                shown(url)
            )),
        })
    }
}

/// Text from the network or a file, escaped and bounded for a message.
fn shown(text: &str) -> String {
    Untrusted::new(text).max_chars(512).to_string()
}

fn http_client(
    connection: &Connection<'_>,
    roots: &[Certificate],
    redirects: Policy,
) -> Result<Client, CliError> {
    let timeout = connection.timeout;
    // reqwest's TLS uses the process's rustls provider: ring, unless one is
    // installed already (installing again fails and changes nothing).
    let _ = rustls::crypto::ring::default_provider().install_default();
    // The async builder's timeout covers the whole request, body included;
    // the blocking one's bounds each wait.
    let mut builder = reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(MAX_CONNECT_TIMEOUT))
        .redirect(redirects)
        .user_agent(concat!("learnables/", env!("CARGO_PKG_VERSION")));
    for root in roots {
        builder = builder.add_root_certificate(root.clone());
    }
    reqwest::blocking::ClientBuilder::from(builder)
        .timeout(timeout)
        .build()
        .map_err(|error| {
            CliError::network(format!("cannot make an HTTP client: {}", chain(&error)))
        })
}

/// Follows a redirect only to the same origin as the first URL, at most
/// [`MAX_CARD_REDIRECTS`] times; stops (leaving the redirect as the
/// answer) at any other.
fn same_origin_redirects() -> Policy {
    Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_CARD_REDIRECTS {
            attempt.error(format!(
                "more than {MAX_CARD_REDIRECTS} redirects within the origin"
            ))
        } else {
            attempt.follow()
        }
    })
}

/// Where a redirect points, resolved against the URL it came from, as a
/// person may read it.
fn redirect_target(response: &Response) -> String {
    let Some(location) = response.headers().get(LOCATION) else {
        return "nowhere (it has no Location)".to_owned();
    };
    let location = String::from_utf8_lossy(location.as_bytes());
    let target = response
        .url()
        .join(&location)
        .map_or_else(|_| location.to_string(), |url| url.to_string());
    shown(&target)
}

/// The certificates of a `--ca-cert` file (PEM), at least one.
pub fn read_ca_cert(file: &Path) -> Result<Vec<Certificate>, CliError> {
    let pem = read_file_bounded(file, MAX_CA_CERT_BYTES)?;
    let name = shown(&file.display().to_string());
    let certificates = Certificate::from_pem_bundle(&pem).map_err(|error| {
        CliError::usage(format!(
            "--ca-cert {name}: not PEM certificates: {}",
            chain(&error)
        ))
    })?;
    if certificates.is_empty() {
        return Err(CliError::usage(format!(
            "--ca-cert {name} holds no certificate (a PEM file, `-----BEGIN CERTIFICATE-----`)"
        )));
    }
    Ok(certificates)
}

/// Reads at most `limit` bytes of `file` (`-` for standard input): the
/// bytes, or an error saying the file is larger.
pub fn read_file_bounded(file: &Path, limit: u64) -> Result<Vec<u8>, CliError> {
    let name = shown(&file.display().to_string());
    let mut bytes = Vec::new();
    let read = if file == Path::new("-") {
        std::io::stdin().take(limit + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(file).and_then(|opened| opened.take(limit + 1).read_to_end(&mut bytes))
    };
    let name = if file == Path::new("-") {
        "standard input".to_owned()
    } else {
        name
    };
    read.map_err(|error| CliError::usage(format!("cannot read {name}: {error}")))?;
    if bytes.len() as u64 > limit {
        return Err(CliError::usage(format!(
            "{name} is larger than {}: learnables reads no more",
            size(limit)
        )));
    }
    Ok(bytes)
}

/// Reads at most `limit` bytes of a response's body, streamed: an error
/// as soon as the body (or its announced length) is larger.
fn read_bounded(
    response: Response,
    limit: u64,
    what: &str,
    url: &str,
) -> Result<Vec<u8>, CliError> {
    let too_large = || {
        CliError::not_understood(format!(
            "{what} from {} is larger than {}: learnables reads no more",
            shown(url),
            size(limit)
        ))
    };
    if response
        .content_length()
        .is_some_and(|length| length > limit)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    response
        .take(limit + 1)
        .read_to_end(&mut body)
        .map_err(|error| {
            let timed_out = error.kind() == std::io::ErrorKind::TimedOut
                || error
                    .get_ref()
                    .and_then(|inner| inner.downcast_ref::<reqwest::Error>())
                    .is_some_and(reqwest::Error::is_timeout);
            if timed_out {
                CliError::network(format!(
                    "the agent at {} did not finish sending {what} in time",
                    shown(url)
                ))
            } else {
                CliError::network(format!(
                    "the agent at {} broke off sending {what}: {}",
                    shown(url),
                    shown(&error.to_string())
                ))
            }
        })?;
    if body.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(body)
}

/// `4 MiB`, `512 KiB`, `300 bytes`.
pub fn size(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    match bytes {
        b if b >= MIB && b % MIB == 0 => format!("{} MiB", b / MIB),
        b if b >= 1024 && b % 1024 == 0 => format!("{} KiB", b / 1024),
        b => format!("{b} bytes"),
    }
}

/// Why a JSON-RPC reply is not a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyError {
    /// The agent sent an error.
    Refused(Box<Refusal>),
    /// The reply is neither a result nor an error.
    Malformed,
}

/// Reads a JSON-RPC reply: its `result`, or its `error` as a refusal of
/// `what`.
pub fn read_reply(mut reply: Value, what: &str) -> Result<Value, ReplyError> {
    if let Some(error) = reply.get("error") {
        let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
        // A2A v1.0 errors carry `data` as an array of typed details: a
        // `google.rpc.BadRequest` names each field at fault, a
        // `google.rpc.ErrorInfo` gives the reason.
        let details: &[Value] = error
            .get("data")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let detail = |kind: &str| details.iter().find(|detail| detail["@type"] == kind);
        let problems: Vec<(Option<String>, String)> = detail(BAD_REQUEST_TYPE)
            .and_then(|bad_request| bad_request["fieldViolations"].as_array())
            .into_iter()
            .flatten()
            .map(|violation| {
                (
                    text(violation.get("field")),
                    text(violation.get("description")).unwrap_or_else(|| violation.to_string()),
                )
            })
            .collect();
        return Err(ReplyError::Refused(Box::new(Refusal {
            what: what.to_owned(),
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: text(error.get("message")).unwrap_or_else(|| error.to_string()),
            field: problems.first().and_then(|(field, _)| field.clone()),
            reason: detail(ERROR_INFO_TYPE).and_then(|info| text(info.get("reason"))),
            problems,
            labels: Default::default(),
        })));
    }
    match reply.get_mut("result") {
        Some(result) => Ok(result.take()),
        None => Err(ReplyError::Malformed),
    }
}

/// The agent's base URL, ending in `/`, from what the person typed:
/// `http://host:port` or `https://host:port`, with or without a path or a
/// trailing `/`, or the card's own URL; `host:port` alone means
/// `http://`.
pub fn base_url(url: &str) -> Result<String, CliError> {
    let url = url.trim();
    let url = if url.contains("://") {
        url.to_owned()
    } else {
        format!("http://{url}")
    };
    let parsed = Url::parse(&url)
        .map_err(|error| CliError::usage(format!("`{}` is not a URL: {error}", shown(&url))))?;
    match parsed.scheme() {
        "http" | "https" => {}
        other => {
            return Err(CliError::usage(format!(
                "`{}` has the scheme `{}`; the agent's URL starts with http:// or https://",
                shown(&url),
                shown(other)
            )));
        }
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(CliError::usage(format!("`{}` names no host", shown(&url))));
    }
    let mut base = parsed.to_string();
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(CliError::usage(format!(
            "`{}` has a query or a fragment; give the agent's base URL",
            shown(&url)
        )));
    }
    if let Some(stripped) = base.strip_suffix(CARD_PATH) {
        base = stripped.to_owned();
    }
    if !base.ends_with('/') {
        base.push('/');
    }
    Ok(base)
}

/// An error and its causes, one after the other.
fn chain(error: &dyn std::error::Error) -> String {
    let mut reason = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !reason.ends_with(&text) {
            reason.push_str(": ");
            reason.push_str(&text);
        }
        source = cause.source();
    }
    reason
}

/// Whether a failed request failed on the agent's certificate: rustls's
/// error, found in the chain of causes (the connector boxes it in layers a
/// downcast cannot see through, so its text is read too).
fn certificate_refused(error: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        let rustls_error = cause.downcast_ref::<rustls::Error>().or_else(|| {
            cause
                .downcast_ref::<std::io::Error>()
                .and_then(std::io::Error::get_ref)
                .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        });
        let refused = matches!(
            rustls_error,
            Some(rustls::Error::InvalidCertificate(_) | rustls::Error::NoCertificatesPresented)
        );
        let text = cause.to_string();
        if refused
            || text.starts_with("invalid peer certificate")
            || text.starts_with("peer sent no certificates")
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// Whether a failed request failed because the agent's answer is not
/// HTTP: hyper's parse error, found in the chain of causes.
fn not_http(error: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        if cause
            .downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_parse)
        {
            return true;
        }
        source = cause.source();
    }
    false
}

fn request_failed(url: &str, error: &reqwest::Error) -> CliError {
    let reason = shown(&chain(error));
    let url = shown(url);
    if certificate_refused(error) {
        return CliError::network(format!(
            "the agent at {url} has a TLS certificate this machine does not trust ({reason}); \
             if another authority signed it, give that authority's certificate with \
             --ca-cert FILE"
        ));
    }
    if not_http(error) {
        return CliError::not_understood(format!(
            "the agent at {url} answered with something that is not HTTP ({reason})"
        ));
    }
    if error.is_redirect() {
        return CliError::not_understood(format!(
            "the agent at {url} redirects too often ({reason})"
        ));
    }
    if error.is_timeout() {
        return CliError::network(format!(
            "the agent at {url} did not answer in time ({reason})"
        ));
    }
    CliError::network(format!("cannot reach the agent at {url}: {reason}"))
}

/// The agent's answer to a teach, retract, revert or review call, read as
/// the `LessonResult` it must be.
pub fn lesson_result(answer: Value) -> Result<learnables::LessonResult, CliError> {
    serde_json::from_value(answer).map_err(|error| {
        CliError::not_understood(format!(
            "the agent's answer is not a LessonResult: {}",
            crate::render::line(&error.to_string())
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        for (typed, base) in [
            ("http://127.0.0.1:8471", "http://127.0.0.1:8471/"),
            ("http://127.0.0.1:8471/", "http://127.0.0.1:8471/"),
            ("127.0.0.1:8471", "http://127.0.0.1:8471/"),
            (
                "http://agents.example/customs",
                "http://agents.example/customs/",
            ),
            ("http://h:1/.well-known/agent-card.json", "http://h:1/"),
        ] {
            assert_eq!(base_url(typed).unwrap(), base, "{typed}");
        }
    }

    #[test]
    fn https_is_taken_and_other_schemes_are_refused_with_a_reason() {
        assert_eq!(
            base_url("https://agents.example").unwrap(),
            "https://agents.example/"
        );
        assert!(
            base_url("ftp://x/")
                .unwrap_err()
                .to_string()
                .contains("`ftp`")
        );
        assert!(base_url("http://x/?a=1").is_err());
    }

    #[test]
    fn sizes_are_said_in_their_unit() {
        assert_eq!(size(MAX_CARD_BYTES), "4 MiB");
        assert_eq!(size(MAX_ANSWER_BYTES), "1 MiB");
        assert_eq!(size(2048), "2 KiB");
        assert_eq!(size(1000), "1000 bytes");
    }

    #[test]
    fn a_file_past_its_bound_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big.json");
        std::fs::write(&file, vec![b' '; 2049]).unwrap();
        assert_eq!(read_file_bounded(&file, 2049).unwrap().len(), 2049);
        let error = read_file_bounded(&file, 2048).unwrap_err().to_string();
        assert!(
            error.ends_with("is larger than 2 KiB: learnables reads no more"),
            "{error}"
        );
    }

    #[test]
    fn replies() {
        assert_eq!(
            read_reply(json!({"jsonrpc": "2.0", "id": 1, "result": {"a": 1}}), "x"),
            Ok(json!({"a": 1}))
        );
        let refused = read_reply(
            json!({"error": {"code": -32602, "message": "bad", "data": [
                {"@type": BAD_REQUEST_TYPE, "fieldViolations": [
                    {"field": "value.chapter", "description": "not a number"},
                    {"field": "value.desk", "description": "not a desk"}]},
                {"@type": ERROR_INFO_TYPE, "reason": "LESSON_INVALID", "domain": "d"}]}}),
            "the lesson",
        );
        let Err(ReplyError::Refused(refusal)) = refused else {
            panic!("{refused:?}")
        };
        assert_eq!(refusal.code, -32602);
        assert_eq!(refusal.field.as_deref(), Some("value.chapter"));
        assert_eq!(
            refusal.problems,
            [
                (Some("value.chapter".to_owned()), "not a number".to_owned()),
                (Some("value.desk".to_owned()), "not a desk".to_owned())
            ]
        );
        assert_eq!(refusal.reason.as_deref(), Some("LESSON_INVALID"));
        assert_eq!(
            read_reply(json!({"id": 1}), "x"),
            Err(ReplyError::Malformed)
        );
    }

    #[test]
    fn files_are_read_within_a_bound() {
        use crate::client::read_file_bounded;
        let file =
            std::env::temp_dir().join(format!("read_file_bounded_{}.json", std::process::id()));
        std::fs::write(&file, "{}").unwrap();
        assert_eq!(read_file_bounded(&file, 2).unwrap(), b"{}");
        assert!(read_file_bounded(&file, 1).is_err());
        std::fs::remove_file(&file).unwrap();
    }

    #[test]
    fn sizes_in_words() {
        assert_eq!(crate::client::size(4 * 1024 * 1024), "4 MiB");
    }
}
