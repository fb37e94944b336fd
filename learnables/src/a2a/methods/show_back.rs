//! What the show-back method answers: an entry as the agent learned it.
//!
//! The public spec names the operation but not its shape; this is our
//! reading: the entry in the learnable's own lessonFields form, each field's
//! `default` the learned value (the form that would teach it again, as the
//! learnable renders it, so that no client reads the opaque lesson value),
//! its `describes` phrasing, and the ids of the version that taught it.
//! An entry retracted is shown by its retraction (`retracted: true`), and
//! `history` in the params adds a page of the entry's history
//! (`history.rs`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::history::{HistoryPage, HistoryParams, history_page};
use super::refusals::{hidden_characters, shown};
use crate::LessonField;
use crate::a2a::LearnablesService;
use crate::a2a::json_rpc::{RpcError, codes, reasons};
use crate::knowledge::{Snapshot, VersionRecord};
use crate::shared::rfc3339;

/// The params of `rsaxb.learnables.ShowBack`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ShowBackParams {
    /// The collection.
    pub collection: String,
    /// The entry.
    pub entry: String,
    /// Show the entry as of this version rather than now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_id: Option<String>,
    /// Also return a page of the entry's history (see [`HistoryParams`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryParams>,
}

impl ShowBackParams {
    /// The params asking for `entry` of `collection` as it is now, with no
    /// history; [`ShowBackParams::as_of`] and
    /// [`ShowBackParams::with_history`] ask for more.
    ///
    /// ```
    /// use learnables::a2a::{HistoryParams, ShowBackParams};
    /// let params = ShowBackParams::new("routing_rules", "85")
    ///     .as_of("01J0000000000000000000000")
    ///     .with_history(HistoryParams::default().with_limit(5));
    /// assert_eq!(
    ///     serde_json::to_value(&params).unwrap(),
    ///     serde_json::json!({"collection": "routing_rules", "entry": "85",
    ///         "versionId": "01J0000000000000000000000", "history": {"limit": 5}})
    /// );
    /// ```
    pub fn new(collection: impl Into<String>, entry: impl Into<String>) -> ShowBackParams {
        ShowBackParams {
            collection: collection.into(),
            entry: entry.into(),
            version_id: None,
            history: None,
        }
    }

    /// Asks for the entry as of the version `version_id` rather than now.
    pub fn as_of(mut self, version_id: impl Into<String>) -> ShowBackParams {
        self.version_id = Some(version_id.into());
        self
    }

    /// Asks for a page of the entry's history too.
    pub fn with_history(mut self, history: HistoryParams) -> ShowBackParams {
        self.history = Some(history);
        self
    }
}

/// An entry as learned.
///
/// It is `#[non_exhaustive]`, so that a key the method's answer gains is
/// not a breaking change: the agent's service makes it, a client reads it
/// from the answer's JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ShowBack {
    /// The collection.
    pub collection: String,
    /// The entry.
    pub entry: String,
    /// The learnable's phrasing of what the entry now means.
    pub describes: String,
    /// The fields as a teach form shows them, each field's `default` the
    /// learned value (none for a field the entry has no value for).
    pub lesson_fields: Vec<LessonField>,
    /// The collection version that taught the entry its value.
    pub definition_version: u64,
    /// That version's id.
    pub version_id: String,
    /// The entry's own number for that version: 1 for its first lesson,
    /// counting only the entry's versions (retractions included), where
    /// `definitionVersion` counts the whole collection's.
    /// 0 from an agent that does not say.
    #[serde(default)]
    pub entry_version: u64,
    /// The id of the version before it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_version_id: Option<String>,
    /// The collection's latest version in the knowledge shown.
    pub collection_version: u64,
    /// Who taught it.
    pub taught_by: String,
    /// Why, if they said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When, as an RFC 3339 UTC timestamp.
    pub taught_at: String,
    /// Whether the version shown retracted the entry: the entry is absent,
    /// `lessonFields` have no values, and `taughtBy`, `reason` and
    /// `taughtAt` say who retracted it, why and when.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retracted: bool,
    /// The page of the entry's history the params asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryPage>,
    /// The entry's lessons waiting for review, oldest first (shown with
    /// the entry as it is now, never as of a version).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<crate::a2a::OpenProposal>,
    /// The teachers whose approvals made the version shown, for a
    /// reviewed learnable (`taughtBy` proposed it); empty for a version
    /// learned at once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approved_by: Vec<String>,
    /// Ours: the entry has no version yet, only lessons waiting for review
    /// (`proposals`): the fields have no values, the version keys are
    /// empty (`definitionVersion` 0, `versionId` ""), and `describes` says
    /// how many wait.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unlearned: bool,
}

impl ShowBack {
    /// The show-back of the record that gave an entry its value, with the
    /// fields as its learnable shows them.
    pub(in crate::a2a) fn of(
        lesson_fields: Vec<LessonField>,
        snapshot: &Snapshot,
        record: &VersionRecord,
    ) -> ShowBack {
        ShowBack {
            collection: record.collection.clone(),
            entry: record.entry.clone(),
            describes: crate::untrusted::escaped(&record.describes).into_owned(),
            lesson_fields,
            definition_version: record.definition_version,
            version_id: record.version_id.clone(),
            entry_version: snapshot.entry_version_count(&record.collection, &record.entry),
            previous_version_id: record.previous_version_id.clone(),
            collection_version: snapshot
                .version(&record.collection)
                .map_or(record.definition_version, |version| {
                    version.definition_version
                }),
            taught_by: record.taught_by.clone(),
            reason: record.reason.clone(),
            taught_at: rfc3339(record.taught_at_ms),
            retracted: record.retracted,
            history: None,
            proposals: Vec::new(),
            approved_by: Vec::new(),
            unlearned: false,
        }
    }
}

impl LearnablesService {
    /// Show-back's answer to `params`: the entry as the knowledge holds
    /// it (now or as of a version), with a page of its history if asked.
    pub(in crate::a2a) fn show_back(&self, params: &ShowBackParams) -> Result<Value, RpcError> {
        hidden_characters(&params.collection, &params.entry)?;
        let descriptor = self.descriptor(&params.collection)?;
        let snapshot = match &params.version_id {
            Some(version_id) => self.knowledge().pin_as_of(version_id).map_err(|_| {
                let message = format!("no version has the id `{}`", shown(version_id));
                RpcError::new(codes::NOT_FOUND, message.clone())
                    .because(reasons::VERSION_NOT_FOUND)
                    .at_field("versionId", message)
            })?,
            None => self.knowledge().pin(),
        };
        let retraction = snapshot.retraction(&params.collection, &params.entry);
        let Some(record) = snapshot
            .entry_record(&params.collection, &params.entry)
            .or(retraction.as_ref())
        else {
            // An entry no lesson could teach is not "not yet" taught: it
            // is refused in the learnable's words, before anyone fills a
            // form for it.
            if let Some(refusal) = self
                .knowledge()
                .entry_refusal(&params.collection, &params.entry)
            {
                let words = crate::untrusted::escaped(&refusal.to_string()).into_owned();
                return Err(RpcError::new(codes::INVALID_PARAMS, words.clone())
                    .because(reasons::LESSON_INVALID)
                    .at_field("entry", words));
            }
            let message = format!(
                "`{}` has no {} `{}` yet",
                params.collection,
                descriptor.entry,
                shown(&params.entry)
            );
            // Beside the field, in a teacher's words.
            let in_words = format!(
                "the agent has not been taught the {} \"{}\" yet",
                descriptor.entry,
                shown(&params.entry)
            );
            // An entry whose first lesson waits for review is not unknown
            // to the teachers who must decide it: shown by its proposals.
            if params.version_id.is_none() {
                let proposals = super::review::open_of_entry(
                    self.knowledge(),
                    &params.collection,
                    &params.entry,
                )?;
                if !proposals.is_empty() {
                    return serde_json::to_value(unlearned(
                        &params.collection,
                        &params.entry,
                        descriptor,
                        &snapshot,
                        proposals,
                    ))
                    .map_err(|error| RpcError::new(codes::INTERNAL_ERROR, error.to_string()));
                }
            }
            return Err(RpcError::new(codes::NOT_FOUND, message)
                .because(reasons::ENTRY_NOT_FOUND)
                .at_field("entry", in_words));
        };
        // The fields and the sentence as the type reads the value now, so
        // that they agree after an alias or a default changed how it reads.
        let (fields, describes) = match self
            .knowledge()
            .shown_as_learned(&params.collection, &params.entry, &record.value)
            .filter(|_| !record.retracted)
        {
            Some(Ok((fields, describes))) => (fields, Some(describes)),
            Some(Err(error)) => {
                return Err(RpcError::new(
                    codes::INTERNAL_ERROR,
                    format!("the stored entry no longer reads as its learnable: {error}"),
                ));
            }
            // A retraction has no values to show.
            None if record.retracted => (without_values(descriptor), None),
            None => (descriptor.lesson_fields.clone(), None),
        };
        let mut shown_back = ShowBack::of(fields, &snapshot, record);
        if let Some(describes) = describes {
            shown_back.describes = describes;
        }
        if let Some(history) = &params.history {
            shown_back.history = Some(history_page(
                self.knowledge(),
                &snapshot,
                &params.collection,
                &params.entry,
                history,
                shown,
            )?);
        }
        if params.version_id.is_none() {
            shown_back.proposals =
                super::review::open_of_entry(self.knowledge(), &params.collection, &params.entry)?;
        }
        if let Ok(Some(proposal)) = self.knowledge().version_proposal(&record.version_id) {
            shown_back.approved_by = proposal.approvals.into_iter().map(|a| a.by).collect();
        }
        serde_json::to_value(shown_back)
            .map_err(|error| RpcError::new(codes::INTERNAL_ERROR, error.to_string()))
    }
}

/// The show-back of an entry with no version whose lessons wait for
/// review: its fields without values, and the proposals.
fn unlearned(
    collection: &str,
    entry: &str,
    descriptor: &crate::LearnableDescriptor,
    snapshot: &Snapshot,
    proposals: Vec<crate::a2a::OpenProposal>,
) -> ShowBack {
    let waiting = proposals.len();
    let (lessons, wait) = if waiting == 1 {
        ("lesson", "waits")
    } else {
        ("lessons", "wait")
    };
    ShowBack {
        collection: collection.to_owned(),
        entry: entry.to_owned(),
        describes: format!(
            "Nothing is learned of the {} {} yet: {waiting} {lessons} for it {wait} for review",
            descriptor.entry,
            shown(entry)
        ),
        lesson_fields: without_values(descriptor),
        definition_version: 0,
        version_id: String::new(),
        entry_version: 0,
        previous_version_id: None,
        collection_version: snapshot
            .version(collection)
            .map_or(0, |version| version.definition_version),
        taught_by: String::new(),
        reason: None,
        taught_at: String::new(),
        retracted: false,
        history: None,
        proposals,
        approved_by: Vec::new(),
        unlearned: true,
    }
}

/// The learnable's fields, none with a value: an entry that has none.
fn without_values(descriptor: &crate::LearnableDescriptor) -> Vec<LessonField> {
    descriptor
        .lesson_fields
        .iter()
        .map(|field| {
            let mut field = field.clone();
            field.default = None;
            field
        })
        .collect()
}

/// Reads the params of a show-back, naming the field at fault. The
/// strings are moved out of the params, not copied.
pub(super) fn read(params: Value) -> Result<ShowBackParams, RpcError> {
    const SHAPE: &str =
        "the show-back params are `{collection, entry, versionId?, history?: {limit?, from?}}`";
    let Value::Object(mut object) = params else {
        return Err(RpcError::new(
            codes::INVALID_PARAMS,
            format!("{SHAPE}, an object"),
        ));
    };
    for (field, required) in [("collection", true), ("entry", true), ("versionId", false)] {
        match object.get(field) {
            Some(Value::String(_)) => {}
            None | Some(Value::Null) if !required => {}
            _ => {
                return Err(RpcError::invalid_params(
                    field,
                    format!("{SHAPE}: `{field}` must be a string"),
                ));
            }
        }
    }
    match object.get("history") {
        None | Some(Value::Null | Value::Object(_)) => {}
        Some(_) => {
            return Err(RpcError::invalid_params(
                "history",
                format!("{SHAPE}: `history` must be an object"),
            ));
        }
    }
    if let Some(unknown) = object
        .keys()
        .find(|key| !["collection", "entry", "versionId", "history"].contains(&key.as_str()))
    {
        return Err(RpcError::invalid_params(
            &shown(unknown),
            format!("{SHAPE}: `{}` is not one of them", shown(unknown)),
        ));
    }
    // Each member's kind is checked above: only `history`'s own members
    // are left to its reader.
    let mut text = |field: &str| match object.remove(field) {
        Some(Value::String(text)) => Some(text),
        _ => None,
    };
    let (collection, entry) = (text("collection"), text("entry"));
    let version_id = text("versionId");
    let history = match object.remove("history") {
        Some(history @ Value::Object(_)) => {
            Some(serde_json::from_value(history).map_err(|error| {
                RpcError::new(codes::INVALID_PARAMS, format!("{SHAPE}: {error}"))
            })?)
        }
        _ => None,
    };
    Ok(ShowBackParams {
        collection: collection.unwrap_or_default(),
        entry: entry.unwrap_or_default(),
        version_id,
        history,
    })
}
