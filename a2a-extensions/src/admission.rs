//! The one admission path of an extension's methods: what the layer checks
//! of a request before the extension's handler sees it, and what a caller
//! that reads requests itself (another transport, a test, a service's own
//! `call`) runs too, so that every path refuses the same things.

use std::time::Duration;

use http::HeaderMap;
use http::header::AUTHORIZATION;
use serde_json::Value;

use crate::activation::Activation;
use crate::error::{RpcError, codes};
use crate::extension::Extension;
use crate::json_rpc::{self, Id, Limits, Request};

/// The header naming the A2A version a request speaks.
const VERSION_HEADER: &str = "a2a-version";

/// The checks on a request for one of an extension's methods, in order:
/// its body's size, its JSON-RPC envelope (nesting, keys given twice), its
/// `A2A-Version` (any 1.x; none means 0.3, as A2A v1.0 reads it), its
/// method, and the extension's activation. Each refusal is an error with
/// A2A v1.0's typed details, its domain the extension's URI.
///
/// ```
/// use a2a_extensions::{Admission, Extension, codes};
/// use http::HeaderMap;
/// let greeting = Extension::new("https://example.com/a2a/greeting/v1")
///     .method("example.greeting.Greet");
/// let admission = Admission::new(greeting);
/// let mut headers = HeaderMap::new();
/// headers.insert("a2a-version", "1.0".parse().unwrap());
/// let body = br#"{"jsonrpc": "2.0", "id": 1, "method": "example.greeting.Greet"}"#;
/// let refusal = admission.admit(&headers, body).unwrap_err();
/// assert_eq!(refusal.error().code, codes::EXTENSION_NOT_ACTIVATED);
///
/// headers.insert("a2a-extensions", "https://example.com/a2a/greeting/v1".parse().unwrap());
/// let call = admission.admit(&headers, body).unwrap();
/// assert_eq!(call.method, "example.greeting.Greet");
/// ```
#[derive(Debug, Clone)]
pub struct Admission {
    extension: Extension,
    limits: Limits,
    read_timeout: Duration,
}

/// A request admitted: what the extension's handler answers.
#[derive(Debug, Clone)]
pub struct Call {
    /// The method, one of the extension's.
    pub method: String,
    /// The params, `Null` when absent.
    pub params: Value,
    /// The extensions the request activated (the handler's among them).
    pub activation: Activation,
    /// The request's headers (none for a caller without them).
    pub headers: HeaderMap,
    id: Option<Id>,
}

impl Call {
    /// The request's id; `None` for a notification, which is carried out
    /// and never answered.
    pub fn id(&self) -> Option<&Id> {
        self.id.as_ref()
    }

    /// The token of the request's one `Authorization: Bearer <token>`
    /// header (the scheme is case-insensitive). Two `Authorization`
    /// headers are ambiguous (a proxy may have checked the other one):
    /// neither counts.
    ///
    /// ```
    /// use a2a_extensions::{Admission, Extension};
    /// let admission = Admission::new(Extension::new("u").method("m"));
    /// let mut call = admission
    ///     .admit_request(
    ///         a2a_extensions::json_rpc::read_request(
    ///             br#"{"jsonrpc": "2.0", "id": 1, "method": "m"}"#,
    ///             Default::default(),
    ///         )
    ///         .unwrap(),
    ///         a2a_extensions::Activation::from_header_values(["u"]),
    ///     )
    ///     .unwrap();
    /// call.headers.insert("authorization", "Bearer t0ken".parse().unwrap());
    /// assert_eq!(call.bearer_token(), Some("t0ken"));
    /// ```
    pub fn bearer_token(&self) -> Option<&str> {
        let mut authorizations = self.headers.get_all(AUTHORIZATION).iter();
        match (authorizations.next(), authorizations.next()) {
            (Some(value), None) => value.to_str().ok().and_then(bearer_token),
            _ => None,
        }
    }
}

/// A request refused: its id (`None` for a notification, which gets no
/// answer) and the error.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    id: Option<Id>,
    error: RpcError,
}

impl Refusal {
    /// The refusal of the request `id` (`None`: a notification).
    pub fn new(id: Option<Id>, error: RpcError) -> Refusal {
        Refusal { id, error }
    }

    /// The error.
    pub fn error(&self) -> &RpcError {
        &self.error
    }

    /// The request's id; `None` for a notification.
    pub fn id(&self) -> Option<&Id> {
        self.id.as_ref()
    }

    /// The JSON-RPC response, or `None` for a notification. Written as
    /// it is (not through a [`Value`]), it gives the id back byte for byte.
    pub fn answer(&self) -> Option<json_rpc::Answer<()>> {
        let id = self.id.clone()?;
        Some(json_rpc::Answer::new(id, Err(self.error.clone())))
    }
}

impl Admission {
    /// The admission of `extension`'s methods, with the default
    /// [`Limits`] and a body read within 30 seconds.
    pub fn new(extension: Extension) -> Admission {
        Admission {
            extension,
            limits: Limits::default(),
            read_timeout: Duration::from_secs(30),
        }
    }

    /// The same admission with other limits on a request's body.
    pub fn with_limits(mut self, limits: Limits) -> Admission {
        self.limits = limits;
        self
    }

    /// The same admission with another time limit on reading a request's
    /// body over HTTP (a client that sends it slower is answered `408`).
    pub fn with_read_timeout(mut self, read_timeout: Duration) -> Admission {
        self.read_timeout = read_timeout;
        self
    }

    /// The extension admitted to.
    pub fn extension(&self) -> &Extension {
        &self.extension
    }

    /// The limits on a request's body.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The time limit on reading a request's body.
    pub fn read_timeout(&self) -> Duration {
        self.read_timeout
    }

    /// Every check on a request's headers and whole body.
    pub fn admit(&self, headers: &HeaderMap, body: &[u8]) -> Result<Call, Refusal> {
        let request = json_rpc::read_request(body, self.limits)
            .map_err(|error| Refusal::new(Some(json_rpc::best_effort_id(body)), self.own(error)))?;
        if let Some(error) = unsupported_version(headers) {
            return Err(Refusal::new(request.id, self.own(error)));
        }
        let activation = Activation::from_headers(headers);
        let mut call = self.admit_request(request, activation)?;
        call.headers = headers.clone();
        Ok(call)
    }

    /// The checks on a request already read (by a caller without HTTP
    /// headers): its method and the extension's activation.
    pub fn admit_request(&self, request: Request, activation: Activation) -> Result<Call, Refusal> {
        let Request { id, method, params } = request;
        if !self.extension.serves(&method) {
            let error = RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!("there is no method `{}`", crate::text::shown(&method)),
            );
            return Err(Refusal::new(id, self.own(error)));
        }
        if !activation.includes(self.extension.uri()) {
            let error = self.not_activated(&method);
            return Err(Refusal::new(id, error));
        }
        Ok(Call {
            method,
            params,
            activation,
            headers: HeaderMap::new(),
            id,
        })
    }

    /// The refusal of `method` (of the extension, or of its host when the
    /// extension is required) for a request that did not activate it.
    pub(crate) fn not_activated(&self, method: &str) -> RpcError {
        let uri = self.extension.uri();
        let named = match self.extension.name() {
            name if name == uri => format!("the extension {uri}"),
            name => format!("the {name} extension"),
        };
        self.own(RpcError::new(
            codes::EXTENSION_NOT_ACTIVATED,
            format!(
                "`{}` needs {named} activated: send the header `A2A-Extensions: {uri}`",
                crate::text::shown(method),
            ),
        ))
    }

    /// `error` as the extension's: its domain the extension's URI unless
    /// it names another.
    pub(crate) fn own(&self, error: RpcError) -> RpcError {
        error.or_domain(self.extension.uri())
    }
}

/// The refusal of a request whose `A2A-Version` this agent does not serve
/// (any 1.x is served). A request without the header asks for 0.3, as
/// A2A v1.0 reads it (§3.6.1) and the SDKs' own methods refuse it: one
/// rule for every method of the agent.
fn unsupported_version(headers: &HeaderMap) -> Option<RpcError> {
    let Some(value) = headers.get(VERSION_HEADER) else {
        return Some(RpcError::new(
            codes::VERSION_NOT_SUPPORTED,
            "this agent serves A2A 1.x; a request without an A2A-Version header asks for 0.3: \
             send `A2A-Version: 1.0`",
        ));
    };
    let text = String::from_utf8_lossy(value.as_bytes());
    let major = text.trim().split('.').next()?.parse::<u32>().ok();
    (major != Some(1)).then(|| {
        let shown = crate::text::shown(&text);
        RpcError::new(
            codes::VERSION_NOT_SUPPORTED,
            format!("this agent serves A2A 1.x; the request's A2A-Version is `{shown}`"),
        )
        .with_metadata("requestedVersion", shown)
    })
}

/// The token of an `Authorization: Bearer <token>` header value (the
/// scheme is case-insensitive).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn bearer_tokens() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer   abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer "), None);
        assert_eq!(bearer_token("Bearer"), None);
    }

    #[test]
    fn versions() {
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(VERSION_HEADER, HeaderValue::from_static(value));
            unsupported_version(&headers)
        };
        assert_eq!(with("1.0"), None);
        assert_eq!(with(" 1 "), None);
        assert_eq!(with("1.1"), None);
        for refused in ["0.3", "2.0", "x"] {
            let error = with(refused).unwrap();
            assert_eq!(error.code, codes::VERSION_NOT_SUPPORTED);
            assert!(
                error.message.contains(&format!("`{refused}`")),
                "{}",
                error.message
            );
        }
        // No header means 0.3, as A2A reads it and the SDK refuses it.
        let missing = unsupported_version(&HeaderMap::new()).unwrap();
        assert_eq!(missing.code, codes::VERSION_NOT_SUPPORTED);
        assert!(missing.message.contains("0.3"), "{}", missing.message);
    }

    #[test]
    fn refusals_name_the_extension_as_their_domain() {
        let admission = Admission::new(Extension::new(crate::TEST_URI).named("Test").method("m"));
        let request = json_rpc::read_request(
            br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#,
            Limits::default(),
        )
        .unwrap();
        let refusal = admission
            .admit_request(request, Activation::default())
            .unwrap_err();
        assert_eq!(refusal.error().domain(), crate::TEST_URI);
        assert!(
            refusal.error().message.contains("the Test extension"),
            "{}",
            refusal.error().message
        );
    }
}
