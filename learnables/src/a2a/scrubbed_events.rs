//! A streamed (`text/event-stream`) response for a client that did not
//! activate the extension: passed on event by event as it arrives, each
//! event without a teach block unchanged, byte for byte.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use http_body::Frame;

use super::scrub::scrub_event;

/// The inner stream, scrubbed per event.
pub(crate) struct ScrubbedEvents {
    inner: Body,
    pending: Vec<u8>,
    ready: VecDeque<Frame<Bytes>>,
    ended: bool,
}

impl ScrubbedEvents {
    pub(crate) fn new(inner: Body) -> ScrubbedEvents {
        ScrubbedEvents {
            inner,
            pending: Vec::new(),
            ready: VecDeque::new(),
            ended: false,
        }
    }

    /// Moves every complete event of `pending` to `ready`.
    fn split_events(&mut self) {
        while let Some((end, separator)) = event_end(&self.pending) {
            let rest = self.pending.split_off(end + separator);
            let mut event = std::mem::replace(&mut self.pending, rest);
            if let Some(scrubbed) = scrub_event(&event[..end]) {
                event.splice(..end, scrubbed);
            }
            self.ready.push_back(Frame::data(Bytes::from(event)));
        }
    }
}

/// Where the first event of `bytes` ends, and the length of the blank line
/// that ends it.
fn event_end(bytes: &[u8]) -> Option<(usize, usize)> {
    let lf = memchr::memmem::find(bytes, b"\n\n").map(|at| (at, 2));
    let crlf = memchr::memmem::find(bytes, b"\r\n\r\n").map(|at| (at, 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

impl HttpBody for ScrubbedEvents {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        loop {
            if let Some(frame) = self.ready.pop_front() {
                return Poll::Ready(Some(Ok(frame)));
            }
            if self.ended {
                return Poll::Ready(None);
            }
            match Pin::new(&mut self.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Err(error))) => return Poll::Ready(Some(Err(error))),
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => {
                        self.pending.extend_from_slice(&data);
                        self.split_events();
                    }
                    Err(other) => self.ready.push_back(other),
                },
                Poll::Ready(None) => {
                    self.ended = true;
                    let mut last = std::mem::take(&mut self.pending);
                    if !last.is_empty() {
                        if let Some(scrubbed) = scrub_event(&last) {
                            last = scrubbed;
                        }
                        self.ready.push_back(Frame::data(Bytes::from(last)));
                    }
                }
            }
        }
    }
}
