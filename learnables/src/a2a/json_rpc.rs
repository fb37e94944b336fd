//! JSON-RPC 2.0 as the learnables methods speak it: the request envelope,
//! read with limits on size and nesting, and responses with the spec's
//! error codes.

use std::collections::HashSet;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Error codes: JSON-RPC 2.0's, A2A v1.0's where one fits, and this
/// extension's own in the server-error range.
pub mod codes {
    /// The body is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a JSON-RPC 2.0 request (or is too large, too deep, or
    /// gives a key twice in one object).
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params are wrong; `data.field` names the field at fault.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The agent failed; nothing was changed.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The method needs the Learnables extension activated (A2A's
    /// `ExtensionSupportRequiredError`).
    pub const EXTENSION_NOT_ACTIVATED: i64 = -32008;
    /// No valid bearer token was sent.
    pub const UNAUTHENTICATED: i64 = -32040;
    /// The authenticated principal may not do this.
    pub const FORBIDDEN: i64 = -32041;
    /// No such entry or version.
    pub const NOT_FOUND: i64 = -32042;
}

/// Limits on a request before anything reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest body accepted, in bytes.
    pub max_body_bytes: usize,
    /// The deepest nesting of arrays and objects accepted.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: 64 * 1024,
            max_depth: 32,
        }
    }
}

/// A JSON-RPC request id: a string, a number, or null.
pub type Id = Value;

/// A parsed JSON-RPC 2.0 request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// `None` for a notification.
    pub id: Option<Id>,
    /// The method name.
    pub method: String,
    /// The params, `Null` when absent.
    pub params: Value,
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RpcError {
    /// One of [`codes`].
    pub code: i64,
    /// What went wrong, for a person.
    pub message: String,
    /// Details: `field` for the field at fault, and more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error without data.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// An invalid-params error naming the field at fault.
    pub fn invalid_params(field: &str, message: impl Into<String>) -> RpcError {
        RpcError::new(codes::INVALID_PARAMS, message).with_data(json!({ "field": field }))
    }

    /// Adds (or merges into) `data`.
    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = match (self.data.take(), data) {
            (Some(Value::Object(mut old)), Value::Object(new)) => {
                old.extend(new);
                Some(Value::Object(old))
            }
            (_, data) => Some(data),
        };
        self
    }
}

/// A response: the JSON to send.
pub fn success(id: Id, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// An error response.
pub fn failure(id: Id, error: RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": error })
}

/// Reads a request body: size, then nesting, then JSON, then keys given
/// twice in one object, then the envelope.
/// Each failure is the error response to send, with the id when known.
///
/// ```
/// use learnables::a2a::json_rpc::{Limits, codes, read_request};
/// let request = read_request(br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#, Limits::default())
///     .unwrap();
/// assert_eq!(request.method, "m");
/// let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
/// let refused = read_request(deep.as_bytes(), Limits::default()).unwrap_err();
/// assert_eq!(refused.code, codes::INVALID_REQUEST);
/// ```
pub fn read_request(body: &[u8], limits: Limits) -> Result<Request, RpcError> {
    if body.len() > limits.max_body_bytes {
        return Err(RpcError::new(
            codes::INVALID_REQUEST,
            format!(
                "the request is {} bytes; the limit is {}",
                body.len(),
                limits.max_body_bytes
            ),
        ));
    }
    if let Some(depth) = too_deep(body, limits.max_depth) {
        return Err(RpcError::new(
            codes::INVALID_REQUEST,
            format!(
                "the request nests arrays and objects {depth} deep; the limit is {}",
                limits.max_depth
            ),
        ));
    }
    let value: Value = serde_json::from_slice(body).map_err(|error| {
        RpcError::new(
            codes::PARSE_ERROR,
            format!("the request is not valid JSON: {error}"),
        )
    })?;
    // A key given twice is read as its last value here, but perhaps as its
    // first by a proxy that checked the request: such a request is refused.
    if let Err(error) = serde_json::from_slice::<UniqueKeys>(body) {
        return Err(RpcError::new(
            codes::INVALID_REQUEST,
            format!("the request is ambiguous: {error}"),
        )
        .with_data(json!({ "id": best_effort_id(body) })));
    }
    envelope(value)
}

/// Any JSON value whose objects each name every key once.
struct UniqueKeys;

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<UniqueKeys, D::Error> {
        deserializer.deserialize_any(UniqueKeys)
    }
}

impl<'de> Visitor<'de> for UniqueKeys {
    type Value = UniqueKeys;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_i64<E>(self, _: i64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_u64<E>(self, _: u64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_f64<E>(self, _: f64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_str<E>(self, _: &str) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_unit<E>(self) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UniqueKeys, A::Error> {
        while seq.next_element::<UniqueKeys>()?.is_some() {}
        Ok(UniqueKeys)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<UniqueKeys, A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "the key `{}` appears twice in one object",
                    crate::lesson_error::shortened(&key)
                )));
            }
            map.next_value::<UniqueKeys>()?;
            seen.insert(key);
        }
        Ok(UniqueKeys)
    }
}

fn envelope(value: Value) -> Result<Request, RpcError> {
    let mut object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(RpcError::new(
                codes::INVALID_REQUEST,
                "batch requests are not supported: send one request per call",
            ));
        }
        _ => {
            return Err(RpcError::new(
                codes::INVALID_REQUEST,
                "a JSON-RPC request is a JSON object",
            ));
        }
    };
    let id = object.remove("id");
    let invalid = |message: &str| {
        RpcError::new(codes::INVALID_REQUEST, message).with_data(json!({ "id": id.clone() }))
    };
    if let Some(id) = &id
        && !matches!(id, Value::String(_) | Value::Number(_) | Value::Null)
    {
        return Err(invalid("`id` must be a string, a number or null"));
    }
    if object.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        Some(_) => return Err(invalid("`method` must be a string")),
        None => return Err(invalid("`method` is missing")),
    };
    let params = object.remove("params").unwrap_or(Value::Null);
    if !matches!(params, Value::Object(_) | Value::Array(_) | Value::Null) {
        return Err(invalid("`params` must be an object or an array"));
    }
    Ok(Request { id, method, params })
}

/// The request id of a body that failed before its envelope was read, if
/// one can be read cheaply: for the error response. An id given twice is
/// no id.
pub fn best_effort_id(body: &[u8]) -> Id {
    serde_json::from_slice::<TopLevelId>(body)
        .ok()
        .and_then(|TopLevelId(id)| id)
        .filter(|id| matches!(id, Value::String(_) | Value::Number(_)))
        .unwrap_or(Value::Null)
}

/// The `id` of a JSON object, if it has exactly one; the other members
/// are skipped unread.
struct TopLevelId(Option<Value>);

impl<'de> Deserialize<'de> for TopLevelId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TopLevelId, D::Error> {
        deserializer.deserialize_map(TopLevelIdVisitor)
    }
}

struct TopLevelIdVisitor;

impl<'de> Visitor<'de> for TopLevelIdVisitor {
    type Value = TopLevelId;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevelId, A::Error> {
        let mut ids = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "id" {
                ids.push(map.next_value::<Value>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(TopLevelId(if ids.len() == 1 { ids.pop() } else { None }))
    }
}

/// The nesting depth of `body` if it exceeds `max`, found without parsing:
/// brackets are counted outside strings.
fn too_deep(body: &[u8], max: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in body {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(depth);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> Result<Request, RpcError> {
        read_request(body.as_bytes(), Limits::default())
    }

    #[test]
    fn a_well_formed_request_and_a_notification() {
        let request = read(r#"{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1}}"#).unwrap();
        assert_eq!(request.id, Some(json!("a")));
        assert_eq!(request.params, json!({"x": 1}));
        assert_eq!(read(r#"{"jsonrpc":"2.0","method":"m"}"#).unwrap().id, None);
    }

    #[test]
    fn each_malformed_envelope_has_its_error() {
        for (body, code) in [
            ("{", codes::PARSE_ERROR),
            ("", codes::PARSE_ERROR),
            ("[]", codes::INVALID_REQUEST),
            ("3", codes::INVALID_REQUEST),
            (r#"{"id":1,"method":"m"}"#, codes::INVALID_REQUEST),
            (
                r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
                codes::INVALID_REQUEST,
            ),
            (
                r#"{"jsonrpc":"2.0","id":{},"method":"m"}"#,
                codes::INVALID_REQUEST,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
                codes::INVALID_REQUEST,
            ),
            (r#"{"jsonrpc":"2.0","id":1}"#, codes::INVALID_REQUEST),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}"#,
                codes::INVALID_REQUEST,
            ),
        ] {
            assert_eq!(read(body).unwrap_err().code, code, "{body}");
        }
    }

    #[test]
    fn a_key_given_twice_is_refused_at_any_depth() {
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":1,"\u0078":2}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[{"v":{"d":1,"d":1}}]}"#,
        ] {
            let error = read(body).unwrap_err();
            assert_eq!(error.code, codes::INVALID_REQUEST, "{body}");
            assert!(error.message.contains("appears twice"), "{}", error.message);
            assert_eq!(error.data, Some(json!({"id": 1})));
        }
        let error = read(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#).unwrap_err();
        assert_eq!(error.data, Some(json!({"id": null})));
        let same_key_apart =
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":{"x":1},"y":{"x":2}}}"#;
        assert!(read(same_key_apart).is_ok());
    }

    #[test]
    fn brackets_inside_strings_do_not_count_as_nesting() {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"s":"{}\"[["}}}}"#,
            "[".repeat(100)
        );
        assert!(read(&body).is_ok());
    }

    #[test]
    fn oversized_bodies_are_refused_before_parsing() {
        let limits = Limits {
            max_body_bytes: 10,
            max_depth: 4,
        };
        let error = read_request(&[b' '; 11], limits).unwrap_err();
        assert_eq!(error.code, codes::INVALID_REQUEST);
        assert_eq!(error.message, "the request is 11 bytes; the limit is 10");
    }

    #[test]
    fn the_id_is_recovered_for_error_responses() {
        assert_eq!(best_effort_id(br#"{"id": 7, "jsonrpc": 1}"#), json!(7));
        assert_eq!(best_effort_id(b"{"), Value::Null);
        assert_eq!(
            best_effort_id(br#"{"id": "a", "x": [1, {"id": 2}]}"#),
            json!("a")
        );
        assert_eq!(best_effort_id(br#"{"id": 7, "id": 8}"#), Value::Null);
    }
}
