//! The served router as hyper sees it: each request marked in flight and
//! its body on its way until it arrives, its body given a deadline, and a
//! body that overran it answered with 408.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::BoxError;
use axum::body::{Body, Bytes, HttpBody};
use axum::http::header::CONNECTION;
use axum::http::{HeaderValue, Request, Response, StatusCode};
use axum::response::IntoResponse;
use hyper::body::Incoming;
use tokio::time::Instant;
use tower::{Service, ServiceExt};

use super::activity::Activity;
use super::body::{ResponseBody, TimedBody};

/// One connection's view of the served service.
pub(super) struct Handler<S> {
    service: S,
    activity: Arc<Activity>,
    body_read_timeout: Duration,
}

impl<S> Handler<S> {
    pub(super) fn new(service: S, activity: Arc<Activity>, body_read_timeout: Duration) -> Self {
        Handler {
            service,
            activity,
            body_read_timeout,
        }
    }
}

type Answer = Result<Response<ResponseBody>, Infallible>;

impl<S, B> hyper::service::Service<Request<Incoming>> for Handler<S>
where
    S: Service<Request<Body>, Response = Response<B>, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Answer> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let now = Instant::now();
        let body_on_its_way = !request.body().is_end_stream();
        let in_flight = self.activity.request_started(now, body_on_its_way);
        let arriving = body_on_its_way.then(|| in_flight.receiving());
        let timed_out = Arc::new(AtomicBool::new(false));
        let deadline = now.checked_add(self.body_read_timeout);
        let request = request.map(|body| {
            Body::new(TimedBody::new(
                body,
                deadline,
                Arc::clone(&timed_out),
                arriving,
            ))
        });
        let service = self.service.clone();
        Box::pin(async move {
            let response = match service.oneshot(request).await {
                Ok(response) => response.map(Body::new),
                Err(never) => match never {},
            };
            let response = if timed_out.load(Ordering::Relaxed) {
                request_timeout()
            } else {
                response
            };
            Ok(response.map(|body| ResponseBody::new(body, in_flight)))
        })
    }
}

/// The answer to a request whose body overran its deadline; the connection
/// closes after it, since the rest of the body is still unread.
fn request_timeout() -> Response<Body> {
    let mut response = (
        StatusCode::REQUEST_TIMEOUT,
        "the request body did not arrive in time\n",
    )
        .into_response();
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}
