//! The response a client that did not activate the extension gets from
//! the host behind [`ExtensionLayer`](crate::ExtensionLayer): the
//! request asks the agent for no encoding, the body is scrubbed as it
//! flows, its head waits for its first bytes (so that a refusal is still a
//! status), and what is sent is compressed as the client accepts.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::header::{
    ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HeaderName, TE,
    TRANSFER_ENCODING,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use tower::{Layer, ServiceExt};

use super::scrub::ResponseScrubber;
use super::scrubbed_body::ScrubbedBody;
use super::uri_scan::Uri;

/// How many scrubbed bytes the head waits for at most: enough for a small
/// body whose end the host's body tells only when polled again to go
/// whole, little enough that a large one's first byte is not held back.
const FIRST_BYTES: usize = 16 * 1024;

/// Asks the agent for a body without content or transfer coding, for a
/// client that did not activate: an encoded body is not decoded (see
/// [`ResponseScrubber`]). `identity` is asked for rather than the header
/// dropped, as a request without `Accept-Encoding` accepts any coding
/// (RFC 9110, 12.5.3). `TE: trailers` stays. What the client accepted is
/// given back, for [`compressed`].
pub(crate) fn ask_for_no_encoding(headers: &mut HeaderMap) -> Vec<HeaderValue> {
    let accepted: Vec<HeaderValue> = headers.get_all(ACCEPT_ENCODING).iter().cloned().collect();
    headers.insert(ACCEPT_ENCODING, HeaderValue::from_static("identity"));
    let trailers = headers.get_all(TE).iter().any(|value| {
        String::from_utf8_lossy(value.as_bytes())
            .split(',')
            .any(|coding| {
                coding
                    .split(';')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .eq_ignore_ascii_case("trailers")
            })
    });
    headers.remove(TE);
    if trailers {
        headers.insert(TE, HeaderValue::from_static("trailers"));
    }
    accepted
}

/// `response` compressed as the client's `Accept-Encoding` values
/// `accepted` allow, by tower-http's `CompressionLayer` (which leaves
/// alone an event stream, an image, a body already encoded or of a few
/// bytes).
pub(crate) async fn compressed(response: Response, accepted: Vec<HeaderValue>) -> Response {
    if accepted.is_empty() {
        return response;
    }
    let mut request = Request::new(Body::empty());
    for value in accepted {
        request.headers_mut().append(ACCEPT_ENCODING, value);
    }
    let mut once = Some(response);
    let answer = tower::service_fn(move |_: Request| {
        std::future::ready(Ok::<_, Infallible>(once.take().unwrap_or_default()))
    });
    match tower_http::compression::CompressionLayer::new()
        .layer(answer)
        .oneshot(request)
        .await
    {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    }
}

/// A response for a client that did not activate the extension, without
/// the extension's metadata: its body scrubbed as it flows (see [`ResponseScrubber`]
/// for the rules). An encoded body is answered `502 Bad Gateway`, and so is
/// one refused before anything of it was sent: its first frames are read
/// (until [`FIRST_BYTES`] are, or the host's body would wait) before the
/// head is sent, and a body that ended by then goes whole, with its
/// `Content-Length`.
pub(crate) async fn scrub_response(response: Response, uri: &Arc<Uri>) -> Response {
    let (mut parts, body) = response.into_parts();
    if body.is_end_stream() {
        return Response::from_parts(parts, body);
    }
    let joined = |name: HeaderName| {
        let values: Vec<String> = parts
            .headers
            .get_all(name)
            .iter()
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
            .collect();
        (!values.is_empty()).then(|| values.join(","))
    };
    // Two different types are no type: the body is read as any other.
    let types: Vec<&HeaderValue> = parts.headers.get_all(CONTENT_TYPE).iter().collect();
    let content_type = match types.split_first() {
        Some((first, rest)) if rest.iter().all(|other| other == first) => {
            Some(String::from_utf8_lossy(first.as_bytes()).into_owned())
        }
        _ => None,
    };
    // Codings the body was given as a transfer coding (other than the
    // chunked framing, which is the server's own) are decoded as well.
    let transfer: Vec<String> = joined(TRANSFER_ENCODING)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|coding| !coding.is_empty() && !coding.eq_ignore_ascii_case("chunked"))
        .map(str::to_owned)
        .collect();
    let mut codings = joined(CONTENT_ENCODING).unwrap_or_default();
    for coding in transfer {
        codings.push(',');
        codings.push_str(&coding);
    }
    let scrubber = match ResponseScrubber::for_uri(uri, content_type.as_deref(), Some(&codings)) {
        Ok(scrubber) => scrubber,
        Err(error) => return bad_gateway(&error),
    };
    parts.headers.remove(TRANSFER_ENCODING);
    parts.headers.remove(CONTENT_LENGTH);
    let mut body = ScrubbedBody::new(body, scrubber).without_first_yield();
    let mut first = VecDeque::new();
    let mut read = 0;
    let whole = std::future::poll_fn(|cx| {
        loop {
            match Pin::new(&mut body).poll_frame(cx) {
                Poll::Pending if first.is_empty() => return Poll::Pending,
                Poll::Pending => return Poll::Ready(Ok(false)),
                Poll::Ready(None) => return Poll::Ready(Ok(true)),
                Poll::Ready(Some(Err(error))) => return Poll::Ready(Err(error)),
                Poll::Ready(Some(Ok(frame))) => {
                    read += frame.data_ref().map_or(0, Bytes::len);
                    first.push_back(frame);
                    if body.is_end_stream() {
                        return Poll::Ready(Ok(true));
                    }
                    // A refusal already found is still a status.
                    if read >= FIRST_BYTES && !body.fails_next() {
                        return Poll::Ready(Ok(false));
                    }
                }
            }
        }
    })
    .await;
    match whole {
        Err(error) => bad_gateway(&error),
        Ok(true) if first.iter().all(Frame::is_data) => {
            let mut bytes = Vec::with_capacity(read);
            for frame in first {
                if let Some(data) = frame.data_ref() {
                    bytes.extend_from_slice(data);
                }
            }
            parts
                .headers
                .insert(CONTENT_LENGTH, HeaderValue::from(bytes.len()));
            Response::from_parts(parts, Body::from(bytes))
        }
        Ok(whole) => {
            if read >= FIRST_BYTES {
                // A large body: what was read goes out with the next piece
                // rather than after hyper's buffer fills. A smaller one
                // stopped because the host's body waits, which flushes it.
                body.yield_after_next();
            }
            let rest = (!whole).then_some(body);
            Response::from_parts(parts, Body::new(Prepended { first, rest }))
        }
    }
}

/// The `502 Bad Gateway` of a body refused before anything of it was sent.
fn bad_gateway(error: &dyn std::fmt::Display) -> Response {
    tracing::warn!(
        %error,
        "a response to a client that did not activate the extension was refused (502)"
    );
    StatusCode::BAD_GATEWAY.into_response()
}

/// A scrubbed body whose first frames were read before the head was sent.
struct Prepended {
    first: VecDeque<Frame<Bytes>>,
    rest: Option<ScrubbedBody>,
}

impl HttpBody for Prepended {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if let Some(frame) = self.first.pop_front() {
            return Poll::Ready(Some(Ok(frame)));
        }
        match &mut self.rest {
            Some(rest) => Pin::new(rest).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.first.is_empty() && self.rest.as_ref().is_none_or(HttpBody::is_end_stream)
    }
}
