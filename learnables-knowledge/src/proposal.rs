//! Proposals: lessons of a learnable declared with review, kept until
//! enough teachers other than their author approve them ([`Proposal`]),
//! and the records a back end keeps of them ([`ReviewRecord`]): the
//! proposal itself, then each approval or rejection, numbered per
//! proposal so that two reviewers never both take the same step.
//!
//! A proposal's status is never stored: it is read from its records and
//! the knowledge. The version its last approval makes names it (the
//! approval records that version's id before the version is made), so a
//! proposal is learned exactly when that version exists, and a crash
//! between the two leaves an approved proposal that the next approval
//! call finishes.

use serde::{Deserialize, Serialize};

use super::state::State;
use crate::LessonValue;

/// A lesson waiting for review, or one decided: what it would teach, who
/// proposed it and why, the entry's version it was based on, and who has
/// approved it so far.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables_knowledge::{Knowledge};
/// use learnables::{Decision, Learnable, Lesson, LessonValue, Review};
/// use learnables_knowledge::ProposalStatus;
/// # #[derive(Learnable, Clone, Debug, PartialEq)]
/// # #[learnable(collection = "clearance_limits", entry = "clearance limit",
/// #     teaches = "The highest value cleared without a second look",
/// #     how = "A table keyed on the country", decided_by = "rules",
/// #     describes = "{entry} clears up to {euros} euros", review)]
/// # struct ClearanceLimit { #[learnable(label = "Euros")] euros: u32 }
/// let knowledge = Knowledge::in_memory();
/// knowledge.register::<ClearanceLimit>()?;
/// let value = LessonValue::try_from(serde_json::json!({"euros": 1000}))?;
/// let result = knowledge.teach(&Lesson::new("clearance_limits", "DE", value, "alice@example.com"))?;
/// assert!(!result.learned);
/// assert_eq!(knowledge.pin().get::<ClearanceLimit>("DE"), None);     // nothing a task reads changed
///
/// let proposals = knowledge.proposals("clearance_limits", "DE")?;
/// let proposal = &proposals[0];
/// assert_eq!(proposal.proposed_by, "alice@example.com");
/// assert_eq!((proposal.approvals.len(), proposal.approvals_needed), (0, 1));
/// assert_eq!(proposal.status, ProposalStatus::Open);
///
/// let approved = knowledge.review(&Review {
///     collection: "clearance_limits".into(),
///     entry: "DE".into(),
///     proposal_id: proposal.proposal_id.clone(),
///     decision: Decision::Approve,
///     reviewed_by: "bob@example.com".into(),
///     reason: Some("as the ministry set it".into()),
/// })?;
/// assert!(approved.learned);
/// assert_eq!(knowledge.pin().get::<ClearanceLimit>("DE").unwrap().euros, 1000);
/// let history = knowledge.history("clearance_limits");
/// assert_eq!(history[0].taught_by, "alice@example.com");
/// let decided = knowledge.version_proposal(&history[0].version_id)?.unwrap();
/// assert_eq!(decided.approvals[0].by, "bob@example.com");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Proposal {
    /// The proposal's unique, stable id (`proposalId`).
    pub proposal_id: String,
    /// The collection.
    pub collection: String,
    /// The entry it would change.
    pub entry: String,
    /// The value it would teach, as its learnable wrote it back (empty for
    /// a retraction).
    pub value: LessonValue,
    /// Whether it would retract the entry.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retract: bool,
    /// What it would teach, phrased by the learnable.
    pub describes: String,
    /// The teacher who proposed it: the new version's `taughtBy`.
    pub proposed_by: String,
    /// Why, in the author's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When it was proposed, in milliseconds since the Unix epoch.
    pub proposed_at_ms: u64,
    /// The id of the entry's version when it was proposed (`None`: the
    /// entry had none). Approved only while the entry is still there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub based_on: Option<String>,
    /// The collection's version number of `based_on`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub based_on_version: Option<u64>,
    /// How many approvals it needs, as its learnable asked when it was
    /// proposed.
    pub approvals_needed: u32,
    /// The approvals so far, oldest first.
    pub approvals: Vec<Approval>,
    /// Open, learned, rejected, or stale.
    pub status: ProposalStatus,
}

/// One teacher's approval of a proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Approval {
    /// The approving teacher.
    pub by: String,
    /// Why, in their words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: u64,
}

/// Where a proposal stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "status")]
#[non_exhaustive]
pub enum ProposalStatus {
    /// Waiting for approvals.
    Open,
    /// Approved: its value is the entry's version `version_id`.
    #[serde(rename_all = "camelCase")]
    Learned {
        /// The version its last approval made.
        version_id: String,
    },
    /// Approved by every teacher needed, its version `version_id` not
    /// made yet: being made, or cut short by a crash (the next approval
    /// call makes it). It can no longer be rejected.
    #[serde(rename_all = "camelCase")]
    Approved {
        /// The version its last approval makes.
        version_id: String,
    },
    /// Rejected: nothing was learned.
    #[serde(rename_all = "camelCase")]
    Rejected {
        /// The reviewer who rejected it.
        by: String,
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// When, in milliseconds since the Unix epoch.
        at_ms: u64,
    },
    /// The entry changed since it was proposed: nobody may approve what
    /// they were not shown. Closed; nothing was learned.
    #[serde(rename_all = "camelCase")]
    Stale {
        /// The entry's version now.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        now: Option<String>,
    },
}

/// One record of a proposal as a back end keeps it: the proposal, an
/// approval or a rejection. A proposal's records are numbered from 0 (the
/// proposal itself) with no gap; a back end refuses a record whose number
/// the proposal has already ([`Storage::append_review`](super::Storage::append_review)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReviewRecord {
    /// The proposal.
    pub proposal_id: String,
    /// The record's number among the proposal's (0 for the proposal).
    pub seq: u32,
    /// The proposal's collection.
    pub collection: String,
    /// The proposal's entry.
    pub entry: String,
    /// The teacher: the author, an approver or a rejecter.
    pub teacher: String,
    /// Why, in their words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// What the record says.
    pub event: ReviewEvent,
}

/// What a [`ReviewRecord`] says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
#[non_exhaustive]
pub enum ReviewEvent {
    /// The lesson, proposed.
    #[serde(rename_all = "camelCase")]
    Proposed {
        /// The value it would teach.
        value: LessonValue,
        /// Whether it would retract the entry.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        retract: bool,
        /// What it would teach, in words.
        describes: String,
        /// The entry's version it is based on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        based_on: Option<String>,
        /// That version's number.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        based_on_version: Option<u64>,
        /// How many approvals it needs.
        approvals_needed: u32,
    },
    /// An approval; the last one needed names the version it makes.
    #[serde(rename_all = "camelCase")]
    Approved {
        /// The id of the version the approval makes, for the last one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        makes_version: Option<String>,
    },
    /// A rejection: the proposal is closed.
    Rejected,
}

impl ReviewRecord {
    /// A new record of `proposal` at its next number.
    pub(crate) fn next(
        proposal: &Proposal,
        seq: u32,
        teacher: &str,
        reason: Option<&str>,
        event: ReviewEvent,
    ) -> ReviewRecord {
        ReviewRecord {
            proposal_id: proposal.proposal_id.clone(),
            seq,
            collection: proposal.collection.clone(),
            entry: proposal.entry.clone(),
            teacher: teacher.to_owned(),
            reason: reason.map(str::to_owned),
            at_ms: super::version_record::now_ms(),
            event,
        }
    }
}

/// A proposal read from its records: the proposal, how many records it
/// has (the next one's number), and the version its last approval makes,
/// if one was given.
pub(crate) struct Folded {
    pub(crate) proposal: Proposal,
    pub(crate) records: u32,
    pub(crate) makes_version: Option<String>,
    rejected: Option<(String, Option<String>, u64)>,
}

/// Every proposal `records` hold, in the order they were proposed; records
/// of a proposal whose first record is missing are skipped.
pub(crate) fn fold(records: &[ReviewRecord]) -> Vec<Folded> {
    let mut folded: Vec<Folded> = Vec::new();
    let mut index = std::collections::HashMap::<&str, usize>::new();
    for record in records {
        if let ReviewEvent::Proposed {
            value,
            retract,
            describes,
            based_on,
            based_on_version,
            approvals_needed,
        } = &record.event
        {
            if record.seq != 0 || index.contains_key(record.proposal_id.as_str()) {
                continue;
            }
            index.insert(&record.proposal_id, folded.len());
            folded.push(Folded {
                proposal: Proposal {
                    proposal_id: record.proposal_id.clone(),
                    collection: record.collection.clone(),
                    entry: record.entry.clone(),
                    value: value.clone(),
                    retract: *retract,
                    describes: describes.clone(),
                    proposed_by: record.teacher.clone(),
                    reason: record.reason.clone(),
                    proposed_at_ms: record.at_ms,
                    based_on: based_on.clone(),
                    based_on_version: *based_on_version,
                    approvals_needed: *approvals_needed,
                    approvals: Vec::new(),
                    status: ProposalStatus::Open,
                },
                records: 1,
                makes_version: None,
                rejected: None,
            });
            continue;
        }
        let Some(at) = index.get(record.proposal_id.as_str()) else {
            continue;
        };
        let one = &mut folded[*at];
        // Records are kept in their numbers' order; one out of it is not
        // the proposal's.
        if record.seq != one.records {
            continue;
        }
        one.records += 1;
        match &record.event {
            ReviewEvent::Approved { makes_version } => {
                one.proposal.approvals.push(Approval {
                    by: record.teacher.clone(),
                    reason: record.reason.clone(),
                    at_ms: record.at_ms,
                });
                if makes_version.is_some() {
                    one.makes_version.clone_from(makes_version);
                }
            }
            ReviewEvent::Rejected => {
                one.rejected = Some((record.teacher.clone(), record.reason.clone(), record.at_ms));
            }
            ReviewEvent::Proposed { .. } => {}
        }
    }
    folded
}

impl Folded {
    /// Sets the proposal's status as `state` shows it: learned when the
    /// version its last approval named exists, rejected, stale when its
    /// entry is no longer at the version it was based on, else open.
    pub(crate) fn settle(&mut self, state: &State) {
        let proposal = &mut self.proposal;
        if let Some(made) = &self.makes_version
            && state.by_id(made).is_some()
        {
            proposal.status = ProposalStatus::Learned {
                version_id: made.clone(),
            };
            return;
        }
        if let Some((by, reason, at_ms)) = &self.rejected {
            proposal.status = ProposalStatus::Rejected {
                by: by.clone(),
                reason: reason.clone(),
                at_ms: *at_ms,
            };
            return;
        }
        let now = state
            .latest(&proposal.collection, &proposal.entry)
            .map(|version| version.version_id.to_string());
        proposal.status = match &self.makes_version {
            _ if now != proposal.based_on => ProposalStatus::Stale { now },
            Some(made) => ProposalStatus::Approved {
                version_id: made.clone(),
            },
            None => ProposalStatus::Open,
        };
    }
}
