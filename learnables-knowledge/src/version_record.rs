//! [`VersionRecord`]: one version as back ends store it and readers see it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::LessonValue;

/// One version of a collection: the lesson that made it, who taught it and
/// when, and the entry it changed. A collection's history is the list of its
/// records, each naming the one before.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables_knowledge::Knowledge;
/// use learnables::{Lesson, LessonValue};
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
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}
