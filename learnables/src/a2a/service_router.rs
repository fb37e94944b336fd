//! The axum router of a whole agent around a [`LearnablesService`]: its
//! card route and the [`LearnablesLayer`](super::LearnablesLayer) over the
//! agent's own routes.

use serde_json::Value;

use super::LearnablesService;

/// The path of the agent card.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";

impl LearnablesService {
    /// A router for a whole agent: `GET /.well-known/agent-card.json`
    /// serves `card` with the declaration added, and everything else is
    /// `inner` under a [`LearnablesLayer`](super::LearnablesLayer).
    ///
    /// An agent that serves its own card (the official A2A server SDK's
    /// `agent_card_router`, say) should keep its card route and apply
    /// [`LearnablesLayer`](super::LearnablesLayer) itself instead, putting the declaration on its
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
    pub fn router(
        self,
        card: Value,
        inner: axum::Router,
    ) -> Result<axum::Router, super::CardError> {
        self.router_at("/", card, inner)
    }

    /// [`LearnablesService::router`] with the JSON-RPC endpoint at `rpc_path`.
    pub fn router_at(
        self,
        rpc_path: &str,
        mut card: Value,
        inner: axum::Router,
    ) -> Result<axum::Router, super::CardError> {
        self.declaration().add_to_card(&mut card)?;
        let card: axum::body::Bytes = serde_json::to_vec(&card)
            .map_err(|_| super::CardError::Shape("body", "object"))?
            .into();
        let serve_card = move || {
            let card = card.clone();
            async move { card_response(card) }
        };
        Ok(axum::Router::new()
            .route(CARD_PATH, axum::routing::get(serve_card))
            .fallback_service(inner)
            .layer(super::LearnablesLayer::new(self).at(rpc_path)))
    }
}

fn card_response(card: axum::body::Bytes) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    (
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        card,
    )
        .into_response()
}
