//! [`RecordView`]: a version record's fields, borrowed: made from a lesson
//! or a [`VersionRecord`] without copying it, or read back from a store's
//! bytes, borrowing its texts from them and writing its value straight back
//! as the compact JSON a version keeps.
//!
//! Opening a store reads every version it holds: a [`VersionRecord`] for
//! each would cost a dozen allocations made only to be dropped, and a value
//! parsed only to be written back as the text it was read from.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

use crate::LessonValue;
use crate::VersionRecord;
use crate::core_shared::KeyName;

/// How deep a value may nest and still be kept as JSON text: parsing it
/// back must stay within `serde_json`'s recursion limit (128).
pub(crate) const DEEPEST_AS_TEXT: usize = 100;

/// A version record's fields, borrowed (from a lesson, a [`VersionRecord`],
/// or a store's bytes unless a text holds escapes): what the knowledge's
/// in-memory state is made of.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RecordView<'a> {
    pub(crate) position: u64,
    #[serde(borrow)]
    pub(crate) collection: Cow<'a, str>,
    pub(crate) definition_version: u64,
    #[serde(borrow)]
    pub(crate) version_id: Cow<'a, str>,
    #[serde(default, borrow)]
    pub(crate) previous_version_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(crate) entry: Cow<'a, str>,
    pub(crate) value: ValueRef<'a>,
    #[serde(borrow)]
    pub(crate) taught_by: Cow<'a, str>,
    #[serde(default, borrow)]
    pub(crate) reason: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(crate) describes: Cow<'a, str>,
    pub(crate) taught_at_ms: u64,
    #[serde(default)]
    pub(crate) retracted: bool,
}

/// A record's value, borrowed: parsed, or as compact JSON read back from a
/// store.
pub(crate) enum ValueRef<'a> {
    Parsed(&'a LessonValue),
    /// The compact JSON text the value was read back as.
    Compact {
        text: String,
        /// Whether `text` is what `value_json` writes of the value parsed:
        /// each object's keys in order (as a parsed value's map keeps them)
        /// and no deeper than a version keeps as text. Otherwise the value
        /// is parsed from `text`, as any value is.
        #[cfg_attr(
            not(any(feature = "embedded", test)),
            expect(dead_code, reason = "only the log reads it")
        )]
        plain: bool,
    },
}

impl<'a> RecordView<'a> {
    /// The fields of `record`, borrowed.
    pub(crate) fn of(record: &'a VersionRecord) -> RecordView<'a> {
        RecordView {
            position: record.position,
            collection: Cow::Borrowed(&record.collection),
            definition_version: record.definition_version,
            version_id: Cow::Borrowed(&record.version_id),
            previous_version_id: record.previous_version_id.as_deref().map(Cow::Borrowed),
            entry: Cow::Borrowed(&record.entry),
            value: ValueRef::Parsed(&record.value),
            taught_by: Cow::Borrowed(&record.taught_by),
            reason: record.reason.as_deref().map(Cow::Borrowed),
            describes: Cow::Borrowed(&record.describes),
            taught_at_ms: record.taught_at_ms,
            retracted: record.retracted,
        }
    }

    /// The same fields, borrowed, with `value` instead.
    #[cfg(feature = "embedded")]
    pub(crate) fn with_value<'b>(&'b self, value: ValueRef<'b>) -> RecordView<'b> {
        let borrowed = |text: &'b Cow<'a, str>| Cow::Borrowed(&**text);
        RecordView {
            position: self.position,
            collection: borrowed(&self.collection),
            definition_version: self.definition_version,
            version_id: borrowed(&self.version_id),
            previous_version_id: self.previous_version_id.as_ref().map(borrowed),
            entry: borrowed(&self.entry),
            value,
            taught_by: borrowed(&self.taught_by),
            reason: self.reason.as_ref().map(borrowed),
            describes: borrowed(&self.describes),
            taught_at_ms: self.taught_at_ms,
            retracted: self.retracted,
        }
    }

    /// The record, copied.
    pub(crate) fn to_record(&self) -> VersionRecord {
        VersionRecord {
            position: self.position,
            collection: self.collection.to_string(),
            definition_version: self.definition_version,
            version_id: self.version_id.to_string(),
            previous_version_id: self.previous_version_id.as_deref().map(str::to_owned),
            entry: self.entry.to_string(),
            value: self.value.to_value(),
            taught_by: self.taught_by.to_string(),
            reason: self.reason.as_deref().map(str::to_owned),
            describes: self.describes.to_string(),
            taught_at_ms: self.taught_at_ms,
            retracted: self.retracted,
        }
    }
}

impl ValueRef<'_> {
    /// The value, parsed (an error when read back as text that does not
    /// parse).
    pub(crate) fn parsed(&self) -> Result<Cow<'_, LessonValue>, serde_json::Error> {
        match self {
            ValueRef::Parsed(value) => Ok(Cow::Borrowed(value)),
            ValueRef::Compact { text, .. } => serde_json::from_str(text).map(Cow::Owned),
        }
    }

    /// The value, parsed: empty for text that does not parse, which a
    /// value written from a parsed one always does.
    pub(crate) fn to_value(&self) -> LessonValue {
        self.parsed().map(Cow::into_owned).unwrap_or_default()
    }
}

impl<'de> Deserialize<'de> for ValueRef<'_> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
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
        Ok(ValueRef::Compact {
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
    use crate::version::value_json;

    /// The text a stored value is kept as, and whether it was plain.
    fn compact(json: &str) -> Result<(String, bool), serde_json::Error> {
        match serde_json::from_str::<ValueRef<'_>>(json)? {
            ValueRef::Compact { text, plain } => Ok((text, plain)),
            ValueRef::Parsed(_) => unreachable!("read back as text"),
        }
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
