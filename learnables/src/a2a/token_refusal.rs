//! Why a bearer token was refused: the check it failed (expired, another
//! audience, a key the provider does not publish...), said to the client in
//! plain words, never with the token.

/// The check a bearer token failed. An [`Authenticator`](super::Authenticator)
/// that knows why (an OpenID Connect provider's token, checked as a JWT)
/// says so through [`Authenticator::verify`](super::Authenticator::verify);
/// one that only knows "no" ([`Tokens`](super::Tokens)) refuses with
/// [`TokenRefusal::NotValid`]. Its `Display` is what the agent answers,
/// and names no token.
///
/// ```
/// use learnables::a2a::TokenRefusal;
/// assert_eq!(TokenRefusal::NotValid.to_string(), "the bearer token is not valid");
/// assert_eq!(
///     TokenRefusal::Expired.to_string(),
///     "the bearer token is not valid: it has expired; sign in again"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenRefusal {
    /// The authenticator does not know the token.
    #[error("the bearer token is not valid")]
    NotValid,
    /// Not a JWT, or one whose parts do not read.
    #[error(
        "the bearer token is not valid: it is not a token this agent's identity provider issues"
    )]
    Malformed,
    /// Its `exp` is past (beyond the allowed clock skew).
    #[error("the bearer token is not valid: it has expired; sign in again")]
    Expired,
    /// Its `nbf` is still to come (beyond the allowed clock skew).
    #[error("the bearer token is not valid yet (its `nbf` is in the future)")]
    NotYetValid,
    /// Its `iss` is not the agent's identity provider.
    #[error("the bearer token is not valid: another issuer issued it")]
    WrongIssuer,
    /// Its `aud` does not name this agent.
    #[error("the bearer token is not valid: it is meant for another audience, not this agent")]
    WrongAudience,
    /// Signed by a key the provider does not publish (even after the keys
    /// were fetched again).
    #[error(
        "the bearer token is not valid: it is signed by a key the identity provider does not publish (unknown key)"
    )]
    UnknownKey,
    /// The signature does not verify.
    #[error("the bearer token is not valid: its signature does not verify")]
    BadSignature,
    /// Signed with an algorithm the agent does not accept, or not the one
    /// its key is for.
    #[error(
        "the bearer token is not valid: it is signed with an algorithm this agent does not accept"
    )]
    Algorithm,
    /// A claim the agent needs is missing or not of its type; names the claim.
    #[error("the bearer token is not valid: its `{0}` claim is missing or not of its type")]
    Claim(String),
    /// The person's e-mail (the claim `taughtBy` is taken from) is not
    /// verified by the provider.
    #[error(
        "the bearer token names no verified e-mail: the identity provider has not verified the person's address, so it cannot name a teacher"
    )]
    Unverified,
    /// The provider's keys could not be fetched in time.
    #[error(
        "the agent cannot reach its identity provider to check the bearer token; try again shortly"
    )]
    KeysUnavailable,
}
