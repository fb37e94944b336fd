//! [`VersionRecord`]: one version as back ends store it and readers see it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::LessonValue;

/// One version of a collection: the lesson that made it, who taught it and
/// when, and the entry it changed. A collection's history is the list of its
/// records, each naming the one before.
///
/// ```
/// use learnables::{Knowledge, Lesson, LessonValue};
/// # use learnables::Learnable;
/// # #[derive(Learnable, Clone)]
/// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
/// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{chapter}")]
/// # struct RoutingRule { #[learnable(label = "HS chapter")] chapter: u8 }
/// let knowledge = Knowledge::in_memory();
/// knowledge.register::<RoutingRule>().unwrap();
/// let value = LessonValue::try_from(serde_json::json!({"chapter": "85"})).unwrap();
/// knowledge
///     .teach(&Lesson::new("routing_rules", "85", value, "alice@example.com").with_reason("new"))
///     .unwrap();
/// let history = knowledge.history("routing_rules");
/// assert_eq!(history.len(), 1);
/// assert_eq!(history[0].taught_by, "alice@example.com");
/// assert_eq!(history[0].reason.as_deref(), Some("new"));
/// assert_eq!(history[0].previous_version_id, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionRecord {
    /// Where the version stands among all versions of all collections
    /// (1 for the first version the knowledge ever had).
    pub position: u64,
    /// The collection.
    pub collection: String,
    /// The collection's version number (`definitionVersion`), 1 for its first.
    pub definition_version: u64,
    /// The version's unique, stable id (`versionId`).
    pub version_id: String,
    /// The id of the version this one replaced; `None` for the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_version_id: Option<String>,
    /// The entry the lesson changed.
    pub entry: String,
    /// The entry's value from this version on.
    pub value: LessonValue,
    /// The human who taught it.
    pub taught_by: String,
    /// Why, in the teacher's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The learnable's phrasing of what was learned.
    pub describes: String,
    /// When the lesson was absorbed, in milliseconds since the Unix epoch.
    pub taught_at_ms: u64,
    /// Whether this version retracts the entry: from it on the entry is
    /// absent (its `value` is empty) until a later lesson teaches it again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retracted: bool,
}

impl VersionRecord {
    /// When the lesson was absorbed.
    pub fn taught_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.taught_at_ms)
    }

    /// The record's fields, borrowed.
    pub(crate) fn view(&self) -> RecordView<'_> {
        RecordView {
            position: self.position,
            collection: &self.collection,
            definition_version: self.definition_version,
            version_id: &self.version_id,
            previous_version_id: self.previous_version_id.as_deref(),
            entry: &self.entry,
            value: ValueRef::Parsed(&self.value),
            taught_by: &self.taught_by,
            reason: self.reason.as_deref(),
            describes: &self.describes,
            taught_at_ms: self.taught_at_ms,
            retracted: self.retracted,
        }
    }
}

/// A version record's fields, borrowed: what the knowledge's in-memory
/// state keeps of a version, made from a lesson without copying it.
#[derive(Clone, Copy)]
pub(crate) struct RecordView<'a> {
    pub(crate) position: u64,
    pub(crate) collection: &'a str,
    pub(crate) definition_version: u64,
    pub(crate) version_id: &'a str,
    pub(crate) previous_version_id: Option<&'a str>,
    pub(crate) entry: &'a str,
    pub(crate) value: ValueRef<'a>,
    pub(crate) taught_by: &'a str,
    pub(crate) reason: Option<&'a str>,
    pub(crate) describes: &'a str,
    pub(crate) taught_at_ms: u64,
    pub(crate) retracted: bool,
}

/// A record's value, borrowed: parsed, or as the compact JSON a version
/// keeps (`value_json` of it), which a store's record is read back as.
#[derive(Clone, Copy)]
pub(crate) enum ValueRef<'a> {
    Parsed(&'a LessonValue),
    /// An object no deeper than a version keeps as text (read back from
    /// the embedded store's log).
    #[cfg_attr(
        not(feature = "embedded"),
        expect(dead_code, reason = "only the log reads it")
    )]
    Compact(&'a str),
}

impl ValueRef<'_> {
    /// The value, parsed.
    pub(crate) fn to_value(self) -> LessonValue {
        match self {
            ValueRef::Parsed(value) => value.clone(),
            // Written from a value that parsed, within the parser's limit.
            ValueRef::Compact(json) => serde_json::from_str(json).unwrap_or_default(),
        }
    }
}

impl RecordView<'_> {
    /// The record, copied.
    pub(crate) fn to_record(self) -> VersionRecord {
        VersionRecord {
            position: self.position,
            collection: self.collection.to_owned(),
            definition_version: self.definition_version,
            version_id: self.version_id.to_owned(),
            previous_version_id: self.previous_version_id.map(str::to_owned),
            entry: self.entry.to_owned(),
            value: self.value.to_value(),
            taught_by: self.taught_by.to_owned(),
            reason: self.reason.map(str::to_owned),
            describes: self.describes.to_owned(),
            taught_at_ms: self.taught_at_ms,
            retracted: self.retracted,
        }
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}
