//! [`StoredRecord`]: a version record read back from a store's bytes,
//! borrowing its texts from them and writing its value straight back as
//! the compact JSON a version keeps, so that a store opens without making
//! (and then freeing) a [`VersionRecord`] for every version it holds.
//!
//! Opening a store reads every version it holds: a [`VersionRecord`] for
//! each would cost a dozen allocations made only to be dropped, and a value
//! parsed only to be written back as the text it was read from.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

use super::StoreError;
use super::state::State;
use super::version::{DEEPEST_AS_TEXT, value_json};
use super::version_record::{RecordView, ValueRef};
use crate::LessonValue;
use crate::shared::KeyName;

/// A version record as stored, its texts borrowed from the bytes it was
/// read from (unless they hold escapes).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StoredRecord<'a> {
    pub(crate) position: u64,
    #[serde(borrow)]
    collection: Cow<'a, str>,
    definition_version: u64,
    #[serde(borrow)]
    version_id: Cow<'a, str>,
    #[serde(default, borrow)]
    previous_version_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    entry: Cow<'a, str>,
    value: CompactValue,
    #[serde(borrow)]
    taught_by: Cow<'a, str>,
    #[serde(default, borrow)]
    reason: Option<Cow<'a, str>>,
    #[serde(borrow)]
    describes: Cow<'a, str>,
    taught_at_ms: u64,
    #[serde(default)]
    retracted: bool,
}

impl StoredRecord<'_> {
    /// Checks that the record follows on from `state`, and applies it, as
    /// [`extend`](super::writer::extend) does a [`VersionRecord`](super::VersionRecord).
    pub(crate) fn apply(&self, state: &mut State) -> Result<(), StoreError> {
        let view = |value| RecordView {
            position: self.position,
            collection: &self.collection,
            definition_version: self.definition_version,
            version_id: &self.version_id,
            previous_version_id: self.previous_version_id.as_deref(),
            entry: &self.entry,
            value,
            taught_by: &self.taught_by,
            reason: self.reason.as_deref(),
            describes: &self.describes,
            taught_at_ms: self.taught_at_ms,
            retracted: self.retracted,
        };
        let text = &self.value.text;
        state
            .follows_on_view(view(ValueRef::Compact(text)))
            .map_err(|reason| StoreError::Damaged(reason.into()))?;
        if self.value.plain {
            state.apply_written(view(ValueRef::Compact(text)), Some(text));
        } else {
            // Keys out of order, or nested deeper than a version keeps as
            // text: read as any record is.
            let value: LessonValue = serde_json::from_str(text).map_err(|error| {
                StoreError::Damaged(
                    format!(
                        "the value of the version at position {} cannot be read: {error}",
                        self.position
                    )
                    .into(),
                )
            })?;
            let json = value_json(&value);
            state.apply_written(view(ValueRef::Parsed(&value)), json.as_deref());
        }
        Ok(())
    }
}

/// A lesson value, written back as compact JSON as it is read.
struct CompactValue {
    text: String,
    /// Whether `text` is what [`value_json`] writes of the value parsed:
    /// each object's keys in order (as a parsed value's map keeps them)
    /// and no deeper than a version keeps as text. Otherwise the value is
    /// parsed from `text`, as any value is.
    plain: bool,
}

impl<'de> Deserialize<'de> for CompactValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CompactValue, D::Error> {
        let mut out = Output {
            bytes: Vec::with_capacity(128),
            plain: true,
            depth: 0,
        };
        let kind = Transcode(&mut out).deserialize(deserializer)?;
        if kind != "an object" {
            return Err(D::Error::custom(format!(
                "a lesson value must be a JSON object, not {kind}"
            )));
        }
        let text = String::from_utf8(out.bytes)
            .map_err(|_| D::Error::custom("a lesson value written as invalid UTF-8"))?;
        Ok(CompactValue {
            text,
            plain: out.plain,
        })
    }
}

/// What a [`Transcode`] writes to.
struct Output {
    bytes: Vec<u8>,
    plain: bool,
    /// How many arrays and objects the value being written is inside.
    depth: usize,
}

impl Output {
    fn write<T: serde::Serialize + ?Sized>(&mut self, value: &T) {
        // Writing a scalar or a string to a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut self.bytes, value);
    }

    fn enter(&mut self) {
        self.depth += 1;
        if self.depth > DEEPEST_AS_TEXT {
            self.plain = false;
        }
    }
}

/// Writes the JSON value it reads to its output, compact; its result names
/// the value's type ("an object", ...).
struct Transcode<'o>(&'o mut Output);

impl<'de> DeserializeSeed<'de> for Transcode<'_> {
    type Value = &'static str;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<&'static str, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Transcode<'_> {
    type Value = &'static str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<&'static str, E> {
        self.0.write(&value);
        Ok("a boolean")
    }

    fn visit_i64<E>(self, value: i64) -> Result<&'static str, E> {
        self.0.write(&value);
        Ok("a number")
    }

    fn visit_u64<E>(self, value: u64) -> Result<&'static str, E> {
        self.0.write(&value);
        Ok("a number")
    }

    fn visit_f64<E>(self, value: f64) -> Result<&'static str, E> {
        // As a parsed value writes it (a number, or null if not finite).
        self.0.write(&serde_json::Value::from(value));
        Ok("a number")
    }

    fn visit_str<E>(self, value: &str) -> Result<&'static str, E> {
        self.0.write(value);
        Ok("a string")
    }

    fn visit_unit<E>(self) -> Result<&'static str, E> {
        self.0.bytes.extend_from_slice(b"null");
        Ok("null")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<&'static str, A::Error> {
        self.0.enter();
        self.0.bytes.push(b'[');
        let mut first = true;
        loop {
            let at = self.0.bytes.len();
            if !first {
                self.0.bytes.push(b',');
            }
            if items.next_element_seed(Transcode(self.0))?.is_none() {
                self.0.bytes.truncate(at);
                break;
            }
            first = false;
        }
        self.0.bytes.push(b']');
        self.0.depth -= 1;
        Ok("an array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut fields: A) -> Result<&'static str, A::Error> {
        self.0.enter();
        self.0.bytes.push(b'{');
        let mut previous: Option<Cow<'de, str>> = None;
        while let Some(key) = fields.next_key_seed(KeyName)? {
            if let Some(previous) = &previous {
                self.0.bytes.push(b',');
                if previous.as_bytes() >= key.as_bytes() {
                    self.0.plain = false;
                }
            }
            self.0.write(&*key);
            self.0.bytes.push(b':');
            fields.next_value_seed(Transcode(self.0))?;
            previous = Some(key);
        }
        self.0.bytes.push(b'}');
        self.0.depth -= 1;
        Ok("an object")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text a stored value is kept as, and whether it was plain.
    fn compact(json: &str) -> Result<(String, bool), serde_json::Error> {
        serde_json::from_str::<CompactValue>(json).map(|value| (value.text, value.plain))
    }

    #[test]
    fn a_value_is_kept_as_the_text_its_parsed_form_writes() {
        let values = [
            r#"{}"#,
            r#"{"chapter":"85","desk":"general","note":null}"#,
            r#" { "a" : [1, -2, 3.5, 1e300, -0.0, 18446744073709551615, true, false, null],
                 "b" : {"x": "\"quoted\" \\ \u00e9 \ud83d\ude00 \n", "y": []}, "c": 0.1 } "#,
            r#"{"n":12345678901234567890123}"#,
        ];
        for json in values {
            let parsed: LessonValue = serde_json::from_str(json).unwrap();
            let (text, plain) = compact(json).unwrap();
            assert!(plain, "{json}");
            assert_eq!(Some(text), value_json(&parsed), "{json}");
        }
    }

    #[test]
    fn keys_out_of_order_or_deep_nesting_are_read_as_any_value_is() {
        let (_, plain) = compact(r#"{"b":1,"a":2}"#).unwrap();
        assert!(!plain);
        let (_, plain) = compact(r#"{"a":1,"a":2}"#).unwrap();
        assert!(!plain);
        let mut deep = String::from("1");
        for _ in 0..DEEPEST_AS_TEXT {
            deep = format!("[{deep}]");
        }
        let (text, plain) = compact(&format!(r#"{{"deep":{deep}}}"#)).unwrap();
        assert!(!plain);
        let parsed: LessonValue = serde_json::from_str(&text).unwrap();
        assert_eq!(value_json(&parsed), Some(text));
        let (_, plain) =
            compact(&format!(r#"{{"shallow":{}}}"#, &deep[1..deep.len() - 1])).unwrap();
        assert!(plain);
    }

    #[test]
    fn a_value_that_is_not_an_object_is_refused() {
        for json in ["[1]", "\"text\"", "3", "null", "true"] {
            let error = compact(json).unwrap_err().to_string();
            assert!(error.contains("must be a JSON object"), "{json}: {error}");
        }
    }
}
