//! An entry's history in a show-back: asked for with `history` in the
//! params (`{limit?, from?}`), answered as a page of the entry's versions,
//! newest first, each with what it changed from the one before, and where
//! the next page starts.
//!
//! Our reading (the spec has no history): `history.limit` is how many
//! versions a page holds (1 to [`MAX_PAGE`], [`DEFAULT_PAGE`] when
//! absent); `history.from` is the id of the version the page starts with,
//! the `next` of the page before; a page without `next` is the last.

use serde::{Deserialize, Serialize};

use super::json_rpc::{RpcError, codes};
use crate::LessonField;
use crate::knowledge::Knowledge;
use crate::knowledge::{FieldChange, Snapshot, VersionRecord, field_changes};
use crate::shared::rfc3339;

/// How many versions a page holds when `limit` is not given.
pub const DEFAULT_PAGE: u32 = 20;
/// The most versions one page holds.
pub const MAX_PAGE: u32 = 100;

/// What a show-back's params ask of an entry's history.
///
/// ```
/// use learnables::a2a::HistoryParams;
/// let params: HistoryParams = serde_json::from_value(serde_json::json!({"limit": 5})).unwrap();
/// assert_eq!(params.limit, Some(5));
/// assert_eq!(params.from, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct HistoryParams {
    /// How many versions the page holds (1 to 100; 20 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The id of the version the page starts with: the previous page's
    /// `next`. The entry's latest version when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

impl HistoryParams {
    /// Asks for a page of `limit` versions (1 to 100).
    ///
    /// ```
    /// use learnables::a2a::HistoryParams;
    /// let params = HistoryParams::default().with_limit(5).starting_at("01J0000000000000000000000");
    /// assert_eq!(params.limit, Some(5));
    /// assert_eq!(params.from.as_deref(), Some("01J0000000000000000000000"));
    /// ```
    pub fn with_limit(mut self, limit: u32) -> HistoryParams {
        self.limit = Some(limit);
        self
    }

    /// Asks for the page that starts with the version `version_id` (the
    /// previous page's `next`).
    pub fn starting_at(mut self, version_id: impl Into<String>) -> HistoryParams {
        self.from = Some(version_id.into());
        self
    }
}

/// A page of an entry's history, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HistoryPage {
    /// The versions, newest first.
    pub versions: Vec<HistoryVersion>,
    /// Where the next page starts (its `from`); absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// One version of an entry in a history page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HistoryVersion {
    /// The collection version it made.
    pub definition_version: u64,
    /// Its id.
    pub version_id: String,
    /// The entry's own number for it: 1 for the entry's first lesson.
    /// 0 from an agent that does not say.
    #[serde(default)]
    pub entry_version: u64,
    /// Who taught it.
    pub taught_by: String,
    /// Why, if they said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When, as an RFC 3339 UTC timestamp.
    pub taught_at: String,
    /// The learnable's phrasing of what it taught.
    pub describes: String,
    /// Whether it retracted the entry.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retracted: bool,
    /// The fields as a teach form shows them, each field's `default` the
    /// value this version taught; absent for a retraction, or a value that
    /// no longer reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson_fields: Option<Vec<LessonField>>,
    /// What it changed from the entry's version before, field by field.
    pub changes: Vec<FieldChange>,
}

/// The page of the history of `entry` of `collection` in `snapshot` that
/// `params` asks for, the fields shown by the knowledge's learnable.
pub(super) fn history_page(
    knowledge: &Knowledge,
    snapshot: &Snapshot,
    collection: &str,
    entry: &str,
    params: &HistoryParams,
    shown: impl Fn(&str) -> String,
) -> Result<HistoryPage, RpcError> {
    let limit = params.limit.unwrap_or(DEFAULT_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(RpcError::invalid_params(
            "history.limit",
            format!("a history page holds 1 to {MAX_PAGE} versions, not {limit}"),
        ));
    }
    let mut records = snapshot.entry_records(collection, entry).peekable();
    let mut newest_number = snapshot.entry_version_count(collection, entry);
    if let Some(from) = &params.from {
        while records
            .next_if(|record| record.version_id != *from)
            .is_some()
        {
            newest_number -= 1;
        }
        if records.peek().is_none() {
            return Err(RpcError::new(
                codes::INVALID_PARAMS,
                format!("the entry has no version `{}` to start from", shown(from)),
            )
            .at_field("history.from", "not a version of this entry"));
        }
    }
    // One more than the page: the last one's changes are from it.
    let page: Vec<VersionRecord> = records.take(limit as usize + 1).collect();
    let fields: Vec<Option<Vec<LessonField>>> = page
        .iter()
        .map(|record| fields_of(knowledge, record))
        .collect();
    let shown_count = page.len().min(limit as usize);
    let versions = (0..shown_count)
        .map(|at| {
            let record = &page[at];
            let before = fields.get(at + 1).cloned().flatten();
            HistoryVersion {
                definition_version: record.definition_version,
                version_id: record.version_id.clone(),
                entry_version: newest_number - at as u64,
                taught_by: record.taught_by.clone(),
                reason: record.reason.clone(),
                taught_at: rfc3339(record.taught_at_ms),
                describes: crate::untrusted::escaped(&record.describes).into_owned(),
                retracted: record.retracted,
                changes: field_changes(before.as_deref(), fields[at].as_deref()),
                lesson_fields: fields[at].clone(),
            }
        })
        .collect();
    Ok(HistoryPage {
        versions,
        next: page
            .get(limit as usize)
            .map(|record| record.version_id.clone()),
    })
}

/// A version's fields as its learnable shows them: `None` for a
/// retraction or a value that no longer reads.
fn fields_of(knowledge: &Knowledge, record: &VersionRecord) -> Option<Vec<LessonField>> {
    if record.retracted {
        return None;
    }
    knowledge
        .lesson_fields_as_learned(&record.collection, &record.value)?
        .ok()
}
