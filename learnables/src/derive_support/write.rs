//! Writing a field's value out: into a lesson value, into a phrasing; and
//! the compile-time check of a choice field's default.

use std::fmt::{Display, Write as _};

use serde_json::{Map, Value};

/// Writes a field's value as its lesson value (its `Display` form).
pub fn write_field<T: Display>(map: &mut Map<String, Value>, name: &str, value: &T) {
    map.insert(name.to_owned(), Value::String(value.to_string()));
}

/// Writes a field's value into a `describes` phrasing.
pub fn describe<T: Display>(out: &mut String, value: &T) {
    // Writing to a String cannot fail.
    let _ = write!(out, "{value}");
}

/// Writes a choice as its lesson value.
pub fn write_choice<T: crate::Choice>(map: &mut Map<String, Value>, name: &str, value: &T) {
    map.insert(name.to_owned(), Value::String(value.as_choice().to_owned()));
}

/// Writes a choice into a `describes` phrasing.
pub fn describe_choice<T: crate::Choice>(out: &mut String, value: &T) {
    out.push_str(value.as_choice());
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
}
