//! Teachers an OpenID Connect provider vouches for, as the example agent's
//! alternative to its token table: `--oidc-issuer URL --oidc-audience AUD`.
//! The card then names the provider's discovery document (an
//! `openIdConnect` scheme) where the table's agent names a bearer token.

use std::collections::HashMap;
use std::net::SocketAddr;

use a2a::{AgentCard, OpenIdConnectSecurityScheme, SecurityScheme};
use a2a_server::HttpPushSender;
use learnables::Knowledge;
use learnables::a2a::oidc::{OidcAuthenticator, OidcError};
use learnables::a2a::serve::ServerLimits;

use super::{BoundedTaskStore, agent_card, router_signed_in};

/// The provider the agent's teachers sign in with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcTeachers {
    /// The issuer (`https://...`; `http://127.0.0.1:PORT` only when
    /// `loopback_http`).
    pub issuer: String,
    /// The audience its tokens name for this agent.
    pub audience: String,
    /// Whether a plain-HTTP issuer on this machine is allowed (tests and
    /// local providers only).
    pub loopback_http: bool,
}

impl OidcTeachers {
    /// The authenticator, once the provider's discovery document and keys
    /// are fetched.
    ///
    /// ```no_run
    /// use learnables_examples::customs_agent::OidcTeachers;
    /// # async fn run() -> Result<(), learnables::a2a::oidc::OidcError> {
    /// let teachers = OidcTeachers {
    ///     issuer: "https://idp.example.com".into(),
    ///     audience: "urn:customs-agent".into(),
    ///     loopback_http: false,
    /// };
    /// let authenticator = teachers.authenticator().await?;
    /// # let _ = authenticator; Ok(()) }
    /// ```
    pub async fn authenticator(&self) -> Result<OidcAuthenticator, OidcError> {
        let builder = OidcAuthenticator::builder(&self.issuer, &self.audience);
        let builder = if self.loopback_http {
            builder.allow_loopback_http()
        } else {
            builder
        };
        builder.discover().await
    }
}

/// `card` with its teachers' scheme (`teacher`) an `openIdConnect` one
/// naming `discovery_url`: the Learnables methods need a token of that
/// provider, the A2A methods none.
///
/// ```
/// use learnables_examples::customs_agent::{agent_card, openid_card};
/// let card = openid_card(
///     agent_card("http://127.0.0.1:8080/"),
///     "https://idp.example.com/.well-known/openid-configuration",
/// );
/// let json = serde_json::to_value(&card).unwrap();
/// assert_eq!(
///     json["securitySchemes"]["teacher"]["openIdConnectSecurityScheme"]["openIdConnectUrl"],
///     "https://idp.example.com/.well-known/openid-configuration"
/// );
/// ```
pub fn openid_card(mut card: AgentCard, discovery_url: &str) -> AgentCard {
    card.security_schemes = Some(HashMap::from([(
        "teacher".to_owned(),
        SecurityScheme::OpenIdConnect(OpenIdConnectSecurityScheme {
            open_id_connect_url: discovery_url.to_owned(),
            description: Some(
                "The people who teach the agent sign in with this OpenID Connect provider: the \
                 Learnables methods need its access token; the A2A methods take none"
                    .into(),
            ),
        }),
    )]));
    card
}

/// Serves the agent on `listener` until `shutdown` resolves, its teachers
/// authenticated by `authenticator` (and the card naming its provider).
pub async fn serve_oidc(
    listener: tokio::net::TcpListener,
    knowledge: Knowledge,
    authenticator: OidcAuthenticator,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let address: SocketAddr = listener.local_addr()?;
    let base_url = format!("http://{address}/");
    let card = openid_card(agent_card(&base_url), &authenticator.discovery_url());
    crate::install_crypto_provider();
    let router = router_signed_in(
        knowledge,
        authenticator,
        card,
        &base_url,
        BoundedTaskStore::default(),
        HttpPushSender::new(None),
    )
    .map_err(|error| std::io::Error::other(error.to_string()))?;
    learnables::a2a::serve::serve(listener, router, ServerLimits::default(), shutdown).await
}
