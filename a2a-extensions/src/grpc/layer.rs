//! The extension on a tonic gRPC server: activation read from the
//! `a2a-extensions` request metadata, echoed in the response metadata, and
//! the answers to a client that did not activate scrubbed message by
//! message.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::header::HeaderValue;
use http::{HeaderName, Request, Response};
use tonic::body::Body as GrpcBody;
use tower::{Layer, Service};

use super::body::ScrubbedBody;
use super::scrub::MessageScrubber;
use crate::activation::{Activation, add_echo};
use crate::extension::Extension;

/// The largest message the layer reads by default: 4 MiB, tonic's own
/// default limit on a message it decodes.
pub const DEFAULT_MAX_MESSAGE: usize = 4 << 20;

/// The status of a gRPC answer: in the headers of a trailers-only answer.
const GRPC_STATUS: HeaderName = HeaderName::from_static("grpc-status");

/// The encodings a client accepts for the messages it is sent.
const GRPC_ACCEPT_ENCODING: HeaderName = HeaderName::from_static("grpc-accept-encoding");

/// A [`tower::Layer`] that adds an extension to a tonic gRPC server (such
/// as the A2A SDK's `a2a-grpc`, whose `GrpcHandler` serves the same
/// request handler as its JSON-RPC router), the gRPC side of
/// [`ExtensionLayer`](crate::ExtensionLayer):
///
/// - A request activates the extension by naming its URI in the
///   `a2a-extensions` metadata (A2A v1.0 §10.2; read as
///   [`Activation::from_headers`] reads the header). Its answer gets the
///   URI in the `a2a-extensions` response metadata, and passes untouched.
/// - A request that did not activate it reaches the host with
///   `grpc-accept-encoding: identity`, so that its answer's messages come
///   uncompressed; each message (unary answers, and every message of the
///   server streams `SendStreamingMessage` and `SubscribeToTask`) is read
///   whole, at most [`DEFAULT_MAX_MESSAGE`] bytes (or
///   [`GrpcExtensionLayer::max_message`]), scrubbed by [`MessageScrubber`]
///   and sent on. Failing closed: a message the host compressed anyway
///   (gRPC status `INTERNAL`), one over the limit (`RESOURCE_EXHAUSTED`),
///   one that does not decode or names the URI where it cannot be removed
///   (`INTERNAL`), or an answer cut inside a message ends the answer with
///   that status in its trailers; none of that message is sent. The
///   messages are sent uncompressed.
/// - A [required](crate::Extension::required) extension's agent refuses a
///   request that did not activate it (`FAILED_PRECONDITION`).
///
/// The extension's own methods are JSON-RPC methods (the card says where);
/// this layer serves none. The trailers and the status the host sends are
/// passed as they are.
///
/// An executor learns whether a request activated the extension from its
/// context's service params, on every binding:
/// [`Activation::from_service_params`].
///
/// ```
/// use a2a_extensions::Extension;
/// use a2a_extensions::grpc::GrpcExtensionLayer;
/// let layer = GrpcExtensionLayer::new(Extension::new("https://example.com/a2a/ext/v1"));
/// // tonic::transport::Server::builder().layer(layer).add_service(...)
/// # let _ = layer;
/// ```
#[derive(Debug, Clone)]
pub struct GrpcExtensionLayer {
    extension: Extension,
    max_message: usize,
}

impl GrpcExtensionLayer {
    /// The layer of `extension`, reading messages of at most
    /// [`DEFAULT_MAX_MESSAGE`] bytes.
    pub fn new(extension: Extension) -> GrpcExtensionLayer {
        GrpcExtensionLayer {
            extension,
            max_message: DEFAULT_MAX_MESSAGE,
        }
    }

    /// The same layer reading messages of at most `bytes` (the host's own
    /// limit on what it sends, where it has one).
    ///
    /// ```
    /// use a2a_extensions::Extension;
    /// use a2a_extensions::grpc::GrpcExtensionLayer;
    /// let layer = GrpcExtensionLayer::new(Extension::new("https://example.com/a2a/ext/v1"))
    ///     .max_message(16 << 20);
    /// # let _ = layer;
    /// ```
    pub fn max_message(self, bytes: usize) -> GrpcExtensionLayer {
        GrpcExtensionLayer {
            max_message: bytes.min(u32::MAX as usize),
            ..self
        }
    }

    /// The extension it adds.
    pub fn extension(&self) -> &Extension {
        &self.extension
    }
}

impl<S> Layer<S> for GrpcExtensionLayer {
    type Service = GrpcExtensionService<S>;

    fn layer(&self, inner: S) -> GrpcExtensionService<S> {
        GrpcExtensionService {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service [`GrpcExtensionLayer`] wraps around a gRPC server's
/// service.
#[derive(Debug, Clone)]
pub struct GrpcExtensionService<S> {
    inner: S,
    layer: GrpcExtensionLayer,
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for GrpcExtensionService<S>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    ResBody: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    ResBody::Error: Into<super::BoxError>,
{
    type Response = Response<GrpcBody>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<GrpcBody>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<ReqBody>) -> Self::Future {
        let extension = &self.layer.extension;
        let uri = extension.uri().to_owned();
        if Activation::from_headers(request.headers()).includes(&uri) {
            let answer = self.inner.call(request);
            return Box::pin(async move {
                let mut response = answer.await?.map(GrpcBody::new);
                add_echo(response.headers_mut(), &uri);
                Ok(response)
            });
        }
        if extension.is_required() {
            let status = tonic::Status::failed_precondition(format!(
                "the {} extension must be activated: send the metadata `a2a-extensions: {uri}`",
                extension.name()
            ));
            return Box::pin(std::future::ready(Ok(status.into_http())));
        }
        request
            .headers_mut()
            .insert(GRPC_ACCEPT_ENCODING, HeaderValue::from_static("identity"));
        let scrubber = MessageScrubber::new(uri, request.uri().path());
        let max_message = self.layer.max_message;
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            // A trailers-only answer (an error: its status in the headers)
            // carries no message, and must stay trailers-only for the
            // client to read its status.
            if response.headers().contains_key(GRPC_STATUS) {
                return Ok(response.map(GrpcBody::new));
            }
            Ok(response.map(|body| {
                GrpcBody::new(ScrubbedBody::new(
                    GrpcBody::new(body),
                    scrubber,
                    max_message,
                ))
            }))
        })
    }
}
