//! The provider's discovery document (OpenID Connect Discovery 1.0,
//! `/.well-known/openid-configuration`) and its JWKS, fetched with a
//! timeout and a bounded read: what the provider says is as untrusted as
//! any other input.

use std::time::Duration;

use jsonwebtoken::jwk::JwkSet;
use serde::Deserialize;

use super::OidcError;

/// The most a discovery document or a JWKS may take: providers publish a
/// few kilobytes.
const MOST_BYTES: usize = 256 * 1024;

/// The fields of the discovery document the agent reads.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Discovery {
    pub(super) issuer: String,
    pub(super) jwks_uri: String,
}

/// The discovery document's URL of `issuer` (its trailing `/` aside, as the
/// specification appends the path).
pub(super) fn discovery_url(issuer: &str) -> String {
    format!(
        "{}/.well-known/openid-configuration",
        issuer.trim_end_matches('/')
    )
}

/// The discovery document of `issuer`, which must name `issuer` itself
/// (Discovery 1.0, section 4.3) and keys of the same origin rules.
pub(super) async fn discover(
    client: &reqwest::Client,
    issuer: &str,
    timeout: Duration,
    loopback_http: bool,
) -> Result<Discovery, OidcError> {
    let url = discovery_url(issuer);
    let discovery: Discovery = serde_json::from_slice(&fetch(client, &url, timeout).await?)
        .map_err(|error| OidcError::Discovery(format!("{url} does not read: {error}")))?;
    if discovery.issuer != issuer {
        return Err(OidcError::Discovery(format!(
            "{url} names the issuer `{}`, not `{issuer}`",
            crate::untrusted::Untrusted::new(&discovery.issuer)
        )));
    }
    super::check_url(&discovery.jwks_uri, loopback_http)?;
    Ok(discovery)
}

/// The provider's keys at `jwks_uri`.
pub(super) async fn jwks(
    client: &reqwest::Client,
    jwks_uri: &str,
    timeout: Duration,
) -> Result<JwkSet, OidcError> {
    serde_json::from_slice(&fetch(client, jwks_uri, timeout).await?)
        .map_err(|error| OidcError::Keys(format!("{jwks_uri} does not read: {error}")))
}

/// The body at `url`, if it answers 200 within `timeout` and with at most
/// [`MOST_BYTES`].
async fn fetch(
    client: &reqwest::Client,
    url: &str,
    timeout: Duration,
) -> Result<Vec<u8>, OidcError> {
    let failed = |why: String| OidcError::Unreachable(format!("{url}: {why}"));
    let read = async {
        let mut response = client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|error| failed(error.without_url().to_string()))?;
        if !response.status().is_success() {
            return Err(failed(format!("answered {}", response.status())));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| failed(error.without_url().to_string()))?
        {
            if body.len() + chunk.len() > MOST_BYTES {
                return Err(failed(format!("answered more than {MOST_BYTES} bytes")));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    };
    tokio::time::timeout(timeout, read)
        .await
        .unwrap_or_else(|_| Err(failed(format!("no answer within {timeout:?}"))))
}
