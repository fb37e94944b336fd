//! Writing a derived value out, into a lesson value and into a phrasing,
//! through `&dyn Display`: one non-generic function each for every derived
//! type; and the compile-time check of a choice field's default.

use std::fmt::{Display, Write as _};

use serde_json::{Map, Value};

use crate::wire::LessonValue;

/// A field's value as `&dyn Display`: the one piece of code each field type
/// adds for writing.
pub fn as_display<T: Display>(value: &T) -> &dyn Display {
    value
}

/// The lesson value of a derived value: each field's name and its text,
/// `None` for an absent optional field (left out).
pub fn lesson_value(fields: &[(&'static str, Option<&dyn Display>)]) -> LessonValue {
    let mut map = Map::with_capacity(fields.len());
    for (name, value) in fields {
        if let Some(value) = value {
            map.insert((*name).to_owned(), Value::String(value.to_string()));
        }
    }
    LessonValue::from(map)
}

/// A piece of a `describes` template.
pub enum Piece<'a> {
    /// Literal text.
    Text(&'static str),
    /// The entry's key.
    Entry,
    /// A field's value; `None` for an absent optional field (nothing).
    Value(Option<&'a dyn Display>),
}

/// The phrasing of a `describes` template for `entry`. The entry and the
/// values come from a teacher and the sentence goes to people (the teacher,
/// a resumed task's history, logs): each is written as
/// [`Untrusted`](crate::untrusted::Untrusted) escapes it, so that no
/// control, bidi or invisible character reaches them raw.
pub fn phrase(pieces: &[Piece<'_>], entry: &str) -> String {
    let mut out = String::with_capacity(64);
    let mut value_text = String::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Entry => out.push_str(&crate::untrusted::escaped(entry)),
            // Writing to a String cannot fail.
            Piece::Value(Some(value)) => {
                value_text.clear();
                let _ = write!(value_text, "{value}");
                out.push_str(&crate::untrusted::escaped(&value_text));
            }
            Piece::Value(None) => {}
        }
    }
    out
}

/// `haystack` holds `needle`: for the compile-time check of a default
/// against the choices of its field's type.
pub const fn choices_hold(choices: Option<&[&str]>, needle: &str) -> bool {
    let Some(choices) = choices else {
        return true;
    };
    let mut index = 0;
    while index < choices.len() {
        if bytes_equal(choices[index].as_bytes(), needle.as_bytes()) {
            return true;
        }
        index += 1;
    }
    false
}

const fn bytes_equal(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut index = 0;
    while index < a.len() {
        if a[index] != b[index] {
            return false;
        }
        index += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_hold_compares_whole_strings() {
        assert!(choices_hold(Some(&["general", "cold chain"]), "cold chain"));
        assert!(!choices_hold(Some(&["general"]), "gen"));
        assert!(choices_hold(None, "anything"));
    }

    #[test]
    fn phrases_and_lesson_values_leave_absent_fields_out() {
        let pieces = [
            Piece::Text("Chapter "),
            Piece::Value(Some(&85)),
            Piece::Text(" for "),
            Piece::Entry,
            Piece::Value(None),
        ];
        assert_eq!(phrase(&pieces, "85"), "Chapter 85 for 85");
        let hostile = [
            Piece::Text("Say "),
            Piece::Value(Some(&"\u{202e}olleh\x1b[2J")),
            Piece::Text(" in "),
            Piece::Entry,
        ];
        assert_eq!(
            phrase(&hostile, "a\u{0}b"),
            r"Say \u{202e}olleh\u{1b}[2J in a\u{0}b"
        );
        let value = lesson_value(&[("chapter", Some(&85)), ("note", None)]);
        assert_eq!(value.into_json(), serde_json::json!({"chapter": "85"}));
    }
}
