//! The bodies on a served connection: a request body with a deadline, and a
//! response body that keeps its request in flight until it is sent.
//!
//! The deadline is our own: tower-http's `RequestBodyTimeoutLayer` bounds
//! the pause between two frames, which a client sending a few bytes at a
//! time never overruns, while this one bounds the whole body, counted from
//! the end of the head.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes};
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use tokio::time::{Instant, Sleep};

use super::activity::{BodyArriving, InFlight};

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

/// A request body that must arrive whole by a deadline (none when `None`);
/// reading it past the deadline is an error, and marks the request as
/// timed out. Its connection waits on the client until the body ends,
/// fails, or is dropped.
#[derive(Debug)]
pub(super) struct TimedBody {
    inner: Incoming,
    deadline: Option<Instant>,
    sleep: Option<Pin<Box<Sleep>>>,
    timed_out: Arc<AtomicBool>,
    arriving: Option<BodyArriving>,
}

impl TimedBody {
    pub(super) fn new(
        inner: Incoming,
        deadline: Option<Instant>,
        timed_out: Arc<AtomicBool>,
        arriving: Option<BodyArriving>,
    ) -> TimedBody {
        TimedBody {
            inner,
            deadline,
            sleep: None,
            timed_out,
            arriving,
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
            if !matches!(frame, Some(Ok(_))) || this.inner.is_end_stream() {
                this.arriving = None;
            }
            return Poll::Ready(frame.map(|frame| frame.map_err(BodyError::Read)));
        }
        let Some(deadline) = this.deadline else {
            return Poll::Pending;
        };
        let sleep = this
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        ready!(sleep.as_mut().poll(cx));
        this.timed_out.store(true, Ordering::Relaxed);
        // The client is no longer waited on: the handler answers 408.
        this.arriving = None;
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
