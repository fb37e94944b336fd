//! Any A2A v1.0 extension in a tower or axum agent.
//!
#![doc = include_str!("../README.md")]
//!
//! # Tour
//!
//! - [`Extension`]: the extension as its agent declares it (URI, required
//!   or not, card params, methods) and its card entry. Used by every user.
//! - [`ExtensionLayer`] over the host's service, with a [`Handler`] (a
//!   type of yours, or a closure) answering each admitted [`Call`]. Used by
//!   every agent.
//! - [`Admission`]: the checks the layer runs on a request for the
//!   extension's methods, for a caller that reads requests itself (another
//!   transport, a service's own `call`), so that every path refuses the
//!   same things. [`RpcError`] and [`codes`] write refusals as A2A v1.0
//!   errors; [`json_rpc`] reads a request's envelope within [`json_rpc::Limits`].
//! - [`Activation`]: the extensions a request activated, for an executor
//!   that decides whether to add the extension's metadata: under an A2A
//!   SDK's request handler, on every binding,
//!   [`Activation::from_service_params`] with its context's service params
//!   ([`Activation::current`] only in code run in the JSON layer's own
//!   request task).
//! - `grpc` (feature `grpc`): the extension on A2A's gRPC binding,
//!   `grpc::GrpcExtensionLayer` for a tonic server (the SDK's `a2a-grpc`):
//!   activation from the `a2a-extensions` metadata, its echo, and the
//!   extension's metadata removed from every message to a client that did
//!   not activate it.
//! - [`ResponseScrubber`]: the layer's scrubbing, for a host that sends
//!   bodies its own way (push notifications); [`NoExtensionMetadata`] marks
//!   a host's response that needs none.
//!
//! Feature `grpc` builds the gRPC layer (tonic, prost and the A2A protobuf
//! types of `a2a-pb`). Feature `layer` (on by default) builds the layer and the scrubbing;
//! without it the crate is the declaration, activation, admission and
//! errors, on `http`'s header types. The layer needs a tokio runtime with its timers enabled (the time limit
//! on reading a request's body), as an axum server has.

mod activation;
mod admission;
mod error;
mod extension;
#[cfg(feature = "grpc")]
pub mod grpc;
pub mod json_rpc;
#[cfg(feature = "layer")]
mod json_scrub;
#[cfg(feature = "layer")]
mod layer;
#[cfg(feature = "layer")]
mod method_scan;
#[cfg(feature = "layer")]
mod replay;
mod request_id;
#[cfg(feature = "layer")]
mod scrub;
#[cfg(feature = "layer")]
mod scrub_error;
#[cfg(feature = "layer")]
mod scrubbed_body;
#[cfg(feature = "layer")]
mod scrubbed_events;
#[cfg(feature = "layer")]
mod scrubbed_response;
mod text;
#[cfg(feature = "layer")]
mod uri_scan;

pub use activation::{ACTIVATION_HEADER, Activation};
pub use admission::{Admission, Call, Refusal};
pub use error::{BAD_REQUEST_TYPE, ERROR_INFO_TYPE, FieldViolation, RpcError, codes, reasons};
pub use extension::{CardShapeError, Extension};
#[cfg(feature = "layer")]
pub use layer::{ExtensionLayer, ExtensionService, Handler};
#[cfg(feature = "layer")]
pub use scrub::{NoExtensionMetadata, ResponseScrubber};
#[cfg(feature = "layer")]
pub use scrub_error::{MAX_EVENT, ScrubError};

/// The URI of the unit tests' extension.
#[cfg(test)]
pub(crate) const TEST_URI: &str = "https://example.com/a2a/ext/v1";
