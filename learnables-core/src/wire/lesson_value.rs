//! A lesson's value: the JSON object a person filled in.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::LIST_SEPARATOR;

/// A lesson's `value`: opaque to every party but the learnable being taught.
///
/// Transports, stores and clients carry it (it serializes and deserializes as
/// the JSON object it is) but there is no way to read a named key out of it:
/// only the learnable's generated parser does, through
/// [`Learnable::from_lesson_value`](crate::Learnable::from_lesson_value).
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::LessonValue;
/// let value = LessonValue::try_from(serde_json::json!({"chapter": "84"})).unwrap();
/// assert_eq!(serde_json::to_string(&value).unwrap(), r#"{"chapter":"84"}"#);
/// assert!(LessonValue::try_from(serde_json::json!([1, 2])).is_err());
/// ```
#[derive(Clone, PartialEq, Eq, Default, Serialize)]
#[serde(transparent)]
pub struct LessonValue(Map<String, Value>);

/// The error of a lesson value that is not a JSON object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a lesson value must be a JSON object, not {found}")]
#[non_exhaustive]
pub struct NotAnObject {
    /// What the value was instead ("an array", "a string", ...).
    pub found: &'static str,
}

impl LessonValue {
    /// The number of keys, which says nothing of what they hold.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the value has no keys.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value as the JSON it travels as, for a transport or a store.
    pub fn into_json(self) -> Value {
        Value::Object(self.0)
    }

    /// A field's value as text, for the learnable's own use only: a list
    /// in its text form, one item a line ([`LIST_SEPARATOR`]), which a form
    /// starts on and a client that knows no lists sends back as it is.
    pub(crate) fn text_of(&self, name: &str) -> Option<String> {
        let item = |value: &Value| match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        match self.0.get(name)? {
            Value::Null => None,
            Value::Array(items) => Some(
                items
                    .iter()
                    .map(item)
                    .collect::<Vec<_>>()
                    .join(&LIST_SEPARATOR.to_string()),
            ),
            other => Some(item(other)),
        }
    }

    /// The key/value pairs, for the generated parser only.
    #[doc(hidden)]
    pub fn entries(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(key, value)| (key.as_str(), value))
    }

    /// The key/value pairs, taken out, for the generated parser only.
    pub(crate) fn into_entries(self) -> impl Iterator<Item = (String, Value)> {
        self.0.into_iter()
    }
}

impl From<Map<String, Value>> for LessonValue {
    fn from(map: Map<String, Value>) -> LessonValue {
        LessonValue(map)
    }
}

impl TryFrom<Value> for LessonValue {
    type Error = NotAnObject;

    fn try_from(value: Value) -> Result<LessonValue, NotAnObject> {
        match value {
            Value::Object(map) => Ok(LessonValue(map)),
            other => Err(NotAnObject {
                found: json_type_name(&other),
            }),
        }
    }
}

impl<'de> Deserialize<'de> for LessonValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<LessonValue, D::Error> {
        let value = Value::deserialize(deserializer)?;
        LessonValue::try_from(value).map_err(serde::de::Error::custom)
    }
}

/// Says how many keys there are, never what they hold: a value may carry what
/// only its learnable should read, and logs must not leak it.
impl fmt::Debug for LessonValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LessonValue({} keys)", self.0.len())
    }
}

/// "an array", "a number", ...: a JSON value's type as a sentence would name it.
pub(crate) fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
