//! The declaration on the card the official A2A server SDK serves: a card
//! producer over the agent's own, so the SDK's card route (with its
//! headers) serves the card with the declaration on it.

use a2a_server::AgentCardProducer;

use super::CardError;
use crate::Declaration;

/// The agent's card producer, with the Learnables declaration added to
/// every card it produces. Serve it with the SDK's `agent_card_router`.
///
/// ```
/// use std::sync::Arc;
/// use a2a_server::{AgentCardProducer, StaticAgentCard};
/// use learnables::a2a::DeclaredCard;
/// use learnables::{Declaration, EXTENSION_URI};
/// let card: a2a::AgentCard = serde_json::from_value(serde_json::json!({
///     "name": "Agent", "description": "An agent", "version": "1",
///     "supportedInterfaces": [], "capabilities": {}, "skills": [],
///     "defaultInputModes": [], "defaultOutputModes": []
/// })).unwrap();
/// let producer = DeclaredCard::new(StaticAgentCard::new(card), Declaration::new()).unwrap();
/// assert_eq!(producer.card().capabilities.extensions.unwrap()[0].uri, EXTENSION_URI);
/// let router: axum::Router = a2a_server::agent_card::agent_card_router(Arc::new(producer));
/// ```
pub struct DeclaredCard<P> {
    inner: P,
    declaration: Declaration,
}

impl<P> std::fmt::Debug for DeclaredCard<P> {
    /// The declaration (the inner producer need not be `Debug`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeclaredCard")
            .field("declaration", &self.declaration)
            .finish_non_exhaustive()
    }
}

impl<P: AgentCardProducer> DeclaredCard<P> {
    /// `inner` with `declaration` added, once it is checked against the
    /// card `inner` produces now (its skills).
    pub fn new(inner: P, declaration: Declaration) -> Result<DeclaredCard<P>, CardError> {
        declaration.add_to_agent_card(&mut inner.card())?;
        Ok(DeclaredCard { inner, declaration })
    }
}

impl<P: AgentCardProducer> AgentCardProducer for DeclaredCard<P> {
    fn card(&self) -> a2a::AgentCard {
        let mut card = self.inner.card();
        if let Err(error) = self.declaration.add_to_agent_card(&mut card) {
            // The card changed since it was checked: it is served as the
            // agent made it, without the declaration.
            tracing::error!(%error, "the Learnables declaration no longer fits the agent card");
        }
        card
    }
}
