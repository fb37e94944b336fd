//! A response body for a client that did not activate the extension, as
//! it flows: decoded a bounded piece at a time, scrubbed by a
//! [`ResponseScrubber`], and ended with an error (which cuts the
//! connection) where what follows cannot be sent.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use http_body::Frame;

use super::scrub::ResponseScrubber;
use super::scrub_error::ScrubError;
use super::uri_scan::UriScan;

/// The most encoded bytes decoded at once: what they decode to (at most
/// about a thousand times as many) is all the scrubber holds of them.
const PIECE: usize = 8 * 1024;

/// The most plain (not encoded) bytes scrubbed at once: a host that sends
/// its whole response as one frame (as the SDK's JSON answers are) is sent
/// on a piece at a time, from its first piece, never held scrubbed whole.
const PLAIN_PIECE: usize = 64 * 1024;

/// How many bytes the body sends between two yields to the runtime.
const YIELD_EVERY: usize = 256 * 1024;

pub(crate) struct ScrubbedBody {
    inner: Body,
    scrubber: ResponseScrubber,
    ready: VecDeque<Bytes>,
    /// Encoded bytes not yet decoded.
    input: Bytes,
    ended: bool,
    failed: Option<ScrubError>,
    /// The body's trailers, sent after the last of its data.
    trailers: Option<axum::http::HeaderMap>,
    /// Bytes sent since the body last yielded (see
    /// [`ScrubbedBody::poll_frame`]).
    since_yield: usize,
    yielding: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl ScrubbedBody {
    pub(crate) fn new(inner: Body, scrubber: ResponseScrubber) -> ScrubbedBody {
        ScrubbedBody {
            inner,
            scrubber,
            ready: VecDeque::new(),
            input: Bytes::new(),
            ended: false,
            failed: None,
            trailers: None,
            since_yield: YIELD_EVERY,
            yielding: None,
        }
    }

    fn note(&mut self, result: Result<(), ScrubError>) {
        if let Some((offset, why)) = self.scrubber.take_fallback() {
            tracing::warn!(
                offset,
                "a response to a client that did not activate Learnables stopped reading as JSON ({why}); the rest goes on only while it cannot hold the Learnables URI"
            );
        }
        if let Err(error) = result {
            tracing::warn!(
                %error,
                "a response to a client that did not activate Learnables was cut off"
            );
            self.input = Bytes::new();
            self.ended = true;
            self.trailers = None;
            self.failed = Some(error);
        }
    }
}

impl HttpBody for ScrubbedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        // A body always ready keeps its worker busy scrubbing: hyper
        // writes what it has buffered only when the body is not ready (or
        // its buffer of about 400 KB is full), and the runtime reads its
        // sockets' readiness only when a task yields to it. So the body
        // yields after its first frame (which goes out at once, not after
        // 400 KB scrubbed) and then every `YIELD_EVERY` bytes.
        if let Some(yielding) = &mut this.yielding {
            std::task::ready!(yielding.as_mut().poll(cx));
            this.yielding = None;
        }
        loop {
            if let Some(bytes) = this.ready.pop_front() {
                if bytes.is_empty() {
                    continue;
                }
                this.since_yield += bytes.len();
                if this.since_yield >= YIELD_EVERY {
                    this.since_yield = 0;
                    this.yielding = Some(Box::pin(tokio::task::yield_now()));
                }
                return Poll::Ready(Some(Ok(Frame::data(bytes))));
            }
            if let Some(error) = this.failed.take() {
                return Poll::Ready(Some(Err(axum::Error::new(error))));
            }
            if !this.input.is_empty() {
                let piece = if this.scrubber.decodes() {
                    PIECE
                } else {
                    PLAIN_PIECE
                };
                let take = piece.min(this.input.len());
                let piece = this.input.split_to(take);
                let mut pieces = VecDeque::new();
                let result = this.scrubber.feed_bytes(piece, &mut pieces);
                this.ready.push_back(joined(pieces));
                this.note(result);
                continue;
            }
            if this.ended {
                return Poll::Ready(
                    this.trailers
                        .take()
                        .map(|trailers| Ok(Frame::trailers(trailers))),
                );
            }
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Err(error))) => {
                    this.ended = true;
                    return Poll::Ready(Some(Err(error)));
                }
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => this.input = data,
                    Err(frame) => {
                        // Trailers go on, but none that names the URI.
                        if let Some(trailers) = frame.trailers_ref() {
                            let mut kept = axum::http::HeaderMap::new();
                            for (name, value) in trailers {
                                if !UriScan::mentions(value.as_bytes()) {
                                    kept.append(name.clone(), value.clone());
                                }
                            }
                            this.trailers = Some(kept);
                        }
                    }
                },
                Poll::Ready(None) => {
                    this.ended = true;
                    let mut pieces = VecDeque::new();
                    let result = this.scrubber.finish_bytes(&mut pieces);
                    this.ready.push_back(joined(pieces));
                    this.note(result);
                }
            }
        }
    }
}

/// The pieces a chunk was scrubbed into, as one frame: the chunk itself
/// when it went through whole, else one copy (a frame per piece would be a
/// write per piece).
fn joined(mut pieces: VecDeque<Bytes>) -> Bytes {
    if pieces.len() <= 1 {
        return pieces.pop_front().unwrap_or_default();
    }
    let mut joined = Vec::with_capacity(pieces.iter().map(Bytes::len).sum());
    pieces
        .iter()
        .for_each(|piece| joined.extend_from_slice(piece));
    Bytes::from(joined)
}
