//! [`Version`]: one version as the knowledge keeps it in memory, shared by
//! every state that holds it. Its value is kept as compact JSON, written
//! once; the typed value and the full [`VersionRecord`] are made when a
//! reader first asks for them, and kept.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::LessonValue;
use crate::VersionRecord;
use crate::record_view::{DEEPEST_AS_TEXT, RecordView, ValueRef};

/// A value as its learnable's type, behind `dyn Any`.
pub(crate) type Typed = Arc<dyn Any + Send + Sync>;

/// One version of one entry. Immutable once made; the texts it shares with
/// other versions (its collection, entry and teacher) are reference counted.
pub(crate) struct Version {
    pub(crate) position: u64,
    pub(crate) collection: Arc<str>,
    pub(crate) definition_version: u64,
    pub(crate) version_id: Arc<str>,
    /// The id of the collection's version before this one.
    pub(crate) previous_version_id: Option<Arc<str>>,
    pub(crate) entry: Arc<str>,
    pub(crate) taught_by: Arc<str>,
    pub(crate) reason: Option<Box<str>>,
    pub(crate) describes: Box<str>,
    pub(crate) taught_at_ms: u64,
    /// Whether the version retracts its entry: from it on, the entry is
    /// absent.
    pub(crate) retracted: bool,
    /// The entry's version before this one.
    pub(crate) previous: Option<Arc<Version>>,
    /// The value as compact JSON ([`value_json`]).
    value_json: Box<str>,
    /// The value as its learnable's type, once read.
    typed: OnceLock<Typed>,
    /// The full record, once asked for; made at once for a value too deep
    /// to be read back from its text.
    record: OnceLock<Box<VersionRecord>>,
}

/// The texts a new [`Version`] shares with the knowledge's others.
pub(crate) struct Shared {
    pub(crate) collection: Arc<str>,
    pub(crate) entry: Arc<str>,
    pub(crate) taught_by: Arc<str>,
    pub(crate) previous_version_id: Option<Arc<str>>,
    pub(crate) previous: Option<Arc<Version>>,
}

impl Version {
    /// The version `record` makes, its value written as `value_json`
    /// ([`value_json`] of the record's value, or the compact text it was
    /// read as).
    pub(crate) fn new(
        record: &RecordView<'_>,
        value_json: Option<&str>,
        shared: Shared,
    ) -> Version {
        let version = Version {
            position: record.position,
            collection: shared.collection,
            definition_version: record.definition_version,
            version_id: Arc::from(&*record.version_id),
            previous_version_id: shared.previous_version_id,
            entry: shared.entry,
            taught_by: shared.taught_by,
            reason: record.reason.as_deref().map(Box::from),
            describes: Box::from(&*record.describes),
            taught_at_ms: record.taught_at_ms,
            retracted: record.retracted,
            previous: shared.previous,
            value_json: Box::from(value_json.unwrap_or("{}")),
            typed: OnceLock::new(),
            record: OnceLock::new(),
        };
        let too_deep = matches!(&record.value, ValueRef::Parsed(parsed)
            if parsed.entries().any(|(_, field)| nesting_exceeds(field, DEEPEST_AS_TEXT - 1)));
        if too_deep || value_json.is_none() {
            let _ = version.record.set(Box::new(record.to_record()));
        }
        version
    }

    /// The value as its learnable's type, once read.
    pub(crate) fn typed(&self) -> &OnceLock<Typed> {
        &self.typed
    }

    /// The value as compact JSON.
    pub(crate) fn value_json(&self) -> &str {
        &self.value_json
    }

    /// The entry's value from this version on.
    pub(crate) fn value(&self) -> LessonValue {
        if let Some(full) = self.record.get() {
            return full.value.clone();
        }
        // The text was written from a `LessonValue` no deeper than the
        // parser's limit: it parses back.
        serde_json::from_str(&self.value_json).unwrap_or_default()
    }

    /// Whether the entry's value from this version on is `value`, written
    /// as `value_json` ([`value_json`] of `value`): compared as compact
    /// JSON, so that a number is compared as it was written (0.0 and -0.0
    /// differ), never as parsed back.
    pub(crate) fn value_is(&self, value: &LessonValue, value_json: Option<&str>) -> bool {
        match self.record.get() {
            Some(full) => full.value == *value,
            None => value_json == Some(&*self.value_json),
        }
    }

    /// The full record, made once.
    pub(crate) fn record(&self) -> &VersionRecord {
        self.record.get_or_init(|| Box::new(self.to_record()))
    }

    /// A copy of the full record, made without keeping it (for reading many
    /// old versions once).
    pub(crate) fn to_record(&self) -> VersionRecord {
        if let Some(full) = self.record.get() {
            return VersionRecord::clone(full);
        }
        VersionRecord {
            position: self.position,
            collection: self.collection.to_string(),
            definition_version: self.definition_version,
            version_id: self.version_id.to_string(),
            previous_version_id: self.previous_version_id.as_deref().map(str::to_owned),
            entry: self.entry.to_string(),
            value: self.value(),
            taught_by: self.taught_by.to_string(),
            reason: self.reason.as_deref().map(str::to_owned),
            describes: self.describes.to_string(),
            taught_at_ms: self.taught_at_ms,
            retracted: self.retracted,
        }
    }

    /// The versions of the entry from this one back to its first, newest
    /// first.
    pub(crate) fn and_earlier(&self) -> impl Iterator<Item = &Version> {
        std::iter::successors(Some(self), |version| version.previous.as_deref())
    }
}

impl Drop for Version {
    /// Drops the entry's earlier versions one after the other: dropped
    /// recursively, an entry taught a million times would overflow the
    /// stack.
    fn drop(&mut self) {
        let mut earlier = self.previous.take();
        while let Some(version) = earlier {
            earlier = Arc::into_inner(version).and_then(|mut last| last.previous.take());
        }
    }
}

/// A value as a version keeps it and compares it: compact JSON (`None` if
/// it cannot be written, which a `LessonValue` always can).
pub(crate) fn value_json(value: &LessonValue) -> Option<String> {
    serde_json::to_string(value).ok()
}

/// Whether `value` nests more than `limit` arrays and objects.
fn nesting_exceeds(value: &Value, limit: usize) -> bool {
    match value {
        Value::Array(items) => {
            limit == 0 || items.iter().any(|item| nesting_exceeds(item, limit - 1))
        }
        Value::Object(fields) => {
            limit == 0
                || fields
                    .values()
                    .any(|field| nesting_exceeds(field, limit - 1))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(entry: &str, value: Value, reason: Option<&str>) -> VersionRecord {
        VersionRecord {
            position: 7,
            collection: "routing_rules".to_owned(),
            definition_version: 3,
            version_id: uuid::Uuid::now_v7().to_string(),
            previous_version_id: Some("before".to_owned()),
            entry: entry.to_owned(),
            value: LessonValue::try_from(value).unwrap(),
            taught_by: "alice@example.com".to_owned(),
            reason: reason.map(str::to_owned),
            describes: "Chapter 85 goes to the général desk".to_owned(),
            taught_at_ms: 1_700_000_000_000,
            retracted: false,
        }
    }

    fn shared(record: &VersionRecord, previous: Option<Arc<Version>>) -> Shared {
        Shared {
            collection: Arc::from(record.collection.as_str()),
            entry: Arc::from(record.entry.as_str()),
            taught_by: Arc::from(record.taught_by.as_str()),
            previous_version_id: record.previous_version_id.as_deref().map(Arc::from),
            previous,
        }
    }

    #[test]
    fn a_version_gives_back_the_record_it_was_made_from() {
        let mut deep = serde_json::json!("bottom");
        for _ in 0..DEEPEST_AS_TEXT + 5 {
            deep = serde_json::json!([deep]);
        }
        let records = [
            record(
                "85",
                serde_json::json!({"desk": "general", "note": null}),
                None,
            ),
            record("a long key, ü", serde_json::json!({"n": 1.5}), Some("")),
            record("", serde_json::json!({}), Some("because")),
            record("deep", serde_json::json!({ "deep": deep }), Some("deep")),
        ];
        for original in records {
            let json = value_json(&original.value);
            let version = Version::new(
                &RecordView::of(&original),
                json.as_deref(),
                shared(&original, None),
            );
            assert_eq!(version.value(), original.value);
            assert!(version.value_is(&original.value, json.as_deref()));
            let other = LessonValue::try_from(serde_json::json!({"n": 2})).unwrap();
            assert!(!version.value_is(&other, value_json(&other).as_deref()));
            assert_eq!(version.to_record(), original);
            assert_eq!(version.record(), &original);
        }
    }

    #[test]
    fn an_entry_taught_a_million_times_drops_without_overflowing_the_stack() {
        let original = record("85", serde_json::json!({}), None);
        let dropped = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || {
                let mut latest: Option<Arc<Version>> = None;
                for _ in 0..1_000_000 {
                    let previous = latest.take();
                    let version = Version::new(
                        &RecordView::of(&original),
                        Some("{}"),
                        shared(&original, previous),
                    );
                    latest = Some(Arc::new(version));
                }
                let count = latest
                    .as_deref()
                    .map_or(0, |latest| latest.and_earlier().count());
                drop(latest);
                count
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(dropped, 1_000_000);
    }
}
