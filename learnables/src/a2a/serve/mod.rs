//! Serving a router on the open network: HTTP/1.1 on a TCP listener, with
//! the timeouts and the connection cap of [`ServerLimits`], so that clients
//! that dribble a request's head or body, do not read their responses, or
//! hold connections idle, cannot keep real clients out.
//!
//! [`serve`] stands in for `axum::serve`:
//!
//! ```
//! use axum::{Router, routing::get};
//! use learnables::a2a::serve::{ServerLimits, serve};
//! use tokio::io::{AsyncReadExt, AsyncWriteExt};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let router = Router::new().route("/", get(|| async { "hello" }));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let address = listener.local_addr()?;
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let server = tokio::spawn(serve(listener, router, ServerLimits::default(), async {
//!     let _ = stopped.await;
//! }));
//!
//! let mut client = tokio::net::TcpStream::connect(address).await?;
//! client.write_all(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n").await?;
//! let mut answer = String::new();
//! client.read_to_string(&mut answer).await?;
//! assert!(answer.starts_with("HTTP/1.1 200 OK"));
//! assert!(answer.ends_with("hello"));
//!
//! stop.send(()).unwrap();
//! server.await.unwrap()?;
//! # Ok(())
//! # }
//! ```
//!
//! What each limit bounds, and what it does not:
//!
//! - a connection that does not send a whole request head within
//!   [`ServerLimits::header_read_timeout`] is closed, whether it sent
//!   nothing since its accept or part of a head;
//! - a request body that has not arrived whole within
//!   [`ServerLimits::body_read_timeout`] of its head is an error to the
//!   handler reading it, the client gets `408 Request Timeout` and the
//!   connection is closed; a connection whose body has neither arrived nor
//!   been let go of by its handler a second past that is closed unanswered;
//! - a response whose client does not take it: once the socket has refused
//!   its bytes for [`ServerLimits::write_timeout`] in all, the connection
//!   is closed, the rest unsent; the time the handler takes to produce the
//!   body does not count, so a long stream (server-sent events) is not cut;
//! - a kept-alive connection without a request for
//!   [`ServerLimits::idle_timeout`] is closed;
//! - at most [`ServerLimits::max_connections`] connections are served; at
//!   the cap, a connection waiting on its client is closed for the new one:
//!   the longest idle, else the one waiting longest in the middle of a
//!   request, for its head, for its body, or for its client to take its
//!   response (counted from the accept or the first byte for a head, from
//!   the end of the head for a body, from when the response first waited
//!   for a response), so idle, stalled or slow clients cannot keep a real
//!   client out; only when every connection's handler is at work does a
//!   new one wait in the listen backlog;
//! - when accepting fails for want of file descriptors or memory, a waiting
//!   connection is closed to free one and the loop backs off (10 ms,
//!   doubling up to 1 s) instead of spinning.
//!
//! Not bounded here: how long a handler takes once it has the request
//! (its connection is not evicted meanwhile), and a client that takes a
//! response slowly but within the write timeout. HTTP/2 and upgrades
//! (WebSocket) are not served.
//!
//! HTTP/1.1 is hyper's, the socket's adapter and the graceful shutdown
//! hyper-util's. Eviction and the deadlines are our own, one state per
//! connection (`activity`) driving both: hyper's `header_read_timeout`
//! closes a slow head but cannot give its slot to a new connection, and no
//! crate evicts at a cap (tower's `ConcurrencyLimit` makes newcomers wait);
//! tower-http's `RequestBodyTimeoutLayer` bounds the pause between two body
//! frames, not the whole body; hyper has no write timeout at all, and a
//! timeout per write restarts with each one. A body's size is the
//! handler's to bound (the Learnables layer bounds its own methods' bodies;
//! tower-http's `RequestBodyLimitLayer` over a router bounds any other).

mod activity;
mod body;
mod connection;
mod handler;
mod limits;
mod registry;

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::BoxError;
use axum::body::{Body, Bytes, HttpBody};
use axum::http::{Request, Response};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tower::Service;

pub use limits::ServerLimits;

use activity::Activity;
use registry::Registry;

/// How long the accept loop waits before it looks again for a connection to
/// close, when the cap is reached and every connection's handler is at work.
const RECHECK_FULL: Duration = Duration::from_millis(100);
/// The first and the longest pause after accepting failed for want of resources.
const BACKOFF_FIRST: Duration = Duration::from_millis(10);
const BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Serves `service` (an axum `Router`, or any tower service of
/// `Request<Body>`) on `listener` with `limits`, until `shutdown` resolves;
/// then stops accepting, lets every connection finish the request it is
/// serving (still under the limits), and returns once all are closed, or
/// once [`ServerLimits::shutdown_timeout`] has passed, closing the rest.
///
/// Accept errors never end the loop: a reset or aborted connection is
/// skipped, and a want of file descriptors or memory closes a waiting
/// connection and backs off. The `io::Result` keeps `axum::serve`'s shape;
/// it is `Ok` after a shutdown.
///
/// ```no_run
/// use axum::Router;
/// use learnables::a2a::serve::{ServerLimits, serve};
///
/// # async fn run(router: Router) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;
/// let shutdown = async {
///     let _ = tokio::signal::ctrl_c().await;
/// };
/// serve(listener, router, ServerLimits::default(), shutdown).await
/// # }
/// ```
pub async fn serve<S, B>(
    listener: TcpListener,
    service: S,
    limits: ServerLimits,
    shutdown: impl Future<Output = ()> + Send,
) -> io::Result<()>
where
    S: Service<Request<Body>, Response = Response<B>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let registry = Arc::new(Registry::new(limits.max_connections()));
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    let mut next_id: u64 = 0;
    let mut backoff = BACKOFF_FIRST;
    tokio::pin!(shutdown);

    'accept: loop {
        while connections.try_join_next().is_some() {}
        let stream = tokio::select! {
            () = &mut shutdown => break 'accept,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) if is_per_connection(&error) => continue,
                Err(error) => {
                    tracing::warn!(%error, "accepting a connection failed; backing off");
                    registry.evict_one();
                    tokio::select! {
                        () = &mut shutdown => break 'accept,
                        () = tokio::time::sleep(backoff) => {}
                    }
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                    continue;
                }
            },
        };
        backoff = BACKOFF_FIRST;
        while !registry.make_room() {
            tokio::select! {
                () = &mut shutdown => break 'accept,
                () = registry.freed() => {}
                () = tokio::time::sleep(RECHECK_FULL) => {}
            }
        }
        // Small responses go out at once rather than after Nagle's delay.
        let _ = stream.set_nodelay(true);
        let activity = Activity::accepted();
        let id = next_id;
        next_id += 1;
        let admitted = registry.admit(id, Arc::clone(&activity));
        let service = service.clone();
        let watcher = graceful.watcher();
        connections.spawn(async move {
            connection::serve_connection(stream, service, activity, limits, watcher).await;
            drop(admitted);
        });
        // Let the new connection read the head its client has already sent
        // before more accepts can make it give way.
        tokio::task::yield_now().await;
    }

    drop(listener);
    let drained = tokio::time::timeout(limits.shutdown_timeout(), async {
        graceful.shutdown().await;
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            connections = connections.len(),
            timeout = ?limits.shutdown_timeout(),
            "requests still in flight when the shutdown timeout ran out are cut off"
        );
        connections.shutdown().await;
    }
    Ok(())
}

/// An accept error about that one connection, not about the server.
fn is_per_connection(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
    )
}
