//! A response body for a client that did not activate the extension, as
//! it flows: scrubbed a bounded piece at a time by a [`ResponseScrubber`],
//! and ended with an error (which cuts the connection) where what follows
//! cannot be sent.
//!
//! Its last data frame says it is the last (`is_end_stream`) as soon as the
//! host's body has said so, so that hyper writes the chunk and the chunked
//! terminator together: a terminator written alone, after a first write
//! not yet acknowledged, waits for the client's delayed acknowledgement
//! (about 40 ms) under Nagle's algorithm.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use http_body::Frame;

use super::scrub::ResponseScrubber;
use super::scrub_error::ScrubError;
use super::uri_scan::UriScan;

/// The most bytes scrubbed at once: a host that sends its whole response
/// as one frame (as the SDK's JSON answers are) is sent on a piece at a
/// time, from its first piece, never held scrubbed whole.
const PIECE: usize = 64 * 1024;

/// How many bytes the body sends between two yields to the runtime.
const YIELD_EVERY: usize = 256 * 1024;

pub(crate) struct ScrubbedBody {
    inner: Body,
    scrubber: ResponseScrubber,
    ready: VecDeque<Bytes>,
    /// Bytes of the host's body not yet scrubbed.
    input: Bytes,
    /// The host's body said it has nothing after `input`.
    inner_done: bool,
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
            inner_done: false,
            ended: false,
            failed: None,
            trailers: None,
            since_yield: YIELD_EVERY,
            yielding: None,
        }
    }

    /// The same body, which does not yield after its next frame: for a
    /// caller that reads its first frames itself before any is sent.
    pub(crate) fn without_first_yield(mut self) -> ScrubbedBody {
        self.since_yield = 0;
        self
    }

    /// The body yields after its next frame (unless it is the last), so
    /// that what was read before it is written then.
    pub(crate) fn yield_after_next(&mut self) {
        self.since_yield = YIELD_EVERY;
    }

    /// Whether the next frame is the error that ends the body.
    pub(crate) fn fails_next(&self) -> bool {
        self.failed.is_some() && self.ready.iter().all(Bytes::is_empty)
    }

    fn note(&mut self, result: Result<(), ScrubError>) {
        if let Some((offset, why)) = self.scrubber.take_fallback() {
            tracing::warn!(
                offset,
                "a response to a client that did not activate the extension stopped reading as JSON ({why}); the rest goes on only while it cannot hold its URI"
            );
        }
        if let Err(error) = result {
            tracing::warn!(
                %error,
                "a response to a client that did not activate the extension was cut off"
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

    fn is_end_stream(&self) -> bool {
        self.finished()
    }

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
        // 400 KB scrubbed) and then every `YIELD_EVERY` bytes; never after
        // its last frame, which hyper writes with the body's end.
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
                if this.since_yield >= YIELD_EVERY && !this.is_end_stream() {
                    this.since_yield = 0;
                    this.yielding = Some(Box::pin(tokio::task::yield_now()));
                }
                return Poll::Ready(Some(Ok(Frame::data(bytes))));
            }
            if let Some(error) = this.failed.take() {
                return Poll::Ready(Some(Err(axum::Error::new(error))));
            }
            if !this.input.is_empty() {
                let take = PIECE.min(this.input.len());
                let piece = this.input.split_to(take);
                let mut pieces = VecDeque::new();
                let mut result = this.scrubber.feed_bytes(piece, &mut pieces);
                if result.is_ok() && this.input.is_empty() && this.inner_done {
                    // The last piece: what the scrubber held back goes in
                    // the same frame, which is then the body's last.
                    this.ended = true;
                    result = this.scrubber.finish_bytes(&mut pieces);
                }
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
                    Ok(data) => {
                        this.inner_done = this.inner.is_end_stream();
                        if data.is_empty() && this.inner_done {
                            this.ended = true;
                            let mut pieces = VecDeque::new();
                            let result = this.scrubber.finish_bytes(&mut pieces);
                            this.ready.push_back(joined(pieces));
                            this.note(result);
                        }
                        this.input = data;
                    }
                    Err(frame) => {
                        // Trailers go on, but none that names the URI.
                        if let Some(trailers) = frame.trailers_ref() {
                            let mut kept = axum::http::HeaderMap::new();
                            for (name, value) in trailers {
                                if !UriScan::mentions(this.scrubber.uri(), value.as_bytes()) {
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

impl ScrubbedBody {
    /// Nothing is left to send: no frame ready, no error, no trailers, and
    /// the host's body scrubbed to its end.
    fn finished(&self) -> bool {
        self.ended
            && self.input.is_empty()
            && self.failed.is_none()
            && self.trailers.is_none()
            && self.ready.iter().all(Bytes::is_empty)
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
