//! [`EntryKey`]: an entry's key as its collection orders it: keys written
//! as integers first, by value (`9` before `10`), then every other key as
//! text. A collection's entries are kept in this order, so that reading
//! them in order sorts nothing.

use std::cmp::Ordering;
use std::sync::Arc;

use equivalent::{Comparable, Equivalent};

/// An entry's key in a collection's map of entries.
#[derive(Clone, Debug)]
pub(crate) struct EntryKey {
    text: Arc<str>,
    /// `text` as an integer, when it is written as one plainly.
    integer: Option<i128>,
}

impl EntryKey {
    pub(crate) fn new(text: Arc<str>) -> EntryKey {
        EntryKey {
            integer: integer(&text),
            text,
        }
    }
}

/// A key looked up in a collection's map of entries, without copying it.
pub(crate) struct KeyProbe<'a> {
    text: &'a str,
    integer: Option<i128>,
}

impl KeyProbe<'_> {
    pub(crate) fn new(text: &str) -> KeyProbe<'_> {
        KeyProbe {
            text,
            integer: integer(text),
        }
    }
}

/// The order of keys: integers first, by value, then the others as text.
/// An integer has one plain spelling, so keys that are equal in this order
/// are the same text.
fn order(a: (Option<i128>, &str), b: (Option<i128>, &str)) -> Ordering {
    match (a.0, b.0) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.1.cmp(b.1),
    }
}

/// `key` as an integer, when it is written as one plainly (no `+`, no
/// leading zero, no `-0`).
fn integer(key: &str) -> Option<i128> {
    let digits = key.strip_prefix('-').unwrap_or(key);
    let plain = !digits.is_empty()
        && digits.bytes().all(|byte| byte.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && key != "-0";
    plain.then(|| key.parse().ok()).flatten()
}

impl Ord for EntryKey {
    fn cmp(&self, other: &EntryKey) -> Ordering {
        order((self.integer, &self.text), (other.integer, &other.text))
    }
}

impl PartialOrd for EntryKey {
    fn partial_cmp(&self, other: &EntryKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for EntryKey {
    fn eq(&self, other: &EntryKey) -> bool {
        self.text == other.text
    }
}

impl Eq for EntryKey {}

impl Equivalent<EntryKey> for KeyProbe<'_> {
    fn equivalent(&self, key: &EntryKey) -> bool {
        *self.text == *key.text
    }
}

impl Comparable<EntryKey> for KeyProbe<'_> {
    fn compare(&self, key: &EntryKey) -> Ordering {
        order((self.integer, self.text), (key.integer, &key.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_come_first_by_value_then_other_keys_as_text() {
        let mut keys: Vec<EntryKey> = ["b", "10", "-3", "9", "09", "+5", "-0", "a", "0", "1e3"]
            .into_iter()
            .map(|key| EntryKey::new(Arc::from(key)))
            .collect();
        keys.sort();
        let texts: Vec<&str> = keys.iter().map(|key| &*key.text).collect();
        assert_eq!(
            texts,
            ["-3", "0", "9", "10", "+5", "-0", "09", "1e3", "a", "b"]
        );
        for key in &keys {
            let probe = KeyProbe::new(&key.text);
            assert_eq!(probe.compare(key), Ordering::Equal);
            assert!(probe.equivalent(key));
        }
        assert_eq!(
            KeyProbe::new("9").compare(&EntryKey::new(Arc::from("10"))),
            Ordering::Less
        );
    }
}
