//! Learnables inside any axum/tower agent: `a2a_extensions`' layer with
//! Learnables as the extension and [`LearnablesService`] answering its
//! methods; and its response scrubber for the Learnables URI.

use serde::Serialize;
use tower::Layer;

use a2a_extensions::{Call, ExtensionLayer, ExtensionService, Handler};

use super::LearnablesService;
use super::methods::Reply;

/// A [`tower::Layer`] that adds Learnables to an agent's service (an axum
/// `Router`, such as the routers of the official A2A server SDK): the
/// layer of `a2a_extensions` (see its `ExtensionLayer` for the whole
/// contract) with Learnables as the extension.
///
/// - A `POST` to the JSON-RPC endpoint (`/` unless [`LearnablesLayer::at`]
///   says otherwise) whose `method` is one of the learnables methods the
///   declaration serves is admitted by the one admission path
///   ([`LearnablesService::admission`]: body size and read time, nesting,
///   keys given twice, `A2A-Version`, activation) and answered by the
///   service (the teacher's token, the policy, the lesson).
/// - Every other request goes to the inner service with the same bytes and
///   headers, and no limit or policy of ours.
/// - A response to a request that activated the extension gets the
///   extension's URI in its `A2A-Extensions` header, streamed ones too.
/// - A response to a request that did not activate it loses any teach
///   block (`metadata[URI]`) on its messages, tasks and stream events, and
///   the URI in any `extensions` list: the second line of defence behind
///   the executor's own check, by the rules of [`ResponseScrubber`]. The
///   host is asked for no content coding for such a client; what is
///   scrubbed is compressed here (by tower-http) when the client accepts it.
/// - While the agent's service answers, the request's activation is
///   `a2a_extensions::Activation::current()`, so that
///   `ActivatedPushConfigs` (feature `a2a-server`) refuses a push
///   notification config from a request that did not activate the extension.
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
    layer: ExtensionLayer<Learnables>,
}

impl std::fmt::Debug for LearnablesLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LearnablesLayer")
            .field("service", &self.layer.handler().service)
            .field("layer", &self.layer)
            .finish()
    }
}

impl LearnablesLayer {
    /// The layer for `service`, with the JSON-RPC endpoint at `/`.
    pub fn new(service: LearnablesService) -> LearnablesLayer {
        let admission = service.admission();
        LearnablesLayer {
            layer: ExtensionLayer::admitting(admission, Learnables { service }),
        }
    }

    /// The same layer with the JSON-RPC endpoint at `rpc_path`.
    pub fn at(self, rpc_path: impl Into<String>) -> LearnablesLayer {
        LearnablesLayer {
            layer: self.layer.at(rpc_path),
        }
    }
}

impl<S> Layer<S> for LearnablesLayer {
    type Service = LearnablesMiddleware<S>;

    fn layer(&self, inner: S) -> LearnablesMiddleware<S> {
        self.layer.layer(inner)
    }
}

/// The service [`LearnablesLayer`] wraps around an agent's service.
pub type LearnablesMiddleware<S> = ExtensionService<S, Learnables>;

/// The learnables methods as the layer's handler: what the layer admitted,
/// answered by the service.
#[derive(Debug)]
pub struct Learnables {
    service: LearnablesService,
}

/// A learnables method's result, written straight into the response.
#[derive(Debug)]
pub struct Answered(Reply);

impl Serialize for Answered {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl Handler for Learnables {
    type Output = Answered;

    async fn call(&self, call: Call) -> Result<Answered, a2a_extensions::RpcError> {
        let bearer = call.bearer_token().map(str::to_owned);
        self.service
            .answer_admitted(call.method, call.params, bearer.as_deref())
            .await
            .map(Answered)
            .map_err(Into::into)
    }
}

/// A response body made fit for a client that did not activate the
/// Learnables extension, chunk by chunk: `a2a_extensions`' scrubber for the
/// Learnables URI, what [`LearnablesLayer`] does to every response to such
/// a client, for a host that sends bodies its own way (a push
/// notification, a relay).
///
/// - **Encodings**: an encoded body (any `Content-Encoding` but
///   `identity`) is refused by [`ResponseScrubber::new`]: it is not
///   decoded. The caller asks its source for an unencoded body, and may
///   encode what the scrubber gives back.
/// - **JSON** (`application/json`, any `+json`, NDJSON, JSON lines, JSON
///   text sequences): streamed through byte for byte, except that every
///   member keyed by the URI (in any spelling, at any depth) is deleted
///   with the comma beside it, and the URI's string from every
///   `extensions` array; a `metadata` object or an `extensions` array left
///   empty by those deletions is deleted the same way.
/// - **Event streams**: each event is read whole (up to
///   [`MAX_EVENT`](super::MAX_EVENT) bytes) and passed on unchanged unless
///   it names the URI; then its data is scrubbed as JSON.
/// - **Fail closed**: anything else is passed on unchanged only while it
///   cannot hold the URI in any spelling JSON allows.
///
/// Memory is bounded whatever the body's size.
///
/// ```
/// use learnables::EXTENSION_URI;
/// use learnables::a2a::ResponseScrubber;
///
/// let body = format!(
///     r#"{{"id":1e400,"metadata":{{"x":1,"https:\/\/rsaxb.com\/a2a\/learnables\/v1":{{"teach":{{}}}}}},"extensions":["{EXTENSION_URI}"]}}"#
/// );
/// let scrubber = ResponseScrubber::new(Some("application/json"), None)?;
/// let scrubbed = scrubber.scrub(body.as_bytes())?;
/// assert_eq!(scrubbed, br#"{"id":1e400,"metadata":{"x":1}}"#);
///
/// // Where the URI cannot be removed, the body is refused.
/// let text = ResponseScrubber::new(Some("text/plain"), None)?;
/// assert!(text.scrub(EXTENSION_URI.as_bytes()).is_err());
/// // An encoded body is refused before anything is read.
/// assert!(ResponseScrubber::new(Some("application/json"), Some("gzip")).is_err());
/// # Ok::<(), learnables::a2a::ScrubError>(())
/// ```
#[derive(Debug)]
pub struct ResponseScrubber(a2a_extensions::ResponseScrubber);

impl ResponseScrubber {
    /// The scrubber for a body of `content_type` encoded as
    /// `content_encoding` (the headers' values; several header lines
    /// joined with commas); an error for an encoded body (any coding but
    /// `identity`), which is not decoded.
    pub fn new(
        content_type: Option<&str>,
        content_encoding: Option<&str>,
    ) -> Result<ResponseScrubber, super::ScrubError> {
        a2a_extensions::ResponseScrubber::new(crate::EXTENSION_URI, content_type, content_encoding)
            .map(ResponseScrubber)
    }

    /// Scrubs the next chunk of the body into `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<u8>) -> Result<(), super::ScrubError> {
        self.0.feed(chunk, out)
    }

    /// The end of the body: what was held back, into `out`; an error when
    /// the body ended where a teach block could be cut in two.
    pub fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), super::ScrubError> {
        self.0.finish(out)
    }

    /// A whole body, scrubbed.
    pub fn scrub(self, body: &[u8]) -> Result<Vec<u8>, super::ScrubError> {
        self.0.scrub(body)
    }
}
