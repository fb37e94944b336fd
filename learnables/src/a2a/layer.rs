//! Learnables inside any axum/tower agent: a [`tower::Layer`] that answers
//! the learnables methods at the JSON-RPC endpoint and passes every other
//! request through to the agent's own service, untouched.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::header::{AUTHORIZATION, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, EXPECT};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, request};
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use serde_json::Value;
use tower::{Layer, Service, ServiceExt};

use super::activation::ACTIVATION_HEADER_NAME;
use super::json_rpc::{self, RpcError, codes};
use super::method_scan::{MethodScan, Verdict};
use super::replay::Replay;
use super::scrubbed_response::{ask_for_no_encoding, compressed, scrub_response};
use super::{Activation, CarriesNoTeachBlock, LearnablesService};
use crate::EXTENSION_URI;

tokio::task_local! {
    /// Whether the request the agent's service is answering activated the
    /// extension: what a push configuration saved while it runs is
    /// registered under.
    pub(crate) static REQUEST_ACTIVATED: bool;
}

/// The header naming the A2A version a request speaks.
const VERSION_HEADER: &str = "a2a-version";

/// A [`tower::Layer`] that adds Learnables to an agent's service (an axum
/// `Router`, such as the routers of the official A2A server SDK).
///
/// - A `POST` to the JSON-RPC endpoint (`/` unless [`LearnablesLayer::at`]
///   says otherwise) whose `method` is one of the learnables methods the
///   declaration serves is answered here, under this layer's limits (body
///   size, nesting, keys given twice). The method is found from the first
///   bytes of the body; nothing more of a request that is not ours is read
///   before it is handed on.
/// - Every other request goes to the inner service with the same bytes and
///   headers, and no limit or policy of ours.
/// - A response to a request that activated the extension gets the
///   extension's URI in its `A2A-Extensions` header, streamed ones too.
/// - A response to a request that did not activate it loses any teach
///   block (`metadata[URI]`) on its messages, tasks and stream events: the
///   second line of defence behind the executor's own check. Its body is
///   scrubbed as it flows, never read whole, by the rules of
///   [`ResponseScrubber`](super::ResponseScrubber): JSON loses only the blocks' spans (numbers, key
///   order and whitespace stay byte for byte, and a `metadata` or
///   `extensions` left empty goes too); a body that is neither JSON nor an
///   event stream, or JSON that stops parsing, goes on only while it
///   cannot hold the URI in any spelling. Where it does, the answer is
///   `502 Bad Gateway` while nothing of it was sent, and is cut off (the
///   connection ends with an error) after.
/// - Such a client's request reaches the agent with `Accept-Encoding:
///   identity` and no transfer coding asked for in `TE`, so that the body
///   is scrubbed as it is, never decoded; an encoded body is answered
///   `502 Bad Gateway`. The scrubbed body is compressed here (gzip, br or
///   deflate, by tower-http) when the client's own `Accept-Encoding`
///   accepts one. A small body the agent ended goes with its
///   `Content-Length`; a longer one is sent chunked, its last chunk in the
///   same write as the end.
/// - While the agent's service answers, the request's activation is known
///   to `ActivatedPushConfigs` (feature `a2a-server`), which refuses a push notification config
///   from a request that did not activate the extension.
///
/// Apply it last, over everything the agent serves (merge the routers
/// first), so that it sees every request:
///
/// ```
/// use axum::Router;
/// use axum::routing::get;
/// use learnables::a2a::{LearnablesLayer, LearnablesService, Tokens};
/// use learnables::{Declaration, Knowledge, TEACH_METHOD};
/// let service = LearnablesService::new(
///     Knowledge::in_memory(),
///     Declaration::new().teach_method(TEACH_METHOD),
///     Tokens::new(),
/// );
/// let host = Router::new().route("/health", get(|| async { "ok" }));
/// let agent: Router = host.layer(LearnablesLayer::new(service));
/// ```
#[derive(Clone)]
pub struct LearnablesLayer {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for LearnablesLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LearnablesLayer")
            .field("service", &self.shared.service)
            .field("rpc_path", &self.shared.rpc_path)
            .finish_non_exhaustive()
    }
}

struct Shared {
    service: LearnablesService,
    rpc_path: String,
}

impl LearnablesLayer {
    /// The layer for `service`, with the JSON-RPC endpoint at `/`.
    pub fn new(service: LearnablesService) -> LearnablesLayer {
        LearnablesLayer {
            shared: Arc::new(Shared {
                service,
                rpc_path: "/".into(),
            }),
        }
    }

    /// The same layer with the JSON-RPC endpoint at `rpc_path`.
    pub fn at(self, rpc_path: impl Into<String>) -> LearnablesLayer {
        LearnablesLayer {
            shared: Arc::new(Shared {
                service: self.shared.service.clone(),
                rpc_path: rpc_path.into(),
            }),
        }
    }
}

impl<S> Layer<S> for LearnablesLayer {
    type Service = LearnablesMiddleware<S>;

    fn layer(&self, inner: S) -> LearnablesMiddleware<S> {
        LearnablesMiddleware {
            inner: Arc::new(Mutex::new(inner)),
            shared: self.shared.clone(),
        }
    }
}

/// The service [`LearnablesLayer`] wraps around an agent's service.
///
/// It keeps the agent's service once, shared by all its clones (axum clones
/// a route's service for each request). A request for the agent gets a
/// clone of its own, awaited until ready and then called, as axum's routes
/// do; a learnables request makes no clone. So this service is always
/// ready, and the agent's service applies its back-pressure to each request.
pub struct LearnablesMiddleware<S> {
    inner: Arc<Mutex<S>>,
    shared: Arc<Shared>,
}

impl<S> std::fmt::Debug for LearnablesMiddleware<S> {
    /// The learnables side (the agent's service need not be `Debug`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LearnablesMiddleware")
            .field("service", &self.shared.service)
            .field("rpc_path", &self.shared.rpc_path)
            .finish_non_exhaustive()
    }
}

impl<S> Clone for LearnablesMiddleware<S> {
    fn clone(&self) -> Self {
        LearnablesMiddleware {
            inner: self.inner.clone(),
            shared: self.shared.clone(),
        }
    }
}

impl<S> Service<Request> for LearnablesMiddleware<S>
where
    S: Service<Request, Response = Response> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let inner = self.inner.clone();
        let shared = self.shared.clone();
        Box::pin(async move {
            // The agent's own service, for this request alone.
            let agent = || inner.lock().unwrap_or_else(PoisonError::into_inner).clone();
            let activation = Activation::from_headers(request.headers());
            let activated = activation.learnables();
            let mut request = request;
            let accepted = if activated {
                Vec::new()
            } else {
                ask_for_no_encoding(request.headers_mut())
            };
            let response =
                if request.method() == Method::POST && request.uri().path() == shared.rpc_path {
                    match read_method(&shared.service, request).await {
                        Found::Ours(parts, read) => {
                            let response = answer(&shared.service, parts, read, &activation).await;
                            // Our own answers carry no teach block.
                            return Ok(if activated { echo(response) } else { response });
                        }
                        Found::Other(request) => {
                            REQUEST_ACTIVATED
                                .scope(activated, agent().oneshot(request))
                                .await?
                        }
                    }
                } else {
                    REQUEST_ACTIVATED
                        .scope(activated, agent().oneshot(request))
                        .await?
                };
            Ok(if activated {
                echo(response)
            } else if response.extensions().get::<CarriesNoTeachBlock>().is_some() {
                compressed(response, accepted).await
            } else {
                compressed(scrub_response(response).await, accepted).await
            })
        })
    }
}

/// A request to the endpoint, once its method is known.
enum Found {
    /// One of ours, with the body read so far (the rest still in it).
    Ours(request::Parts, Replay),
    /// Anyone else's, its body as the client sent it.
    Other(Request),
}

/// Reads the body of a request to the JSON-RPC endpoint until its method
/// is known, or the limit on our requests' size is reached (a request
/// that large is not one of ours).
async fn read_method(service: &LearnablesService, request: Request) -> Found {
    let limit = service.limits().max_body_bytes;
    // A client waiting for `100 Continue` before sending a body larger than
    // any of ours lets the inner service decide whether it wants it.
    if request.headers().contains_key(EXPECT)
        && announced_length(request.headers()).is_some_and(|length| length > limit as u64)
    {
        return Found::Other(request);
    }
    let (parts, mut body) = request.into_parts();
    let mut scan = MethodScan::new();
    let mut read = VecDeque::new();
    let mut seen = 0usize;
    let (verdict, rest, error) = loop {
        match next_frame(&mut body).await {
            None => break (Verdict::NoMethod, None, None),
            Some(Err(error)) => break (Verdict::NoMethod, None, Some(error)),
            Some(Ok(frame)) => {
                let verdict = match frame.data_ref() {
                    Some(data) => {
                        seen += data.len();
                        scan.feed(data)
                    }
                    None => Verdict::NeedMore,
                };
                read.push_back(frame);
                match verdict {
                    Verdict::NeedMore if seen <= limit => continue,
                    Verdict::NeedMore => break (Verdict::NoMethod, Some(body), None),
                    verdict => break (verdict, Some(body), None),
                }
            }
        }
    };
    let replay = Replay { read, error, rest };
    match verdict {
        Verdict::Method(method) if service.handles(&method) => Found::Ours(parts, replay),
        _ => Found::Other(Request::from_parts(parts, Body::new(replay))),
    }
}

/// The body length a request's `Content-Length` announces.
fn announced_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok())
}

async fn next_frame<B: HttpBody + Unpin>(body: &mut B) -> Option<Result<Frame<B::Data>, B::Error>> {
    std::future::poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx)).await
}

/// Answers a request for one of the learnables methods, which activated
/// the extensions `activation` lists.
async fn answer(
    service: &LearnablesService,
    parts: request::Parts,
    body: Replay,
    activation: &Activation,
) -> Response {
    let limit = service.limits().max_body_bytes;
    let too_large = || {
        refusal_unread(
            StatusCode::PAYLOAD_TOO_LARGE,
            RpcError::new(
                codes::INVALID_REQUEST,
                format!("the request is larger than the limit of {limit} bytes"),
            ),
        )
    };
    // A body announced as too large is refused before the rest is read.
    if announced_length(&parts.headers).is_some_and(|length| length > limit as u64) {
        return too_large();
    }
    let bytes = match read_body(body, limit).await {
        Ok(bytes) => bytes,
        Err(BodyError::TooLarge) => return too_large(),
        Err(BodyError::Unreadable(error)) => {
            return refusal_unread(
                StatusCode::BAD_REQUEST,
                RpcError::new(
                    codes::INVALID_REQUEST,
                    format!("the request body could not be read: {error}"),
                ),
            );
        }
    };
    let request = match json_rpc::read_request(&bytes, service.limits()) {
        Ok(request) => request,
        Err(error) => {
            let id = json_rpc::best_effort_id(&bytes);
            return rpc_response(StatusCode::OK, &json_rpc::failure(id, error));
        }
    };
    if let Some(refusal) = unsupported_version(&parts.headers) {
        return match request.id {
            Some(id) => rpc_response(StatusCode::OK, &json_rpc::failure(id, refusal)),
            None => StatusCode::NO_CONTENT.into_response(),
        };
    }
    // Two `Authorization` headers are ambiguous (a proxy may have checked
    // the other one): neither counts.
    let mut authorizations = parts.headers.get_all(AUTHORIZATION).iter();
    let bearer = match (authorizations.next(), authorizations.next()) {
        (Some(value), None) => value.to_str().ok().and_then(bearer_token),
        _ => None,
    }
    .map(str::to_owned);
    let answered =
        unless_it_panics(service.answer_async(request, activation, bearer.as_deref())).await;
    match answered {
        Some(Some(response)) => rpc_response(StatusCode::OK, &response),
        Some(None) => StatusCode::NO_CONTENT.into_response(),
        None => rpc_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &json_rpc::failure(
                Value::Null,
                RpcError::new(
                    codes::INTERNAL_ERROR,
                    "the request failed; nothing was changed",
                ),
            ),
        ),
    }
}

/// Runs `future` to its end, or to a panic (in an authenticator, a
/// teacher policy or a learnable's own check): `None` then, and the
/// future is not polled again.
async fn unless_it_panics<F: Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(|cx| {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Some(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(None),
        }
    })
    .await
}

/// The refusal of a request whose `A2A-Version` this agent does not serve
/// (any 1.x is served). A request without the header asks for 0.3, as
/// A2A v1.0 reads it (§3.6.1) and the SDK's own methods refuse it: one rule
/// for every method of the agent.
fn unsupported_version(headers: &HeaderMap) -> Option<RpcError> {
    let Some(value) = headers.get(VERSION_HEADER) else {
        return Some(RpcError::new(
            codes::VERSION_NOT_SUPPORTED,
            "this agent serves A2A 1.x; a request without an A2A-Version header asks for 0.3: \
             send `A2A-Version: 1.0`",
        ));
    };
    let text = String::from_utf8_lossy(value.as_bytes());
    let major = text.trim().split('.').next()?.parse::<u32>().ok();
    (major != Some(1)).then(|| {
        RpcError::new(
            codes::VERSION_NOT_SUPPORTED,
            format!(
                "this agent serves A2A 1.x; the request's A2A-Version is `{}`",
                crate::shared::shortened(&text)
            ),
        )
        .with_metadata("requestedVersion", crate::shared::shortened(&text))
    })
}

/// A JSON response: `body` written straight into its bytes.
fn rpc_response(status: StatusCode, body: &impl serde::Serialize) -> Response {
    // Room for a usual answer, so that writing it rarely grows the buffer.
    let mut bytes = Vec::with_capacity(256);
    // Cannot fail: every map a response holds has string keys.
    let _ = serde_json::to_writer(&mut bytes, body);
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A refusal sent before the body was read to its end: the rest of the
/// body is never read, so the connection cannot carry another request, and
/// the client is told so rather than left to find out on its next one.
fn refusal_unread(status: StatusCode, error: RpcError) -> Response {
    let mut response = rpc_response(status, &json_rpc::failure(Value::Null, error));
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Why a request body was not read.
enum BodyError {
    /// It is larger than the limit.
    TooLarge,
    /// The connection failed or the body is malformed (a broken chunked
    /// encoding, a client that left before sending all it announced).
    Unreadable(axum::Error),
}

/// Reads a body of at most `limit` bytes.
async fn read_body(mut body: Replay, limit: usize) -> Result<Bytes, BodyError> {
    let mut bytes: Option<Bytes> = None;
    let mut joined = Vec::new();
    while let Some(frame) = next_frame(&mut body).await {
        let frame = frame.map_err(BodyError::Unreadable)?;
        if let Ok(data) = frame.into_data() {
            let so_far = bytes.as_ref().map_or(0, Bytes::len) + joined.len();
            if so_far + data.len() > limit {
                return Err(BodyError::TooLarge);
            }
            // One frame is kept as it is; more are joined.
            match bytes.take() {
                None if joined.is_empty() => bytes = Some(data),
                first => {
                    if let Some(first) = first {
                        joined.extend_from_slice(&first);
                    }
                    joined.extend_from_slice(&data);
                }
            }
        }
    }
    Ok(bytes.unwrap_or_else(|| Bytes::from(joined)))
}

/// The token of an `Authorization: Bearer <token>` header value (the
/// scheme is case-insensitive).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Adds the Learnables URI to the response's `A2A-Extensions` header,
/// keeping what the inner service echoed.
fn echo(mut response: Response) -> Response {
    let headers = response.headers_mut();
    let echoed = Activation::from_headers(headers);
    if echoed.uris().next().is_none() {
        // The usual case, without a copy of the URI.
        headers.insert(
            ACTIVATION_HEADER_NAME.clone(),
            HeaderValue::from_static(EXTENSION_URI),
        );
    } else if !echoed.learnables() {
        let mut uris: Vec<&str> = echoed.uris().collect();
        uris.push(EXTENSION_URI);
        if let Ok(value) = HeaderValue::from_str(&uris.join(", ")) {
            headers.insert(ACTIVATION_HEADER_NAME.clone(), value);
        }
    }
    response
}

// A layered router stays a router: the middleware's error is the inner one.
const _: fn() = || {
    fn layered<S>()
    where
        S: Service<Request, Response = Response, Error = Infallible>,
    {
    }
    layered::<LearnablesMiddleware<axum::Router>>();
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer   abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer "), None);
        assert_eq!(bearer_token("Bearer"), None);
    }

    #[test]
    fn versions() {
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(VERSION_HEADER, HeaderValue::from_static(value));
            unsupported_version(&headers)
        };
        assert_eq!(with("1.0"), None);
        assert_eq!(with(" 1 "), None);
        assert_eq!(with("1.1"), None);
        for refused in ["0.3", "2.0", "x"] {
            let error = with(refused).unwrap();
            assert_eq!(error.code, codes::VERSION_NOT_SUPPORTED);
            assert!(
                error.message.contains(&format!("`{refused}`")),
                "{}",
                error.message
            );
        }
        // No header means 0.3, as A2A reads it and the SDK refuses it.
        let missing = unsupported_version(&HeaderMap::new()).unwrap();
        assert_eq!(missing.code, codes::VERSION_NOT_SUPPORTED);
        assert!(missing.message.contains("0.3"), "{}", missing.message);
    }
}
