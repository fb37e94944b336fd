//! Knowledge types of the example customs agent, shared by the runnable
//! examples and the tests.
//!
//! ```
//! use learnables::Learnable;
//! use learnables_examples::RoutingRule;
//! assert_eq!(RoutingRule::descriptor().collection, "routing_rules");
//! ```

mod clearance_limit;
pub mod customs_agent;
pub mod desk_plan_agent;
pub mod mcp_teacher;
pub mod model_agent;
pub mod plain_axum_agent;
pub mod refunds_agent;
mod routing_rule;

pub use clearance_limit::{
    ClearanceLimit, REVIEW_REQUIRED_ABOVE_EUR, describe_limit, review_needed,
};
pub use routing_rule::{Chapter, ChapterError, Desk, RoutingRule};

/// Installs ring as the process's rustls crypto provider, unless one is
/// installed already. A reqwest client (the SDK's push sender is one) needs
/// it where reqwest carries rustls without a provider of its own, as it
/// does wherever the teacher's CLI is built with it (this workspace's
/// tests): the CLI installs ring the same way.
///
/// ```
/// learnables_examples::install_crypto_provider();
/// assert!(rustls::crypto::CryptoProvider::get_default().is_some());
/// ```
pub fn install_crypto_provider() {
    // Installing fails only when a provider is installed already: that one
    // is kept.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The README's Rust examples, compiled and run with these doctests: its
/// "Add it to your agent" is a whole agent on the official A2A server SDK.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The declaration of everything the customs agent can be taught.
///
/// ```
/// let declaration = learnables_examples::customs_declaration();
/// assert!(declaration.validate().is_ok());
/// assert_eq!(declaration.params().learnables.len(), 2);
/// ```
pub fn customs_declaration() -> learnables::Declaration {
    learnables::Declaration::new()
        .learnable::<RoutingRule>()
        .learnable::<ClearanceLimit>()
        .teach_method(learnables::TEACH_METHOD)
        .retract_method(learnables::RETRACT_METHOD)
        .review_method(learnables::REVIEW_METHOD)
}
