//! The learnables methods on axum and tower: [`LearnablesLayer`], which adds
//! them to any agent's service, and [`LearnablesService::router`], a whole
//! router for an agent without a card route of its own.

use std::sync::LazyLock;

use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::Value;

use super::card::CardError;
use super::{Activation, LearnablesLayer, LearnablesService};
use crate::ACTIVATION_HEADER;

/// The path of the agent card.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";

/// [`ACTIVATION_HEADER`] as a header name, read once: looked up by it, a
/// header map need not check and lower-case the name on every request.
pub(crate) static ACTIVATION_HEADER_NAME: LazyLock<HeaderName> = LazyLock::new(|| {
    HeaderName::from_bytes(ACTIVATION_HEADER.as_bytes()).expect("a valid header name")
});

impl Activation {
    /// The extensions a request's headers activate.
    pub fn from_headers(headers: &HeaderMap) -> Activation {
        Activation::from_header_values(
            headers
                .get_all(&*ACTIVATION_HEADER_NAME)
                .iter()
                .filter_map(|value| value.to_str().ok()),
        )
    }
}

impl LearnablesService {
    /// A router for a whole agent: `GET /.well-known/agent-card.json`
    /// serves `card` with the declaration added, and everything else is
    /// `inner` under a [`LearnablesLayer`].
    ///
    /// An agent that serves its own card (the official A2A server SDK's
    /// `agent_card_router`, say) should keep its card route and apply
    /// [`LearnablesLayer`] itself instead, putting the declaration on its
    /// card where it makes it (with the feature `a2a-server`,
    /// [`DeclaredCard`][card]): this router's card route
    /// replaces the agent's own, with its headers.
    ///
    /// ```
    /// use axum::Router;
    /// use learnables::a2a::{LearnablesService, Tokens};
    /// use learnables::{Declaration, Knowledge};
    /// let service = LearnablesService::new(Knowledge::in_memory(), Declaration::new(), Tokens::new());
    /// let card = serde_json::json!({"name": "Agent", "capabilities": {}, "skills": []});
    /// let router: Router = service.router(card, Router::new()).unwrap();
    /// ```
    #[cfg_attr(feature = "a2a-server", doc = "[card]: super::DeclaredCard")]
    #[cfg_attr(not(feature = "a2a-server"), doc = "[card]: crate#features")]
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
        let card: axum::body::Bytes = serde_json::to_vec(&card)
            .map_err(|_| CardError::Shape("body", "object"))?
            .into();
        let serve_card = move || {
            let card = card.clone();
            async move { card_response(card) }
        };
        Ok(Router::new()
            .route(CARD_PATH, get(serve_card))
            .fallback_service(inner)
            .layer(LearnablesLayer::new(self).at(rpc_path)))
    }
}

fn card_response(card: axum::body::Bytes) -> Response {
    (
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        card,
    )
        .into_response()
}
