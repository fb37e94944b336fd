//! One bearer token checked as a JWT against the provider's keys
//! (`jsonwebtoken`: signature, `iss`, `aud`, `exp` and `nbf` with the
//! allowed skew), then read as a principal: a service account when the
//! token was issued to a client for itself, else the person of its verified
//! e-mail, with issuer and `sub` as the identity the provider keeps for good.

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Header, Validation};
use serde_json::{Map, Value};

use super::keys::{ACCEPTED, Keys};
use super::{ServiceRule, Settings};
use crate::a2a::{Principal, TokenRefusal};

/// The claims of a token, as they came.
pub(super) type Claims = Map<String, Value>;

/// The header of `token`, if its algorithm is one the agent accepts.
pub(super) fn header(token: &str) -> Result<Header, TokenRefusal> {
    let header = jsonwebtoken::decode_header(token).map_err(|error| refusal(error.kind()))?;
    if !ACCEPTED.contains(&header.alg) {
        return Err(TokenRefusal::Algorithm);
    }
    Ok(header)
}

/// `token` checked with the key its header names in `keys`, read as a
/// principal. `Err(UnknownKey)` when `keys` has no such key.
pub(super) fn check(
    token: &str,
    header: &Header,
    keys: &Keys,
    settings: &Settings,
) -> Result<Principal, TokenRefusal> {
    let key = keys
        .find(header.kid.as_deref())
        .ok_or(TokenRefusal::UnknownKey)?;
    if key.algorithm != header.alg {
        return Err(TokenRefusal::Algorithm);
    }
    let mut validation = Validation::new(key.algorithm);
    validation.set_issuer(&[&settings.issuer]);
    validation.set_audience(&[&settings.audience]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    validation.leeway = settings.leeway.as_secs();
    validation.validate_nbf = true;
    let data = jsonwebtoken::decode::<Claims>(token, &key.key, &validation)
        .map_err(|error| refusal(error.kind()))?;
    principal(&data.claims, settings)
}

/// The principal of checked `claims`.
fn principal(claims: &Claims, settings: &Settings) -> Result<Principal, TokenRefusal> {
    let sub = text(claims, "sub")?;
    let stable = format!("{}#{sub}", settings.issuer);
    if is_service(claims, sub, &settings.service_rule) {
        let client = claims
            .get("client_id")
            .or_else(|| claims.get("azp"))
            .and_then(Value::as_str)
            .unwrap_or(sub);
        return Ok(Principal::service(client).with_stable_id(stable));
    }
    let email = text(claims, &settings.email_claim)?;
    if let Some(flag) = &settings.verified_claim
        && !verified(claims.get(flag))
    {
        return Err(TokenRefusal::Unverified);
    }
    Ok(Principal::human(email).with_stable_id(stable))
}

/// Whether the token was issued to a client for itself, by `rule`.
fn is_service(claims: &Claims, sub: &str, rule: &ServiceRule) -> bool {
    match rule {
        ServiceRule::Standard => {
            // RFC 9068: a token a client got for itself has the client's id
            // as its `sub`; Auth0 and others say the grant in `gty`.
            let client = claims.get("client_id").or_else(|| claims.get("azp"));
            client.and_then(Value::as_str) == Some(sub)
                || claims.get("gty").and_then(Value::as_str) == Some("client-credentials")
        }
        ServiceRule::Custom(rule) => rule(claims),
    }
}

/// Whether an `email_verified` claim says yes (a boolean, or the string
/// some providers send).
fn verified(claim: Option<&Value>) -> bool {
    match claim {
        Some(Value::Bool(verified)) => *verified,
        Some(Value::String(verified)) => verified == "true",
        _ => false,
    }
}

/// A claim that must be a string that is not empty.
fn text<'a>(claims: &'a Claims, name: &str) -> Result<&'a str, TokenRefusal> {
    claims
        .get(name)
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
        .ok_or_else(|| TokenRefusal::Claim(name.to_owned()))
}

/// What `jsonwebtoken`'s error means to the teacher.
fn refusal(kind: &ErrorKind) -> TokenRefusal {
    match kind {
        ErrorKind::ExpiredSignature => TokenRefusal::Expired,
        ErrorKind::ImmatureSignature => TokenRefusal::NotYetValid,
        ErrorKind::InvalidIssuer => TokenRefusal::WrongIssuer,
        ErrorKind::InvalidAudience => TokenRefusal::WrongAudience,
        ErrorKind::InvalidSignature => TokenRefusal::BadSignature,
        ErrorKind::InvalidAlgorithm
        | ErrorKind::InvalidAlgorithmName
        | ErrorKind::UnsupportedAlgorithm => TokenRefusal::Algorithm,
        ErrorKind::MissingRequiredClaim(claim) | ErrorKind::InvalidClaimFormat(claim) => {
            TokenRefusal::Claim(claim.clone())
        }
        _ => TokenRefusal::Malformed,
    }
}
