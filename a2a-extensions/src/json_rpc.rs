//! JSON-RPC 2.0 as an extension's methods speak it: the request envelope,
//! read with limits on size and nesting, and responses, refusals written as
//! A2A v1.0 writes errors ([`RpcError`]). Used by the layer, and by a
//! caller that reads requests itself (a transport other than HTTP).

use std::cell::Cell;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::map::Entry;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub use crate::error::{RpcError, codes};
pub use crate::request_id::Id;

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

/// An error response.
///
/// ```
/// use a2a_extensions::json_rpc::failure;
/// use a2a_extensions::{RpcError, codes};
/// let response = failure(1.into(), RpcError::new(codes::METHOD_NOT_FOUND, "no such method"));
/// assert_eq!(response["id"], 1);
/// assert_eq!(response["error"]["code"], -32601);
/// ```
///
/// As a [`Value`], an id past a double's range or precision is no longer
/// the same number: a response to write is the [`Answer`] itself.
pub fn failure(id: Id, error: RpcError) -> Value {
    Answer::<Value>::new(id, Err(error)).to_value()
}

/// A JSON-RPC 2.0 response before it is written: the request's id and its
/// result or error. It serializes as the response object, so that it can be
/// written straight into a body without building a [`Value`] first.
///
/// ```
/// use a2a_extensions::json_rpc::Answer;
/// let answer = Answer::new("a".into(), Ok(serde_json::json!({"greeting": "hello"})));
/// assert_eq!(
///     answer.to_value(),
///     serde_json::json!({"jsonrpc": "2.0", "id": "a", "result": {"greeting": "hello"}})
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<R> {
    id: Id,
    outcome: Result<R, RpcError>,
}

impl<R: Serialize> Answer<R> {
    /// The response to the request `id`.
    pub fn new(id: Id, outcome: Result<R, RpcError>) -> Answer<R> {
        Answer { id, outcome }
    }

    /// The outcome's error, if it is one.
    pub fn error(&self) -> Option<&RpcError> {
        self.outcome.as_ref().err()
    }

    /// The response as a JSON value (an id past a double's range or
    /// precision is no longer the same number there: to write the
    /// response, serialize the answer itself).
    pub fn to_value(&self) -> Value {
        // Built member by member, so that an id no JSON value holds (1e400)
        // costs only the id (null), never the answer. The rest cannot fail:
        // every map the response holds has string keys.
        let mut response = Map::new();
        response.insert("jsonrpc".to_owned(), Value::from("2.0"));
        response.insert("id".to_owned(), self.id.to_value());
        let (key, body) = match &self.outcome {
            Ok(result) => ("result", serde_json::to_value(result)),
            Err(error) => ("error", serde_json::to_value(error)),
        };
        response.insert(key.to_owned(), body.unwrap_or_default());
        Value::Object(response)
    }
}

impl<R: Serialize> Serialize for Answer<R> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut response = serializer.serialize_struct("Response", 3)?;
        response.serialize_field("jsonrpc", "2.0")?;
        response.serialize_field("id", &self.id)?;
        match &self.outcome {
            Ok(result) => response.serialize_field("result", result)?,
            Err(error) => response.serialize_field("error", error)?,
        }
        response.end()
    }
}

/// Reads a request body in one pass: its size, then the JSON with its
/// nesting and any key given twice in one object checked as it is read,
/// then the envelope. Each failure is the error response to send, with the
/// id when known.
///
/// ```
/// use a2a_extensions::json_rpc::{Limits, codes, read_request};
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
    let refusal = Cell::new(None);
    let checked = Checked {
        depth: 0,
        max_depth: limits.max_depth,
        refusal: &refusal,
    };
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let read = TopLevel(checked)
        .deserialize(&mut deserializer)
        .and_then(|top| deserializer.end().map(|()| top));
    match (read, refusal.take()) {
        (Ok(top), _) => envelope(top),
        (Err(_), Some(Refusal::TooDeep(depth))) => Err(RpcError::new(
            codes::INVALID_REQUEST,
            format!(
                "the request nests arrays and objects {depth} deep; the limit is {}",
                limits.max_depth
            ),
        )),
        (Err(_), Some(Refusal::Twice(key))) => Err(RpcError::new(
            codes::INVALID_REQUEST,
            format!(
                "the request is ambiguous: the key `{}` appears twice in one object",
                crate::text::shown(&key)
            ),
        )),
        (Err(error), None) => Err(RpcError::new(
            codes::PARSE_ERROR,
            format!("the request is not valid JSON: {error}"),
        )),
    }
}

/// Why [`Checked`] stopped reading.
enum Refusal {
    /// Arrays and objects nest this deep, past the limit.
    TooDeep(usize),
    /// An object gives this key twice.
    Twice(String),
}

/// Reads a JSON value, refusing nesting deeper than `max_depth` and any
/// object that gives a key twice (read as its last value here, but perhaps
/// as its first by a proxy that checked the request), as it reads.
#[derive(Clone, Copy)]
struct Checked<'r> {
    depth: usize,
    max_depth: usize,
    refusal: &'r Cell<Option<Refusal>>,
}

impl Checked<'_> {
    fn refuse<E: serde::de::Error>(&self, refusal: Refusal) -> E {
        self.refusal.set(Some(refusal));
        E::custom("refused")
    }

    fn nested<E: serde::de::Error>(self) -> Result<Self, E> {
        let depth = self.depth + 1;
        if depth > self.max_depth {
            return Err(self.refuse(Refusal::TooDeep(depth)));
        }
        Ok(Checked { depth, ..self })
    }
}

impl<'de> DeserializeSeed<'de> for Checked<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match object.entry(key) {
                Entry::Occupied(given) => {
                    return Err(self.refuse(Refusal::Twice(given.key().clone())));
                }
                Entry::Vacant(slot) => {
                    slot.insert(map.next_value_seed(inner)?);
                }
            }
        }
        Ok(Value::Object(object))
    }
}

/// The top level of a request body: an object, read member by member
/// (members other than the envelope's are checked and dropped, never
/// kept), or something that is not a request.
enum Top {
    Object(Members),
    /// A batch, which the methods do not take.
    Array,
    /// A string, a number, a boolean or null.
    Other,
}

/// The envelope's members of a request object, as given.
#[derive(Default)]
struct Members {
    jsonrpc: Option<Value>,
    /// As written, so that the answer gives it back byte for byte.
    id: Option<Box<RawValue>>,
    method: Option<Value>,
    params: Option<Value>,
}

/// Reads the top level of a request body, with the same checks as
/// [`Checked`] (which reads everything below it).
struct TopLevel<'r>(Checked<'r>);

impl<'de> DeserializeSeed<'de> for TopLevel<'_> {
    type Value = Top;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Top, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = Top;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Top, E> {
        Ok(Top::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Top, E> {
        Ok(Top::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Top, E> {
        Ok(Top::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Top, E> {
        Ok(Top::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<Top, E> {
        Ok(Top::Other)
    }

    fn visit_unit<E>(self) -> Result<Top, E> {
        Ok(Top::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Top, A::Error> {
        self.0.visit_seq(seq).map(|_| Top::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        let inner = self.0.nested()?;
        let mut members = Members::default();
        // The names of members outside the envelope, to refuse one given
        // twice; requests seldom have any.
        let mut others: Vec<String> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "id" {
                if members.id.is_some() {
                    return Err(self.0.refuse(Refusal::Twice(key)));
                }
                members.id = Some(map.next_value()?);
                continue;
            }
            let member = match key.as_str() {
                "jsonrpc" => Some(&mut members.jsonrpc),
                "method" => Some(&mut members.method),
                "params" => Some(&mut members.params),
                _ => None,
            };
            match member {
                Some(Some(_)) => return Err(self.0.refuse(Refusal::Twice(key))),
                Some(member) => *member = Some(map.next_value_seed(inner)?),
                None if others.contains(&key) => {
                    return Err(self.0.refuse(Refusal::Twice(key)));
                }
                None => {
                    others.push(key);
                    map.next_value_seed(inner)?;
                }
            }
        }
        Ok(Top::Object(members))
    }
}

fn envelope(top: Top) -> Result<Request, RpcError> {
    let Members {
        jsonrpc,
        id,
        method,
        params,
    } = match top {
        Top::Object(members) => members,
        Top::Array => {
            return Err(RpcError::new(
                codes::INVALID_REQUEST,
                "batch requests are not supported: send one request per call",
            ));
        }
        Top::Other => {
            return Err(RpcError::new(
                codes::INVALID_REQUEST,
                "a JSON-RPC request is a JSON object",
            ));
        }
    };
    let invalid = |message: &str| RpcError::new(codes::INVALID_REQUEST, message);
    let id = match id.map(Id::from_raw) {
        None => None,
        Some(Some(id)) => Some(id),
        Some(None) => return Err(invalid("`id` must be a string, a number or null")),
    };
    if !matches!(&jsonrpc, Some(Value::String(version)) if version == "2.0") {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    let method = match method {
        Some(Value::String(method)) => method,
        Some(_) => return Err(invalid("`method` must be a string")),
        None => return Err(invalid("`method` is missing")),
    };
    let params = params.unwrap_or(Value::Null);
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
        .and_then(Id::from_raw)
        .unwrap_or_else(Id::null)
}

/// The `id` of a JSON object, if it has exactly one; the other members
/// are skipped unread.
struct TopLevelId(Option<Box<RawValue>>);

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
                ids.push(map.next_value::<Box<RawValue>>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(TopLevelId(if ids.len() == 1 { ids.pop() } else { None }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(body: &str) -> Result<Request, RpcError> {
        read_request(body.as_bytes(), Limits::default())
    }

    #[test]
    fn a_well_formed_request_and_a_notification() {
        let request = read(r#"{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1}}"#).unwrap();
        assert_eq!(request.id, Some(Id::from("a")));
        assert_eq!(request.params, json!({"x": 1}));
        assert_eq!(read(r#"{"jsonrpc":"2.0","method":"m"}"#).unwrap().id, None);
    }

    #[test]
    fn an_id_is_kept_as_it_was_written() {
        for id in [
            "123456789012345678901234567890",
            "-1e400",
            "1E+2",
            "-0",
            "0.10",
            r#""\u0061""#,
        ] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m"}}"#);
            let request = read(&body).unwrap();
            let answer = Answer::new(request.id.unwrap(), Ok(json!(true)));
            assert_eq!(
                serde_json::to_string(&answer).unwrap(),
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":true}}"#)
            );
        }
    }

    #[test]
    fn as_a_value_an_id_no_value_holds_costs_only_the_id() {
        let request = read(r#"{"jsonrpc":"2.0","id":1e400,"method":"m"}"#).unwrap();
        let answer = Answer::new(request.id.unwrap(), Ok(json!(true)));
        assert_eq!(
            answer.to_value(),
            json!({"jsonrpc": "2.0", "id": null, "result": true})
        );
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
            assert_eq!(best_effort_id(body.as_bytes()), Id::from(1));
        }
        let twice = r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#;
        assert_eq!(read(twice).unwrap_err().code, codes::INVALID_REQUEST);
        assert_eq!(best_effort_id(twice.as_bytes()), Id::null());
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
        assert_eq!(best_effort_id(br#"{"id": 7, "jsonrpc": 1}"#), Id::from(7));
        assert_eq!(best_effort_id(b"{"), Id::null());
        assert_eq!(
            best_effort_id(br#"{"id": "a", "x": [1, {"id": 2}]}"#),
            Id::from("a")
        );
        assert_eq!(best_effort_id(br#"{"id": 7, "id": 8}"#), Id::null());
        assert_eq!(best_effort_id(br#"{"id": {"a": 1}}"#), Id::null());
        assert_eq!(
            best_effort_id(br#"{"id": -1.50e+400, "x": {"#).as_json(),
            "null"
        );
        assert_eq!(
            best_effort_id(br#"{"id": -1.50e+400, "jsonrpc": 1}"#).as_json(),
            "-1.50e+400"
        );
    }
}
