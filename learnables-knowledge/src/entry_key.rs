//! How a collection finds and orders its entries: [`ByEntry`], a version
//! found by its entry's key ([`EntryProbe`] looks one up without copying
//! the key), and [`EntryKey`], the order of keys: keys written as integers
//! first, by value (`9` before `10`), then every other key as text.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use equivalent::Equivalent;

use crate::version::Version;

/// An entry's latest version, hashed and compared by the entry's key.
#[derive(Clone)]
pub(crate) struct ByEntry(pub(crate) Arc<Version>);

/// An entry's key, looked up among [`ByEntry`]s.
#[derive(Hash)]
pub(crate) struct EntryProbe<'a>(pub(crate) &'a str);

impl Hash for ByEntry {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // As `EntryProbe` hashes the same key.
        (*self.0.entry).hash(state);
    }
}

impl PartialEq for ByEntry {
    fn eq(&self, other: &ByEntry) -> bool {
        self.0.entry == other.0.entry
    }
}

impl Eq for ByEntry {}

impl Equivalent<ByEntry> for EntryProbe<'_> {
    fn equivalent(&self, key: &ByEntry) -> bool {
        *self.0 == *key.0.entry
    }
}

/// An entry's key in the order a collection lists its entries.
#[derive(Clone, Debug)]
pub(crate) struct EntryKey {
    pub(crate) text: Arc<str>,
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

/// `key` as an integer, when it is written as one plainly (no `+`, no
/// leading zero, no `-0`): an integer has one such spelling, so keys equal
/// in [`EntryKey`]'s order are the same text.
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
        match (self.integer, other.integer) {
            (Some(a), Some(b)) => a.cmp(&b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => self.text.cmp(&other.text),
        }
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
    }
}
