//! The teachable proposal on a question: the spec's `TeachBlock`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::LessonField;

/// A teachable proposal attached to a question: the spec's `TeachBlock`,
/// carried in the question message's metadata under the extension URI, at
/// `teach`.
///
/// ```
/// use learnables::TeachBlock;
/// let block = TeachBlock::new("routing_rules", ["85"]);
/// assert_eq!(
///     serde_json::to_value(&block).unwrap(),
///     serde_json::json!({"collection": "routing_rules", "entries": ["85"]})
/// );
/// ```
///
/// It is `#[non_exhaustive]`, so that a field the spec adds is not a
/// breaking change: build one with [`TeachBlock::new`], then set its
/// optional fields; its fields stay public to read and to set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TeachBlock {
    /// The collection a lesson would teach.
    pub collection: String,
    /// The entries the question is about.
    pub entries: Vec<String>,
    /// Prefill for the lesson value; its keys are lesson field names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested: Option<Map<String, Value>>,
    /// Says where the suggestion came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion_label: Option<String>,
    /// The fields to ask for, when they differ from the descriptor's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson_fields: Option<Vec<LessonField>>,
}

impl TeachBlock {
    /// A block for `collection` about `entries`, with nothing suggested.
    pub fn new<I, S>(collection: impl Into<String>, entries: I) -> TeachBlock
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        TeachBlock {
            collection: collection.into(),
            entries: entries.into_iter().map(Into::into).collect(),
            suggested: None,
            suggestion_label: None,
            lesson_fields: None,
        }
    }
}
