//! How an agent's card says its teachers sign in, linted: an
//! `openIdConnect` security scheme names its provider's discovery document
//! (`openIdConnectUrl`, https, ending in `/.well-known/openid-configuration`;
//! plain http only on this machine's loopback), and every security
//! requirement names a scheme the card declares, so that a client can find
//! the provider from the card alone.

use serde_json::Value;

/// The path every discovery document's URL ends in (OpenID Connect
/// Discovery 1.0, section 4).
const DISCOVERY_PATH: &str = "/.well-known/openid-configuration";

/// What the card says of signing in.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SignIn {
    /// The discovery documents of the OpenID Connect providers it names,
    /// as the card has them.
    pub providers: Vec<String>,
    /// What is wrong, as `(path, message)`.
    pub problems: Vec<(String, String)>,
}

/// Reads and lints the card's `securitySchemes` and `securityRequirements`.
pub fn sign_in(card: &Value) -> SignIn {
    let mut found = SignIn::default();
    let schemes = card.get("securitySchemes").and_then(Value::as_object);
    for (name, scheme) in schemes.into_iter().flatten() {
        let Some(oidc) = scheme.get("openIdConnectSecurityScheme") else {
            continue;
        };
        let path = format!("securitySchemes.{name}.openIdConnectSecurityScheme.openIdConnectUrl");
        match oidc.get("openIdConnectUrl").and_then(Value::as_str) {
            Some(url) => match discovery_problem(url) {
                Some(problem) => found.problems.push((path, problem)),
                None => found.providers.push(url.to_owned()),
            },
            None => found.problems.push((
                path,
                "an openIdConnect scheme names its provider's discovery document".to_owned(),
            )),
        }
    }
    let requirements = card.get("securityRequirements").and_then(Value::as_array);
    for (at, requirement) in requirements.into_iter().flatten().enumerate() {
        // A2A v1.0's JSON wraps the names in `schemes` (`{"schemes":
        // {"teacher": {"list": []}}}`); OpenAPI's form has them bare.
        let (named, prefix) = match requirement.get("schemes") {
            Some(wrapped) => (wrapped, "schemes."),
            None => (requirement, ""),
        };
        let names = named.as_object().into_iter().flatten();
        for (name, _) in names {
            if !schemes.is_some_and(|schemes| schemes.contains_key(name)) {
                found.problems.push((
                    format!("securityRequirements[{at}].{prefix}{name}"),
                    "names a scheme that securitySchemes does not declare".to_owned(),
                ));
            }
        }
    }
    found
}

/// Why `url` is not a provider's discovery document's URL, if it is not.
fn discovery_problem(url: &str) -> Option<String> {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return Some("is not a URL".to_owned());
    };
    let loopback = matches!(parsed.host_str(), Some("127.0.0.1" | "[::1]" | "localhost"));
    match parsed.scheme() {
        "https" => {}
        "http" if loopback => {}
        _ => return Some("is not an https URL: a provider is reached over TLS".to_owned()),
    }
    if !parsed.path().ends_with(DISCOVERY_PATH) {
        return Some(format!("does not end in {DISCOVERY_PATH}"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_provider_is_found_and_a_bad_scheme_or_requirement_is_named() {
        let card = json!({
            "securitySchemes": {
                "teacher": {"openIdConnectSecurityScheme": {
                    "openIdConnectUrl": "https://idp.example.com/.well-known/openid-configuration"}},
                "plain": {"openIdConnectSecurityScheme": {
                    "openIdConnectUrl": "http://idp.example.com/.well-known/openid-configuration"}},
                "elsewhere": {"openIdConnectSecurityScheme": {
                    "openIdConnectUrl": "https://idp.example.com/login"}},
                "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}
            },
            "securityRequirements": [{}, {"schemes": {"teacher": {"list": []}}},
                {"schemes": {"missing": {"list": []}}}, {"teacher": []}, {"absent": []}]
        });
        let found = sign_in(&card);
        assert_eq!(
            found.providers,
            ["https://idp.example.com/.well-known/openid-configuration"]
        );
        let paths: Vec<&str> = found
            .problems
            .iter()
            .map(|(path, _)| path.as_str())
            .collect();
        assert_eq!(
            paths,
            [
                "securitySchemes.elsewhere.openIdConnectSecurityScheme.openIdConnectUrl",
                "securitySchemes.plain.openIdConnectSecurityScheme.openIdConnectUrl",
                "securityRequirements[2].schemes.missing",
                "securityRequirements[4].absent",
            ]
        );
        assert!(found.problems[1].1.contains("https"));
        assert_eq!(sign_in(&json!({})), SignIn::default());
    }
}
