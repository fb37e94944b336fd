//! The learnables methods on axum: a [`Router`] that serves the agent card
//! with the declaration on it, answers the learnables methods at the
//! JSON-RPC endpoint, passes every other request to the router of the A2A
//! SDK the agent already uses, and echoes the activated extension in the
//! `A2A-Extensions` response header.

use std::pin::Pin;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::Value;
use tower::ServiceExt;

use super::card::CardError;
use super::json_rpc::{self, RpcError, codes};
use super::{Activation, LearnablesService};
use crate::{ACTIVATION_HEADER, EXTENSION_URI};

/// The path of the agent card.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";

impl Activation {
    /// The extensions a request's headers activate.
    pub fn from_headers(headers: &HeaderMap) -> Activation {
        Activation::from_header_values(
            headers
                .get_all(ACTIVATION_HEADER)
                .iter()
                .filter_map(|value| value.to_str().ok()),
        )
    }
}

#[derive(Clone)]
struct Mounted {
    service: LearnablesService,
    card: axum::body::Bytes,
    inner: Router,
}

impl LearnablesService {
    /// A router for the whole agent: `GET /.well-known/agent-card.json`
    /// serves `card` with the declaration added; `POST /` answers the
    /// learnables methods and hands every other JSON-RPC request, unread,
    /// to `inner`; every other request goes to `inner` too.
    ///
    /// ```
    /// use axum::Router;
    /// use learnables::a2a::{LearnablesService, Tokens};
    /// use learnables::{Declaration, Knowledge};
    /// let service = LearnablesService::new(Knowledge::in_memory(), Declaration::new(), Tokens::new());
    /// let card = serde_json::json!({"name": "Agent", "capabilities": {}, "skills": []});
    /// let router: Router = service.router(card, Router::new()).unwrap();
    /// ```
    pub fn router(self, card: Value, inner: Router) -> Result<Router, CardError> {
        self.router_at("/", card, inner)
    }

    /// [`LearnablesService::router`] with the JSON-RPC endpoint at `rpc_path`.
    pub fn router_at(
        self,
        rpc_path: &str,
        mut card: Value,
        inner: Router,
    ) -> Result<Router, CardError> {
        self.declaration().add_to_card(&mut card)?;
        let card = serde_json::to_vec(&card)
            .map_err(|_| CardError::Shape("body", "object"))?
            .into();
        let mounted = Mounted {
            service: self,
            card,
            inner: inner.clone(),
        };
        Ok(Router::new()
            .route(CARD_PATH, get(serve_card))
            .route(rpc_path, axum::routing::post(json_rpc_endpoint))
            .with_state(mounted)
            .fallback_service(inner)
            .layer(middleware::from_fn(echo_activation)))
    }
}

async fn serve_card(State(mounted): State<Mounted>) -> Response {
    (
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        mounted.card.clone(),
    )
        .into_response()
}

fn rpc_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body.to_string(),
    )
        .into_response()
}

/// A refusal sent before the body was read to its end: the rest of the
/// body is never read, so the connection cannot carry another request, and
/// the client is told so rather than left to find out on its next one.
fn refusal_unread(status: StatusCode, error: RpcError) -> Response {
    let mut response = rpc_response(status, &json_rpc::failure(Value::Null, error));
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

async fn json_rpc_endpoint(State(mounted): State<Mounted>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let limit = mounted.service.limits().max_body_bytes;
    let too_large = || {
        refusal_unread(
            StatusCode::PAYLOAD_TOO_LARGE,
            RpcError::new(
                codes::INVALID_REQUEST,
                format!("the request is larger than the limit of {limit} bytes"),
            ),
        )
    };
    // A body announced as too large is refused before any of it is read.
    let announced = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    if announced.is_some_and(|length| length > limit as u64) {
        return too_large();
    }
    let bytes = match read_body(body, limit).await {
        Ok(bytes) => bytes,
        Err(BodyError::TooLarge) => return too_large(),
        Err(BodyError::Unreadable(error)) => {
            return refusal_unread(
                StatusCode::BAD_REQUEST,
                RpcError::new(
                    codes::INVALID_REQUEST,
                    format!("the request body could not be read: {error}"),
                ),
            );
        }
    };
    let request = match json_rpc::read_request(&bytes, mounted.service.limits()) {
        Ok(request) => request,
        Err(error) => {
            let id = json_rpc::best_effort_id(&bytes);
            return rpc_response(StatusCode::OK, &json_rpc::failure(id, error));
        }
    };
    if !mounted.service.handles(&request.method) {
        let forwarded = Request::from_parts(parts, Body::from(bytes));
        return match mounted.inner.oneshot(forwarded).await {
            Ok(response) => response,
            Err(never) => match never {},
        };
    }
    let activation = Activation::from_headers(&parts.headers);
    // Two `Authorization` headers are ambiguous (a proxy may have checked
    // the other one): neither counts.
    let mut authorizations = parts.headers.get_all(AUTHORIZATION).iter();
    let bearer = match (authorizations.next(), authorizations.next()) {
        (Some(value), None) => value.to_str().ok().and_then(bearer_token),
        _ => None,
    }
    .map(str::to_owned);
    let service = mounted.service.clone();
    let answered =
        tokio::task::spawn_blocking(move || service.call(request, &activation, bearer.as_deref()))
            .await;
    match answered {
        Ok(Some(response)) => rpc_response(StatusCode::OK, &response),
        Ok(None) => StatusCode::NO_CONTENT.into_response(),
        Err(_) => rpc_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &json_rpc::failure(
                Value::Null,
                RpcError::new(
                    codes::INTERNAL_ERROR,
                    "the request failed; nothing was changed",
                ),
            ),
        ),
    }
}

/// Why a request body was not read.
enum BodyError {
    /// It is larger than the limit.
    TooLarge,
    /// The connection failed or the body is malformed (a broken chunked
    /// encoding, a client that left before sending all it announced).
    Unreadable(axum::Error),
}

/// Reads a body of at most `limit` bytes.
async fn read_body(mut body: Body, limit: usize) -> Result<Bytes, BodyError> {
    let mut bytes = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let frame = frame.map_err(BodyError::Unreadable)?;
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > limit {
                return Err(BodyError::TooLarge);
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(bytes))
}

/// The token of an `Authorization: Bearer <token>` header value (the
/// scheme is case-insensitive).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Adds the Learnables URI to the response's `A2A-Extensions` header when
/// the request activated it, keeping what an inner service echoed.
async fn echo_activation(request: Request, next: Next) -> Response {
    let activated = Activation::from_headers(request.headers()).learnables();
    let mut response = next.run(request).await;
    if activated {
        let headers = response.headers_mut();
        let echoed = Activation::from_headers(headers);
        if !echoed.learnables() {
            let mut uris: Vec<&str> = echoed.uris().collect();
            uris.push(EXTENSION_URI);
            if let Ok(value) = HeaderValue::from_str(&uris.join(", ")) {
                headers.insert(ACTIVATION_HEADER, value);
            }
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::bearer_token;

    #[test]
    fn bearer_tokens() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer   abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer "), None);
        assert_eq!(bearer_token("Bearer"), None);
    }
}
