//! The extension on A2A's gRPC binding (feature `grpc`): a tower layer for
//! a tonic server such as the SDK's `a2a-grpc`, with activation from the
//! `a2a-extensions` request metadata, its echo in the response metadata,
//! and every answer to a client that did not activate scrubbed with the
//! A2A protobuf types (`a2a-pb`), one length-prefixed message at a time.
//!
//! - [`GrpcExtensionLayer`]: the layer, over the server's routes.
//! - [`MessageScrubber`]: the scrubbing of one message, for a caller that
//!   relays gRPC messages its own way.

mod body;
mod layer;
mod scrub;

pub use layer::{DEFAULT_MAX_MESSAGE, GrpcExtensionLayer, GrpcExtensionService};
pub use scrub::{A2A_SERVICE, MessageRefused, MessageScrubber};

/// The error of a body tonic serves.
type BoxError = Box<dyn std::error::Error + Send + Sync>;
