//! The bodies on a served connection: a request body with a deadline, and a
//! response body that keeps its request in flight until it is sent.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes};
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use tokio::time::{Instant, Sleep};

use super::activity::InFlight;

/// Reading a request body failed.
#[derive(Debug, thiserror::Error)]
pub(super) enum BodyError {
    /// The client did not send the whole body before the deadline.
    #[error("the request body did not arrive within the body read timeout")]
    TimedOut,
    /// The connection failed while the body was read.
    #[error("reading the request body failed: {0}")]
    Read(#[from] hyper::Error),
}

/// A request body that must arrive whole by a deadline; reading it past
/// the deadline is an error, and marks the request as timed out.
#[derive(Debug)]
pub(super) struct TimedBody {
    inner: Incoming,
    deadline: Instant,
    sleep: Option<Pin<Box<Sleep>>>,
    timed_out: Arc<AtomicBool>,
}

impl TimedBody {
    pub(super) fn new(inner: Incoming, deadline: Instant, timed_out: Arc<AtomicBool>) -> TimedBody {
        TimedBody {
            inner,
            deadline,
            sleep: None,
            timed_out,
        }
    }
}

impl HttpBody for TimedBody {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = &mut *self;
        if this.timed_out.load(Ordering::Relaxed) {
            return Poll::Ready(Some(Err(BodyError::TimedOut)));
        }
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(BodyError::Read)));
        }
        let deadline = this.deadline;
        let sleep = this
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        ready!(sleep.as_mut().poll(cx));
        this.timed_out.store(true, Ordering::Relaxed);
        Poll::Ready(Some(Err(BodyError::TimedOut)))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body that holds its request in flight until the body is
/// sent or the connection drops it.
#[derive(Debug)]
pub(super) struct ResponseBody {
    inner: Body,
    _in_flight: InFlight,
}

impl ResponseBody {
    pub(super) fn new(inner: Body, in_flight: InFlight) -> ResponseBody {
        ResponseBody {
            inner,
            _in_flight: in_flight,
        }
    }
}

impl HttpBody for ResponseBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
