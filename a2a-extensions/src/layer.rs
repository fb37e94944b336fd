//! The extension in any axum/tower agent: a [`tower::Layer`] that answers
//! the extension's methods at the JSON-RPC endpoint through its
//! [`Handler`], passes every other request through to the agent's own
//! service, untouched, echoes activation, and keeps the extension's
//! metadata from clients that did not activate it.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::header::{CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, EXPECT};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, request};
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use serde::Serialize;
use tower::{Layer, Service, ServiceExt};

use crate::activation::Activation;
use crate::admission::{Admission, Call, Refusal};
use crate::error::{RpcError, codes};
use crate::extension::Extension;
use crate::json_rpc::{self, Answer, Id};
use crate::method_scan::{MethodScan, Verdict};
use crate::replay::Replay;
use crate::scrub::NoExtensionMetadata;
use crate::scrubbed_response::{ask_for_no_encoding, compressed, scrub_response};

/// What answers an extension's methods: a type of the extension's, or any
/// closure `Fn(Call) -> impl Future<Output = Result<T, RpcError>>` with a
/// serializable `T`. It sees only requests [`Admission`] admitted.
///
/// ```
/// use a2a_extensions::{Call, Handler, RpcError};
/// #[derive(Clone)]
/// struct Greeter;
/// impl Handler for Greeter {
///     type Output = String;
///     async fn call(&self, call: Call) -> Result<String, RpcError> {
///         let name = call.params["name"].as_str().unwrap_or("you");
///         Ok(format!("Hello, {name}!"))
///     }
/// }
/// ```
pub trait Handler: Send + Sync + 'static {
    /// The result of an answered call.
    type Output: Serialize + Send + 'static;

    /// Answers an admitted call: its result, or its refusal (given the
    /// extension's URI as its domain unless it names another).
    fn call(&self, call: Call) -> impl Future<Output = Result<Self::Output, RpcError>> + Send;
}

impl<F, Fut, T> Handler for F
where
    F: Fn(Call) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<T, RpcError>> + Send,
    T: Serialize + Send + 'static,
{
    type Output = T;

    fn call(&self, call: Call) -> impl Future<Output = Result<T, RpcError>> + Send {
        self(call)
    }
}

/// A [`tower::Layer`] that adds an extension to an agent's service (an
/// axum `Router`, such as the routers of the A2A server SDK
/// `a2a-server-lf`).
///
/// - A `POST` to the JSON-RPC endpoint (`/` unless [`ExtensionLayer::at`]
///   says otherwise) whose `method` is one of the extension's is admitted
///   by its [`Admission`] (body size and read time, envelope,
///   `A2A-Version`, activation) and answered by its [`Handler`]. The
///   method is found from the first bytes of the body; nothing more of a
///   request that is not the extension's is read before it is handed on.
/// - Every other request goes to the inner service with the same bytes and
///   headers, and no limit or policy of the extension's, except that a
///   [required](crate::Extension::required) extension's agent refuses a
///   JSON-RPC request that did not activate it.
/// - A response to a request that activated the extension gets the
///   extension's URI in its `A2A-Extensions` header, streamed ones too.
/// - A response to a request that did not activate it loses the
///   extension's metadata (every member keyed by its URI, its URI in
///   every `extensions` list) on its messages, tasks and stream events.
///   Its body is scrubbed as it flows, never read whole, by the rules of
///   [`ResponseScrubber`](crate::ResponseScrubber): JSON loses only those
///   spans (numbers, key order and whitespace stay byte for byte, and a
///   `metadata` or `extensions` left empty goes too); a body that is
///   neither JSON nor an event stream, or JSON that stops parsing, goes on
///   only while it cannot hold the URI in any spelling. Where it does, the
///   answer is `502 Bad Gateway` while nothing of it was sent, and is cut
///   off (the connection ends with an error) after.
/// - Such a client's request reaches the agent with `Accept-Encoding:
///   identity` and no transfer coding asked for in `TE` (but `trailers`),
///   so that the body is scrubbed as it is, never decoded; an encoded body
///   is answered `502 Bad Gateway`. The scrubbed body is compressed here
///   (gzip, br or deflate, by tower-http) when the client's own
///   `Accept-Encoding` accepts one. A small body the agent ended goes with
///   its `Content-Length`; a longer one is sent chunked, its last chunk in
///   the same write as the end.
/// - While the agent's service answers, the request's activation is
///   [`Activation::current`].
///
/// Apply it last, over everything the agent serves (merge the routers
/// first), so that it sees every request:
///
/// ```
/// use a2a_extensions::{Call, Extension, ExtensionLayer, RpcError};
/// use axum::Router;
/// use axum::routing::get;
/// let greeting = Extension::new("https://example.com/a2a/greeting/v1")
///     .method("example.greeting.Greet");
/// let host = Router::new().route("/health", get(|| async { "ok" }));
/// let agent: Router = host.layer(ExtensionLayer::new(greeting, |call: Call| async move {
///     Ok::<_, RpcError>(format!("Hello, {}!", call.params["name"]))
/// }));
/// ```
pub struct ExtensionLayer<H> {
    shared: Arc<Shared<H>>,
}

impl<H> Clone for ExtensionLayer<H> {
    fn clone(&self) -> Self {
        ExtensionLayer {
            shared: self.shared.clone(),
        }
    }
}

impl<H> std::fmt::Debug for ExtensionLayer<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtensionLayer")
            .field("admission", &self.shared.admission)
            .field("rpc_path", &self.shared.rpc_path)
            .finish_non_exhaustive()
    }
}

struct Shared<H> {
    admission: Admission,
    handler: Arc<H>,
    rpc_path: String,
}

impl<H: Handler> ExtensionLayer<H> {
    /// The layer of `extension`, its methods answered by `handler`, with
    /// the JSON-RPC endpoint at `/` and [`Admission::new`]'s limits.
    pub fn new(extension: Extension, handler: H) -> ExtensionLayer<H> {
        ExtensionLayer::admitting(Admission::new(extension), handler)
    }

    /// The layer of `admission`'s extension, with its limits.
    pub fn admitting(admission: Admission, handler: H) -> ExtensionLayer<H> {
        ExtensionLayer {
            shared: Arc::new(Shared {
                admission,
                handler: Arc::new(handler),
                rpc_path: "/".into(),
            }),
        }
    }
}

impl<H> ExtensionLayer<H> {
    /// The same layer with the JSON-RPC endpoint at `rpc_path`.
    pub fn at(self, rpc_path: impl Into<String>) -> ExtensionLayer<H> {
        ExtensionLayer {
            shared: Arc::new(Shared {
                admission: self.shared.admission.clone(),
                handler: self.shared.handler.clone(),
                rpc_path: rpc_path.into(),
            }),
        }
    }

    /// The admission the layer applies.
    pub fn admission(&self) -> &Admission {
        &self.shared.admission
    }

    /// The handler answering the extension's methods.
    pub fn handler(&self) -> &H {
        &self.shared.handler
    }
}

impl<S, H> Layer<S> for ExtensionLayer<H> {
    type Service = ExtensionService<S, H>;

    fn layer(&self, inner: S) -> ExtensionService<S, H> {
        ExtensionService {
            inner: Arc::new(Mutex::new(inner)),
            shared: self.shared.clone(),
        }
    }
}

/// The service [`ExtensionLayer`] wraps around an agent's service.
///
/// It keeps the agent's service once, shared by all its clones (axum clones
/// a route's service for each request). A request for the agent gets a
/// clone of its own, awaited until ready and then called, as axum's routes
/// do; a request for the extension makes no clone. So this service is
/// always ready, and the agent's service applies its back-pressure to each
/// request.
pub struct ExtensionService<S, H> {
    inner: Arc<Mutex<S>>,
    shared: Arc<Shared<H>>,
}

impl<S, H> std::fmt::Debug for ExtensionService<S, H> {
    /// The extension's side (the agent's service need not be `Debug`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtensionService")
            .field("admission", &self.shared.admission)
            .field("rpc_path", &self.shared.rpc_path)
            .finish_non_exhaustive()
    }
}

impl<S, H> Clone for ExtensionService<S, H> {
    fn clone(&self) -> Self {
        ExtensionService {
            inner: self.inner.clone(),
            shared: self.shared.clone(),
        }
    }
}

impl<S, H> Service<Request> for ExtensionService<S, H>
where
    S: Service<Request, Response = Response> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    H: Handler,
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
            let extension = shared.admission.extension();
            let activation = Activation::from_headers(request.headers());
            let activated = activation.includes(extension.uri());
            let mut request = request;
            let accepted = if activated {
                Vec::new()
            } else {
                ask_for_no_encoding(request.headers_mut())
            };
            let at_endpoint =
                request.method() == Method::POST && request.uri().path() == shared.rpc_path;
            let response = if at_endpoint {
                match read_method(&shared, request).await {
                    Found::Ours(parts, read) => {
                        let response = answer(&shared, parts, read).await;
                        // The layer's own answers carry no metadata.
                        return Ok(if activated {
                            echo(response, extension.uri())
                        } else {
                            response
                        });
                    }
                    Found::Other(request) if extension.is_required() && !activated => {
                        return Ok(required(&shared, request).await);
                    }
                    Found::Other(request) => activation.scope(agent().oneshot(request)).await?,
                }
            } else {
                activation.scope(agent().oneshot(request)).await?
            };
            Ok(if activated {
                echo(response, extension.uri())
            } else if response.extensions().get::<NoExtensionMetadata>().is_some() {
                compressed(response, accepted).await
            } else {
                let scrubbed = scrub_response(response, extension.pattern()).await;
                compressed(scrubbed, accepted).await
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
/// is known, or the limit on the extension's requests' size is reached (a request
/// that large is not one of ours).
async fn read_method<H>(shared: &Shared<H>, request: Request) -> Found {
    let limit = shared.admission.limits().max_body_bytes;
    // A client waiting for `100 Continue` before sending a body larger than
    // any of the extension's lets the inner service decide whether it wants it.
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
        Verdict::Method(method) if shared.admission.extension().serves(&method) => {
            Found::Ours(parts, replay)
        }
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

/// Answers a request for one of the extension's methods: admitted, then
/// answered by the handler.
async fn answer<H: Handler>(shared: &Shared<H>, parts: request::Parts, body: Replay) -> Response {
    let bytes = match read_limited(&shared.admission, &parts.headers, body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let call = match shared.admission.admit(&parts.headers, &bytes) {
        Ok(call) => call,
        Err(refusal) => return refused(&refusal),
    };
    let id = call.id().cloned();
    let method = call.method.clone();
    let outcome = unless_it_panics(shared.handler.call(call)).await;
    let outcome = match outcome {
        Some(outcome) => outcome.map_err(|error| shared.admission.own(error)),
        None => {
            let error = shared.admission.own(RpcError::new(
                codes::INTERNAL_ERROR,
                "the request failed; nothing was changed",
            ));
            return rpc_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                &Answer::<()>::new(id.unwrap_or_else(Id::null), Err(error)),
            );
        }
    };
    match id {
        Some(id) => rpc_response(StatusCode::OK, &Answer::new(id, outcome)),
        None => {
            if let Err(error) = &outcome {
                tracing::info!(
                    method = %crate::text::shown(&method),
                    code = error.code,
                    "a notification (a request without an id) was refused, unanswered"
                );
            }
            StatusCode::NO_CONTENT.into_response()
        }
    }
}

/// The refusal of a JSON-RPC request to the host of a required extension
/// that it did not activate.
async fn required<H>(shared: &Shared<H>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = Replay {
        read: VecDeque::new(),
        error: None,
        rest: Some(body),
    };
    let bytes = match read_limited(&shared.admission, &parts.headers, body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let id = json_rpc::best_effort_id(&bytes);
    let method = json_rpc::read_request(&bytes, shared.admission.limits())
        .map(|request| request.method)
        .unwrap_or_default();
    let error = shared.admission.not_activated(&method);
    rpc_response(StatusCode::OK, &Answer::<()>::new(id, Err(error)))
}

/// A refusal as its HTTP response: the JSON-RPC error, or nothing for a
/// notification.
fn refused(refusal: &Refusal) -> Response {
    match refusal.answer() {
        Some(answer) => rpc_response(StatusCode::OK, &answer),
        None => StatusCode::NO_CONTENT.into_response(),
    }
}

/// The whole body of a request, within the admission's size and time
/// limits; else the refusal to send.
async fn read_limited(
    admission: &Admission,
    headers: &HeaderMap,
    body: Replay,
) -> Result<Bytes, Response> {
    let limit = admission.limits().max_body_bytes;
    let own = |error| admission.own(error);
    let too_large = || {
        refusal_unread(
            StatusCode::PAYLOAD_TOO_LARGE,
            own(RpcError::new(
                codes::INVALID_REQUEST,
                format!("the request is larger than the limit of {limit} bytes"),
            )),
        )
    };
    // A body announced as too large is refused before the rest is read.
    if announced_length(headers).is_some_and(|length| length > limit as u64) {
        return Err(too_large());
    }
    let read = tokio::time::timeout(admission.read_timeout(), read_body(body, limit)).await;
    match read {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(BodyError::TooLarge)) => Err(too_large()),
        Ok(Err(BodyError::Unreadable(error))) => Err(refusal_unread(
            StatusCode::BAD_REQUEST,
            own(RpcError::new(
                codes::INVALID_REQUEST,
                format!("the request body could not be read: {error}"),
            )),
        )),
        Err(_) => Err(refusal_unread(
            StatusCode::REQUEST_TIMEOUT,
            own(RpcError::new(
                codes::INVALID_REQUEST,
                format!(
                    "the request body was not received within {} seconds",
                    admission.read_timeout().as_secs_f64()
                ),
            )),
        )),
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
    let mut response = rpc_response(status, &Answer::<()>::new(Id::null(), Err(error)));
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

/// Adds the extension's URI to the response's `A2A-Extensions` header,
/// keeping what the inner service echoed.
fn echo(mut response: Response, uri: &str) -> Response {
    crate::activation::add_echo(response.headers_mut(), uri);
    response
}

// A layered router stays a router: the middleware's error is the inner one.
const _: fn() = || {
    fn layered<S>()
    where
        S: Service<Request, Response = Response, Error = Infallible>,
    {
    }
    type Answering = fn(Call) -> std::future::Ready<Result<(), RpcError>>;
    layered::<ExtensionService<axum::Router, Answering>>();
};
