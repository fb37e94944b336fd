//! HTTP to the agent: its card, and JSON-RPC calls with the Learnables
//! extension activated and the teacher's bearer token.
//!
//! This build speaks plain `http://` only: it carries no TLS stack.

use std::time::Duration;

use learnables::{ACTIVATION_HEADER, EXTENSION_URI};
use reqwest::blocking::Client;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use serde_json::{Value, json};

use crate::error::{CliError, Refusal};
use crate::spinner::Spinner;

/// Where the agent card is, below an agent's base URL.
pub const CARD_PATH: &str = ".well-known/agent-card.json";

/// An agent reached over HTTP.
#[derive(Debug, Clone)]
pub struct AgentClient {
    base: String,
    http: Client,
}

impl AgentClient {
    /// A client for the agent at `url` (see [`base_url`] for what is
    /// accepted), giving up on any request after `timeout`.
    pub fn new(url: &str, timeout: Duration) -> Result<AgentClient, CliError> {
        let base = base_url(url)?;
        let http = Client::builder()
            .timeout(timeout)
            .user_agent(concat!("learnables/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| CliError::msg(format!("cannot make an HTTP client: {error}")))?;
        Ok(AgentClient { base, http })
    }

    /// The agent's base URL, ending in `/`: where JSON-RPC calls go.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The URL of the agent card.
    pub fn card_url(&self) -> String {
        format!("{}{CARD_PATH}", self.base)
    }

    /// Fetches the agent card (no activation needed: the declaration is
    /// data-only).
    pub fn fetch_card(&self) -> Result<Value, CliError> {
        let url = self.card_url();
        let response = Spinner::during("fetching the agent card", || self.http.get(&url).send())
            .map_err(|error| unreachable_agent(&url, &error))?;
        let status = response.status();
        let text = response
            .text()
            .map_err(|error| unreachable_agent(&url, &error))?;
        if !status.is_success() {
            return Err(CliError::msg(format!(
                "no agent card at {url}: the server answered HTTP {status}"
            )));
        }
        serde_json::from_str(&text)
            .map_err(|error| CliError::msg(format!("the agent card at {url} is not JSON: {error}")))
    }

    /// Calls `method` with `params`, the extension activated and `token`
    /// as the bearer token: the result, or the agent's refusal of `what`
    /// ("the lesson", say). `waiting` is what the spinner says meanwhile.
    pub fn call(
        &self,
        method: &str,
        params: Value,
        token: &str,
        what: &str,
        waiting: &str,
    ) -> Result<Value, CliError> {
        let mut authorization = HeaderValue::from_str(&format!("Bearer {}", token.trim()))
            .map_err(|_| CliError::msg("the token has characters an HTTP header cannot carry"))?;
        authorization.set_sensitive(true);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let url = self.base.as_str();
        let response = Spinner::during(waiting, || {
            self.http
                .post(url)
                .header(CONTENT_TYPE, "application/json")
                .header(ACTIVATION_HEADER, EXTENSION_URI)
                .header(AUTHORIZATION, authorization)
                .body(body.to_string())
                .send()
        })
        .map_err(|error| unreachable_agent(url, &error))?;
        let status = response.status();
        let text = response
            .text()
            .map_err(|error| unreachable_agent(url, &error))?;
        let reply: Value = serde_json::from_str(&text).map_err(|_| {
            CliError::msg(format!(
                "the agent at {url} answered `{method}` with HTTP {status} and no JSON-RPC response"
            ))
        })?;
        read_reply(reply, what).map_err(|error| match error {
            ReplyError::Refused(refusal) => CliError::Refused(refusal),
            ReplyError::Malformed => CliError::msg(format!(
                "the agent at {url} answered `{method}` (HTTP {status}) with neither a result \
                 nor an error"
            )),
        })
    }
}

/// Why a JSON-RPC reply is not a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyError {
    /// The agent sent an error.
    Refused(Refusal),
    /// The reply is neither a result nor an error.
    Malformed,
}

/// Reads a JSON-RPC reply: its `result`, or its `error` as a refusal of
/// `what`.
pub fn read_reply(mut reply: Value, what: &str) -> Result<Value, ReplyError> {
    if let Some(error) = reply.get("error") {
        let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
        let data = error.get("data");
        let problems = data
            .and_then(|data| data.get("problems"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|problem| {
                (
                    text(problem.get("field")),
                    text(problem.get("message")).unwrap_or_else(|| problem.to_string()),
                )
            })
            .collect();
        return Err(ReplyError::Refused(Refusal {
            what: what.to_owned(),
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: text(error.get("message")).unwrap_or_else(|| error.to_string()),
            field: text(data.and_then(|data| data.get("field"))),
            problems,
        }));
    }
    match reply.get_mut("result") {
        Some(result) => Ok(result.take()),
        None => Err(ReplyError::Malformed),
    }
}

/// The agent's base URL, ending in `/`, from what the person typed:
/// `http://host:port`, with or without a path or a trailing `/`, or the
/// card's own URL; `host:port` alone means `http://`. `https://` is
/// refused, with a reason: this build has no TLS.
pub fn base_url(url: &str) -> Result<String, CliError> {
    let url = url.trim();
    let url = if url.contains("://") {
        url.to_owned()
    } else {
        format!("http://{url}")
    };
    let parsed = reqwest::Url::parse(&url)
        .map_err(|error| CliError::msg(format!("`{url}` is not a URL: {error}")))?;
    match parsed.scheme() {
        "http" => {}
        "https" => {
            return Err(CliError::msg(format!(
                "`{url}` is an https:// URL, but this build of learnables has no TLS: it speaks \
                 http:// only (reach the agent over http://, or through a local TLS proxy)"
            )));
        }
        other => {
            return Err(CliError::msg(format!(
                "`{url}` has the scheme `{other}`; the agent's URL starts with http://"
            )));
        }
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(CliError::msg(format!("`{url}` names no host")));
    }
    let mut base = parsed.to_string();
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(CliError::msg(format!(
            "`{url}` has a query or a fragment; give the agent's base URL"
        )));
    }
    if let Some(stripped) = base.strip_suffix(CARD_PATH) {
        base = stripped.to_owned();
    }
    if !base.ends_with('/') {
        base.push('/');
    }
    Ok(base)
}

fn unreachable_agent(url: &str, error: &reqwest::Error) -> CliError {
    let mut reason = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        reason.push_str(": ");
        reason.push_str(&cause.to_string());
        source = cause.source();
    }
    if error.is_timeout() {
        return CliError::msg(format!(
            "the agent at {url} did not answer in time ({reason})"
        ));
    }
    CliError::msg(format!("cannot reach the agent at {url}: {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        for (typed, base) in [
            ("http://127.0.0.1:8471", "http://127.0.0.1:8471/"),
            ("http://127.0.0.1:8471/", "http://127.0.0.1:8471/"),
            ("127.0.0.1:8471", "http://127.0.0.1:8471/"),
            (
                "http://agents.example/customs",
                "http://agents.example/customs/",
            ),
            ("http://h:1/.well-known/agent-card.json", "http://h:1/"),
        ] {
            assert_eq!(base_url(typed).unwrap(), base, "{typed}");
        }
    }

    #[test]
    fn https_and_other_schemes_are_refused_with_a_reason() {
        let error = base_url("https://agents.example/").unwrap_err().to_string();
        assert!(error.contains("no TLS"), "{error}");
        assert!(
            base_url("ftp://x/")
                .unwrap_err()
                .to_string()
                .contains("`ftp`")
        );
        assert!(base_url("http://x/?a=1").is_err());
    }

    #[test]
    fn replies() {
        assert_eq!(
            read_reply(json!({"jsonrpc": "2.0", "id": 1, "result": {"a": 1}}), "x"),
            Ok(json!({"a": 1}))
        );
        let refused = read_reply(
            json!({"error": {"code": -32602, "message": "bad", "data": {"field": "value.chapter",
                   "problems": [{"field": "chapter", "message": "not a number"}]}}}),
            "the lesson",
        );
        let Err(ReplyError::Refused(refusal)) = refused else {
            panic!("{refused:?}")
        };
        assert_eq!(refusal.code, -32602);
        assert_eq!(refusal.field.as_deref(), Some("value.chapter"));
        assert_eq!(
            refusal.problems,
            [(Some("chapter".to_owned()), "not a number".to_owned())]
        );
        assert_eq!(
            read_reply(json!({"id": 1}), "x"),
            Err(ReplyError::Malformed)
        );
    }
}
