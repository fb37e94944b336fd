//! One served connection: its socket, read and written through its
//! activity, and its HTTP/1 state machine (hyper's), closed when its
//! activity says so, and shut down gracefully through hyper-util.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::BoxError;
use axum::body::{Body, Bytes, HttpBody};
use axum::http::{Request, Response};
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::Watcher;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tower::Service;

use super::ServerLimits;
use super::activity::{Activity, Closed};
use super::handler::Handler;

/// Serves HTTP/1.1 on `stream` until the client closes it, it overruns a
/// limit, it is evicted, or, once `shutdown` signals, its last response is
/// sent.
pub(super) async fn serve_connection<S, B>(
    stream: TcpStream,
    service: S,
    activity: Arc<Activity>,
    limits: ServerLimits,
    shutdown: Watcher,
) where
    S: Service<Request<Body>, Response = Response<B>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let io = TokioIo::new(Watched {
        stream,
        activity: Arc::clone(&activity),
        blocked: false,
    });
    let handler = Handler::new(service, Arc::clone(&activity), limits.body_read_timeout());
    let connection = shutdown.watch(http1::Builder::new().serve_connection(io, handler));
    tokio::select! {
        result = connection => {
            if let Err(error) = result {
                tracing::debug!(%error, "connection ended with an error");
            }
        }
        reason = activity.closed(limits) => match reason {
            Closed::HeadTimedOut => tracing::debug!("closing a connection: request head too slow"),
            Closed::BodyTimedOut => tracing::debug!("closing a connection: request body too slow"),
            Closed::IdleTimedOut => tracing::debug!("closing a connection: idle too long"),
            Closed::WriteTimedOut => tracing::debug!("closing a connection: its client does not take the response"),
            Closed::Evicted => tracing::debug!("closing a connection to make room for a new one"),
        },
    }
}

/// A socket whose reads tell its connection's activity that bytes arrived,
/// and whose writes when it refuses bytes and when it takes them again.
///
/// The write deadline this feeds is our own: hyper has none, and a timeout
/// per write (as `tokio-io-timeout` has) restarts with every write, so a
/// client reading a few bytes now and then never overruns it, while this
/// one sums the time a response waits on its client.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
    /// The last write or flush was refused (the activity was told).
    blocked: bool,
}

impl Watched {
    fn watch_write<T>(&mut self, poll: Poll<T>) -> Poll<T> {
        match (&poll, self.blocked) {
            (Poll::Pending, false) => {
                self.blocked = true;
                self.activity.write_blocked();
            }
            (Poll::Ready(_), true) => {
                self.blocked = false;
                self.activity.write_unblocked();
            }
            _ => {}
        }
        poll
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.bytes_read();
        }
        result
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write(cx, data);
        self.watch_write(poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write_vectored(cx, data);
        self.watch_write(poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_flush(cx);
        self.watch_write(poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
