//! What the agent says after a lesson: the spec's `LessonResult`.

use serde::{Deserialize, Serialize};

/// What the agent says after a lesson: the spec's `LessonResult`.
///
/// `learned: false` is a normal outcome (the entry already held that value),
/// not an error; its version is then the one that gave the entry that
/// value, which may be older than the collection's latest.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::LessonResult;
/// let result = LessonResult::new(true, "Chapter 85 declarations now go to the general desk", 1)
///     .with_version_id("v1");
/// let json = serde_json::to_value(&result).unwrap();
/// assert_eq!(json["definitionVersion"], 1);
/// assert!(json.get("previousVersionId").is_none());
/// ```
///
/// It is `#[non_exhaustive]`, so that a field the spec adds is not a
/// breaking change: build one with [`LessonResult::new`] and the `with_`
/// methods (its fields stay public to read and to set).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
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
    /// The proposal the lesson made, waiting for review (our extension:
    /// `proposalId`, only for a learnable declared with review), or the
    /// proposal an approval decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal_id: Option<String>,
}

impl LessonResult {
    /// A result that `learned` (or not), phrased `describes`, at the
    /// collection's `definition_version`, without version ids.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::LessonResult;
    /// let result = LessonResult::new(false, "Chapter 85 already goes to the general desk", 3);
    /// assert!(!result.learned);
    /// assert_eq!(result.definition_version, 3);
    /// assert_eq!(result.version_id, None);
    /// ```
    pub fn new(
        learned: bool,
        describes: impl Into<String>,
        definition_version: u64,
    ) -> LessonResult {
        LessonResult {
            learned,
            describes: describes.into(),
            definition_version,
            version_id: None,
            previous_version_id: None,
            proposal_id: None,
        }
    }

    /// The same, with the id of its version.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// let result = learnables::LessonResult::new(true, "learned", 1).with_version_id("v1");
    /// assert_eq!(result.version_id.as_deref(), Some("v1"));
    /// ```
    pub fn with_version_id(mut self, version_id: impl Into<String>) -> LessonResult {
        self.version_id = Some(version_id.into());
        self
    }

    /// The same, with the id of the version it replaced.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// let result = learnables::LessonResult::new(true, "learned", 2)
    ///     .with_version_id("v2")
    ///     .with_previous_version_id("v1");
    /// assert_eq!(result.previous_version_id.as_deref(), Some("v1"));
    /// ```
    pub fn with_previous_version_id(mut self, previous: impl Into<String>) -> LessonResult {
        self.previous_version_id = Some(previous.into());
        self
    }

    /// The same, naming the proposal it made or decided.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// let result = learnables::LessonResult::new(false, "Waiting for review", 3)
    ///     .with_proposal_id("p1");
    /// let json = serde_json::to_value(&result).unwrap();
    /// assert_eq!(json["proposalId"], "p1");
    /// ```
    pub fn with_proposal_id(mut self, proposal_id: impl Into<String>) -> LessonResult {
        self.proposal_id = Some(proposal_id.into());
        self
    }
}
