//! Teachers an OpenID Connect provider vouches for (feature `oidc`):
//! [`OidcAuthenticator`] checks a bearer token as a JWT the provider
//! signed, with the provider's keys found through its discovery document,
//! cached, and fetched again (at most once a while) when a token names a
//! key the cache lacks, so a provider that rotates its keys is followed.
//!
//! Tokens are checked by `jsonwebtoken` (RS256, ES256, EdDSA): signature,
//! `iss`, `aud`, `exp` and `nbf` with a small bounded clock skew. A token a
//! client got for itself (the client-credentials grant) is a service
//! account, which may read but never teach nor review; any other names a
//! person by their verified e-mail (the lessons' `taughtBy`), and review
//! compares people by the issuer and `sub` ([`Principal::stable_id`]).

mod discovery;
mod keys;
mod token;

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::Header;

use self::keys::Keys;
use super::{Authenticator, Principal, TokenRefusal, Verifying};

/// The most clock skew [`OidcBuilder::leeway`] allows.
pub const MOST_LEEWAY: Duration = Duration::from_secs(300);

/// The failure to set up an [`OidcAuthenticator`]: the issuer's URL, or
/// what its discovery document or keys said.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OidcError {
    /// The issuer or a URL it names is not `https` (nor an allowed
    /// loopback `http` URL), or does not read.
    #[error("{0}")]
    Url(String),
    /// The discovery document or the keys could not be fetched.
    #[error("the identity provider cannot be reached: {0}")]
    Unreachable(String),
    /// The discovery document does not read, or names another issuer.
    #[error("the identity provider's discovery document is not usable: {0}")]
    Discovery(String),
    /// The keys do not read, or none is of an accepted algorithm.
    #[error("the identity provider's keys are not usable: {0}")]
    Keys(String),
    /// A setting out of its bounds.
    #[error("{0}")]
    Setting(String),
}

/// Who a token issued to a client for itself is (see
/// [`OidcBuilder::service_when`]).
enum ServiceRule {
    /// `sub` is the token's `client_id` (or `azp`), as RFC 9068 says of a
    /// client-credentials token, or `gty` says `client-credentials`.
    Standard,
    /// The application's rule over the token's checked claims.
    Custom(Box<ClaimsRule>),
}

/// A rule over a token's checked claims.
type ClaimsRule = dyn Fn(&serde_json::Map<String, serde_json::Value>) -> bool + Send + Sync;

/// What the checks compare a token with.
struct Settings {
    issuer: String,
    audience: String,
    email_claim: String,
    verified_claim: Option<String>,
    leeway: Duration,
    service_rule: ServiceRule,
}

/// How an [`OidcAuthenticator`] is set up: the issuer and the audience its
/// tokens must name, and the rest with defaults ([`OidcAuthenticator::builder`]).
pub struct OidcBuilder {
    settings: Settings,
    refresh_every: Duration,
    timeout: Duration,
    loopback_http: bool,
    client: Option<reqwest::Client>,
}

impl std::fmt::Debug for OidcBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcBuilder")
            .field("issuer", &self.settings.issuer)
            .field("audience", &self.settings.audience)
            .finish_non_exhaustive()
    }
}

impl OidcBuilder {
    /// The claim that names the person, their lessons' `taughtBy`
    /// (default `email`), and the claim that must be `true` for it to count
    /// (default `email_verified`; `None` when the provider vouches for
    /// every value of the claim, as for an employee directory's `upn`).
    ///
    /// ```
    /// use learnables::a2a::oidc::OidcAuthenticator;
    /// let builder = OidcAuthenticator::builder("https://idp.example.com", "customs-agent")
    ///     .email_claim("upn", None);
    /// # let _ = builder;
    /// ```
    pub fn email_claim(mut self, claim: impl Into<String>, verified_claim: Option<&str>) -> Self {
        self.settings.email_claim = claim.into();
        self.settings.verified_claim = verified_claim.map(str::to_owned);
        self
    }

    /// The clock skew allowed on `exp` and `nbf` (default 30 seconds, at
    /// most [`MOST_LEEWAY`]; more is refused by `discover`).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.settings.leeway = leeway;
        self
    }

    /// The least time between two fetches of the keys for tokens naming a
    /// key the cache lacks (default 30 seconds): a flood of tokens with
    /// made-up key ids costs the provider one fetch a while.
    pub fn refresh_at_most_every(mut self, every: Duration) -> Self {
        self.refresh_every = every;
        self
    }

    /// How long a fetch of the discovery document or the keys may take,
    /// and a token wait for a fetch under way (default 5 seconds).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Allows an issuer (and keys) at `http://127.0.0.1`, `http://[::1]` or
    /// `http://localhost`: for tests and a provider on the same machine
    /// only, never across a network.
    pub fn allow_loopback_http(mut self) -> Self {
        self.loopback_http = true;
        self
    }

    /// Which tokens are service accounts, by their checked claims, instead
    /// of the standard rule (`sub` is the token's `client_id` or `azp`, or
    /// `gty` is `client-credentials`).
    ///
    /// ```
    /// use learnables::a2a::oidc::OidcAuthenticator;
    /// let builder = OidcAuthenticator::builder("https://idp.example.com", "customs-agent")
    ///     .service_when(|claims| claims.get("idtyp").and_then(|t| t.as_str()) == Some("app"));
    /// # let _ = builder;
    /// ```
    pub fn service_when(
        mut self,
        rule: impl Fn(&serde_json::Map<String, serde_json::Value>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.settings.service_rule = ServiceRule::Custom(Box::new(rule));
        self
    }

    /// The HTTP client the discovery document and keys are fetched with
    /// (default: reqwest's, over the process's installed rustls provider).
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// The authenticator, once the provider's discovery document and keys
    /// are fetched.
    pub async fn discover(self) -> Result<OidcAuthenticator, OidcError> {
        let OidcBuilder {
            settings,
            refresh_every,
            timeout,
            loopback_http,
            client,
        } = self;
        check_url(&settings.issuer, loopback_http)?;
        if settings.leeway > MOST_LEEWAY {
            return Err(OidcError::Setting(format!(
                "a clock skew of {:?} is more than the {MOST_LEEWAY:?} allowed",
                settings.leeway
            )));
        }
        let client = match client {
            Some(client) => client,
            None => reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|error| OidcError::Unreachable(error.to_string()))?,
        };
        let found = discovery::discover(&client, &settings.issuer, timeout, loopback_http).await?;
        let set = discovery::jwks(&client, &found.jwks_uri, timeout).await?;
        let keys = Keys::of(&set);
        if keys.len() == 0 {
            return Err(OidcError::Keys(format!(
                "{} has no RS256, ES256 or EdDSA signing key",
                found.jwks_uri
            )));
        }
        Ok(OidcAuthenticator {
            inner: Arc::new(Inner {
                settings,
                jwks_uri: found.jwks_uri,
                client,
                timeout,
                refresh_every,
                keys: RwLock::new(Arc::new(keys)),
                refreshing: tokio::sync::Mutex::new(Instant::now()),
            }),
        })
    }
}

/// An [`Authenticator`] over an OpenID Connect provider: bearer tokens are
/// JWTs the provider signed for this agent (its `aud`).
///
/// The blocking path ([`Authenticator::verify`], as in
/// [`LearnablesService::call`](super::LearnablesService::call)) checks
/// against the cached keys only; the async one (the layer, `call_async`)
/// also fetches the keys again when a token names one the cache lacks,
/// waiting at most the fetch timeout.
///
/// ```no_run
/// use learnables::a2a::{LearnablesService, oidc::OidcAuthenticator};
/// use learnables::{Declaration, Knowledge};
/// # async fn run() -> Result<(), learnables::a2a::oidc::OidcError> {
/// let authenticator = OidcAuthenticator::builder("https://idp.example.com", "customs-agent")
///     .discover()
///     .await?;
/// let service = LearnablesService::new(Knowledge::in_memory(), Declaration::new(), authenticator);
/// # let _ = service; Ok(()) }
/// ```
#[derive(Clone)]
pub struct OidcAuthenticator {
    inner: Arc<Inner>,
}

struct Inner {
    settings: Settings,
    jwks_uri: String,
    client: reqwest::Client,
    timeout: Duration,
    refresh_every: Duration,
    /// The keys of the last fetch: read by every check, replaced whole.
    keys: RwLock<Arc<Keys>>,
    /// Held while the keys are fetched again (one fetch at a time); holds
    /// when the last fetch was.
    refreshing: tokio::sync::Mutex<Instant>,
}

impl std::fmt::Debug for OidcAuthenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcAuthenticator")
            .field("issuer", &self.inner.settings.issuer)
            .field("audience", &self.inner.settings.audience)
            .finish_non_exhaustive()
    }
}

impl OidcAuthenticator {
    /// The settings of an authenticator for tokens `issuer` issued to
    /// `audience` (this agent's name at the provider), to change and then
    /// [`OidcBuilder::discover`].
    ///
    /// ```
    /// use learnables::a2a::oidc::OidcAuthenticator;
    /// let builder = OidcAuthenticator::builder("https://idp.example.com", "customs-agent");
    /// assert!(format!("{builder:?}").contains("customs-agent"));
    /// ```
    pub fn builder(issuer: impl Into<String>, audience: impl Into<String>) -> OidcBuilder {
        OidcBuilder {
            settings: Settings {
                issuer: issuer.into(),
                audience: audience.into(),
                email_claim: "email".to_owned(),
                verified_claim: Some("email_verified".to_owned()),
                leeway: Duration::from_secs(30),
                service_rule: ServiceRule::Standard,
            },
            refresh_every: Duration::from_secs(30),
            timeout: Duration::from_secs(5),
            loopback_http: false,
            client: None,
        }
    }

    /// The issuer, as tokens must name it.
    pub fn issuer(&self) -> &str {
        &self.inner.settings.issuer
    }

    /// The discovery document's URL, as the card's `openIdConnect` scheme
    /// names it.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), learnables::a2a::oidc::OidcError> {
    /// # let authenticator = learnables::a2a::oidc::OidcAuthenticator::builder("https://idp.example.com", "a").discover().await?;
    /// assert_eq!(authenticator.discovery_url(), "https://idp.example.com/.well-known/openid-configuration");
    /// # Ok(()) }
    /// ```
    pub fn discovery_url(&self) -> String {
        discovery::discovery_url(&self.inner.settings.issuer)
    }

    fn cached(&self) -> Arc<Keys> {
        let keys = self
            .inner
            .keys
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Arc::clone(&keys)
    }

    /// Fetches the keys again for a token whose key the cache lacks, unless
    /// a fetch was made within `refresh_every` (then the key is unknown).
    async fn refreshed(&self, token: &str, header: &Header) -> Result<Principal, TokenRefusal> {
        let inner = &self.inner;
        let mut last = tokio::time::timeout(inner.timeout, inner.refreshing.lock())
            .await
            .map_err(|_| TokenRefusal::KeysUnavailable)?;
        // A fetch that finished while this token waited may have its key.
        let keys = self.cached();
        if keys.find(header.kid.as_deref()).is_some() {
            return token::check(token, header, &keys, &inner.settings);
        }
        if last.elapsed() < inner.refresh_every {
            return Err(TokenRefusal::UnknownKey);
        }
        *last = Instant::now();
        let set = discovery::jwks(&inner.client, &inner.jwks_uri, inner.timeout)
            .await
            .map_err(|error| {
                tracing::warn!(%error, "the identity provider's keys could not be fetched again");
                TokenRefusal::KeysUnavailable
            })?;
        let keys = Arc::new(Keys::of(&set));
        *inner
            .keys
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Arc::clone(&keys);
        token::check(token, header, &keys, &inner.settings)
    }
}

impl Authenticator for OidcAuthenticator {
    fn authenticate(&self, bearer_token: &str) -> Option<Principal> {
        self.verify(bearer_token).ok()
    }

    fn verify(&self, bearer_token: &str) -> Result<Principal, TokenRefusal> {
        let header = token::header(bearer_token)?;
        token::check(bearer_token, &header, &self.cached(), &self.inner.settings)
    }

    fn verify_async<'a>(&'a self, bearer_token: &'a str) -> Verifying<'a> {
        Box::pin(async move {
            let header = token::header(bearer_token)?;
            match token::check(bearer_token, &header, &self.cached(), &self.inner.settings) {
                Err(TokenRefusal::UnknownKey) => self.refreshed(bearer_token, &header).await,
                checked => checked,
            }
        })
    }
}

/// `url` if it is `https`, or `http` on a loopback host when `loopback_http`.
fn check_url(url: &str, loopback_http: bool) -> Result<(), OidcError> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|error| OidcError::Url(format!("`{url}` is not a URL: {error}")))?;
    let loopback = matches!(parsed.host_str(), Some("127.0.0.1" | "[::1]" | "localhost"));
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback && loopback_http => Ok(()),
        "http" if loopback => Err(OidcError::Url(format!(
            "`{url}` is plain HTTP: allowed for a provider on this machine only when asked \
             (tests and local providers)"
        ))),
        _ => Err(OidcError::Url(format!(
            "`{url}` is not an https URL: an identity provider is reached over TLS"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_an_asked_for_loopback_issuer_is_taken() {
        assert!(check_url("https://idp.example.com", false).is_ok());
        assert!(check_url("http://idp.example.com", true).is_err());
        assert!(check_url("http://127.0.0.1:4000", false).is_err());
        assert!(check_url("http://127.0.0.1:4000", true).is_ok());
        assert!(check_url("http://localhost:4000/realm", true).is_ok());
        assert!(check_url("ftp://127.0.0.1", true).is_err());
    }
}
