//! A request body whose first frames were already read (to find the
//! method): those frames again, then the rest of the original body, so the
//! inner service receives exactly the bytes the client sent.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use http_body::{Frame, SizeHint};

/// The frames read so far, then the rest of the body.
pub(crate) struct Replay {
    pub(crate) read: VecDeque<Frame<Bytes>>,
    /// A read error met while reading ahead, given after the frames read.
    pub(crate) error: Option<axum::Error>,
    /// The unread rest; `None` once the body ended or failed.
    pub(crate) rest: Option<Body>,
}

impl HttpBody for Replay {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if let Some(frame) = self.read.pop_front() {
            return Poll::Ready(Some(Ok(frame)));
        }
        if let Some(error) = self.error.take() {
            return Poll::Ready(Some(Err(error)));
        }
        match &mut self.rest {
            Some(rest) => Pin::new(rest).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.read.is_empty()
            && self.error.is_none()
            && self.rest.as_ref().is_none_or(HttpBody::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        let read: u64 = self
            .read
            .iter()
            .filter_map(Frame::data_ref)
            .map(|data| data.len() as u64)
            .sum();
        let mut hint = self
            .rest
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), HttpBody::size_hint);
        hint.set_lower(hint.lower() + read);
        if let Some(upper) = hint.upper() {
            hint.set_upper(upper + read);
        }
        hint
    }
}
