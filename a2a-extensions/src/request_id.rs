//! A JSON-RPC request id kept as the request wrote it, so that the answer
//! gives it back byte for byte: a number such as
//! `123456789012345678901234567890` or `1e400` read into a double would
//! come back as another number, and a client matching answers by id could
//! not match it. serde_json's [`RawValue`] keeps the text; this type only
//! adds the check that it is an id (a string, a number or null).

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A JSON-RPC request id: a string, a number or null, as its JSON text.
///
/// ```
/// use a2a_extensions::json_rpc::{Id, Limits, read_request};
/// let body = br#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m"}"#;
/// let id = read_request(body, Limits::default()).unwrap().id.unwrap();
/// assert_eq!(id.as_json(), "123456789012345678901234567890");
/// assert_eq!(Id::from(7).as_json(), "7");
/// assert_eq!(Id::from("a").as_json(), r#""a""#);
/// assert_eq!(Id::null().as_json(), "null");
/// ```
#[derive(Clone)]
pub struct Id(Box<RawValue>);

impl Id {
    /// The id `null` (of an answer whose request's id could not be read).
    pub fn null() -> Id {
        Id::of(&Value::Null)
    }

    /// The id's JSON text, exactly as the request gave it.
    pub fn as_json(&self) -> &str {
        self.0.get()
    }

    /// The id as a JSON value (a number past a double's range or precision
    /// is no longer the same number there: write the [`Id`] itself to
    /// answer).
    ///
    /// ```
    /// use a2a_extensions::json_rpc::Id;
    /// assert_eq!(Id::from(7).to_value(), serde_json::json!(7));
    /// ```
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.as_json()).unwrap_or(Value::Null)
    }

    /// The raw JSON text as an id, or `None` when it is not a string, a
    /// number or null.
    pub(crate) fn from_raw(raw: Box<RawValue>) -> Option<Id> {
        matches!(
            raw.get().as_bytes().first(),
            Some(b'"' | b'-' | b'0'..=b'9' | b'n')
        )
        .then_some(Id(raw))
    }

    fn of(value: &Value) -> Id {
        // Cannot fail: a string, a number and null are written as JSON.
        Id(serde_json::value::to_raw_value(value)
            .unwrap_or_else(|_| RawValue::from_string("null".to_owned()).expect("null is JSON")))
    }
}

impl From<i64> for Id {
    fn from(number: i64) -> Id {
        Id::of(&Value::from(number))
    }
}

impl From<&str> for Id {
    fn from(text: &str) -> Id {
        Id::of(&Value::from(text))
    }
}

impl From<String> for Id {
    fn from(text: String) -> Id {
        Id::of(&Value::from(text))
    }
}

impl PartialEq for Id {
    fn eq(&self, other: &Id) -> bool {
        self.as_json() == other.as_json()
    }
}

impl Eq for Id {}

impl fmt::Debug for Id {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "Id({})", self.as_json())
    }
}

impl fmt::Display for Id {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_json())
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_strings_numbers_and_null_are_ids() {
        for (text, is_id) in [
            (r#""a""#, true),
            ("-1e400", true),
            ("12", true),
            ("null", true),
            ("{}", false),
            ("[1]", false),
            ("true", false),
        ] {
            let raw = RawValue::from_string(text.to_owned()).unwrap();
            assert_eq!(Id::from_raw(raw).is_some(), is_id, "{text}");
        }
    }

    #[test]
    fn an_id_is_written_as_it_was_read() {
        let raw = RawValue::from_string("123456789012345678901234567890".to_owned()).unwrap();
        let id = Id::from_raw(raw).unwrap();
        assert_eq!(
            serde_json::to_string(&id).unwrap(),
            "123456789012345678901234567890"
        );
    }
}
