//! What the agent says after a lesson: the spec's `LessonResult`.

use serde::{Deserialize, Serialize};

/// What the agent says after a lesson: the spec's `LessonResult`.
///
/// `learned: false` is a normal outcome (the entry already held that value),
/// not an error; its version is then the one that gave the entry that
/// value, which may be older than the collection's latest.
///
/// ```
/// use learnables::LessonResult;
/// let result = LessonResult {
///     learned: true,
///     describes: "Chapter 85 declarations now go to the general desk".into(),
///     definition_version: 1,
///     version_id: Some("v1".into()),
///     previous_version_id: None,
/// };
/// let json = serde_json::to_value(&result).unwrap();
/// assert_eq!(json["definitionVersion"], 1);
/// assert!(json.get("previousVersionId").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LessonResult {
    /// Whether anything changed.
    pub learned: bool,
    /// What was learned, phrased by the learnable.
    pub describes: String,
    /// The collection's version number after the lesson (1 for the first).
    pub definition_version: u64,
    /// The unique, stable id of that version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_id: Option<String>,
    /// The id of the version it replaced; absent for the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_version_id: Option<String>,
}
