//! [`OpenProposal`]: a lesson waiting for review as the review method
//! lists it and show-back shows it beside its entry: who proposed it, when
//! and why, and what it would change field by field from the entry's
//! current value, in the learnable's own terms.

use serde::{Deserialize, Serialize};

use crate::knowledge::{FieldChange, Knowledge, Proposal, ProposalStatus};
use crate::shared::rfc3339;
use crate::untrusted::escaped;

/// A lesson waiting for review.
///
/// It is `#[non_exhaustive]`, so that a key the answer gains is not a
/// breaking change: the agent makes it, a client reads it from the JSON.
///
/// ```
/// use learnables::a2a::OpenProposal;
/// let listed: OpenProposal = serde_json::from_value(serde_json::json!({
///     "collection": "clearance_limits", "entry": "broker-17", "proposalId": "p-1",
///     "proposedBy": "alice@example.com", "proposedAt": "2026-12-05T10:00:00.000Z",
///     "describes": "broker-17 may now clear up to EUR 30000 alone",
///     "changes": [{"name": "amountEur", "label": "Limit in euros",
///                  "before": "25000", "after": "30000"}],
///     "approvalsNeeded": 1
/// })).unwrap();
/// assert_eq!(listed.changes[0].after.as_deref(), Some("30000"));
/// assert!(listed.approved_by.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct OpenProposal {
    /// The collection.
    pub collection: String,
    /// The entry.
    pub entry: String,
    /// The id a decision names.
    pub proposal_id: String,
    /// Who proposed it (its author, the future version's `taughtBy`).
    pub proposed_by: String,
    /// When, as an RFC 3339 UTC timestamp.
    pub proposed_at: String,
    /// Why, if they said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the entry would mean once learned, phrased by the learnable.
    pub describes: String,
    /// Whether it would retract the entry.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retract: bool,
    /// What it would change from the entry's current value, field by
    /// field (each field's label, its value now and after).
    #[serde(default)]
    pub changes: Vec<FieldChange>,
    /// The id of the entry's version it was proposed on (none for an
    /// entry not taught yet): approving it is refused once the entry has
    /// another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub based_on: Option<String>,
    /// Who approved it so far.
    #[serde(default)]
    pub approved_by: Vec<String>,
    /// How many approvals it needs in all.
    pub approvals_needed: u32,
    /// Whether the teacher who asked may decide it (in the review
    /// method's list; absent from show-back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub may_decide: Option<bool>,
    /// Why they may not, in words, when they may not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cannot_decide: Option<String>,
}

impl OpenProposal {
    /// `proposal` as shown, its changes from the entry's value now; for
    /// `viewer`, whether they may decide it.
    pub(crate) fn of(
        knowledge: &Knowledge,
        proposal: &Proposal,
        viewer: Option<&str>,
    ) -> OpenProposal {
        // A value that no longer reads shows no changes rather than none
        // of the proposal: its sentence and author still say what it is.
        let changes = knowledge
            .proposal_changes(proposal)
            .and_then(Result::ok)
            .unwrap_or_default();
        let approved_by: Vec<String> = proposal.approvals.iter().map(|a| a.by.clone()).collect();
        let cannot_decide = viewer.and_then(|viewer| {
            if proposal.proposed_by.eq_ignore_ascii_case(viewer) {
                Some("you proposed it: another teacher approves it".to_owned())
            } else if approved_by.iter().any(|by| by.eq_ignore_ascii_case(viewer)) {
                Some("you approved it already: it waits for another teacher".to_owned())
            } else {
                None
            }
        });
        OpenProposal {
            collection: proposal.collection.clone(),
            entry: proposal.entry.clone(),
            proposal_id: proposal.proposal_id.clone(),
            proposed_by: proposal.proposed_by.clone(),
            proposed_at: rfc3339(proposal.proposed_at_ms),
            reason: proposal.reason.clone(),
            // Phrased by the learnable, which may repeat a value raw.
            describes: escaped(&proposal.describes).into_owned(),
            retract: proposal.retract,
            changes,
            based_on: proposal.based_on.clone(),
            approved_by,
            approvals_needed: proposal.approvals_needed,
            may_decide: viewer.map(|_| cannot_decide.is_none()),
            cannot_decide,
        }
    }
}

/// A lesson a reviewer rejected: nothing was learned; the entry's history
/// lists it beside the versions, with who proposed it and who rejected it.
///
/// ```
/// use learnables::a2a::RejectedProposal;
/// let rejected: RejectedProposal = serde_json::from_value(serde_json::json!({
///     "proposalId": "p-2", "proposedBy": "alice@example.com",
///     "proposedAt": "2026-12-05T10:00:00.000Z",
///     "describes": "broker-17 may now clear up to EUR 90000 alone",
///     "rejectedBy": "bob@example.com", "rejectedAt": "2026-12-05T11:00:00.000Z",
///     "rejection": "the contract is not signed"
/// })).unwrap();
/// assert_eq!(rejected.rejected_by, "bob@example.com");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RejectedProposal {
    /// The proposal's id.
    pub proposal_id: String,
    /// Who proposed it.
    pub proposed_by: String,
    /// When, as an RFC 3339 UTC timestamp.
    pub proposed_at: String,
    /// Why they proposed it, if they said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the entry would have meant, phrased by the learnable.
    pub describes: String,
    /// Who rejected it.
    pub rejected_by: String,
    /// When, as an RFC 3339 UTC timestamp.
    pub rejected_at: String,
    /// Why they rejected it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejection: Option<String>,
}

impl RejectedProposal {
    /// `proposal` as the history lists it, when it was rejected.
    pub(crate) fn of(proposal: &Proposal) -> Option<RejectedProposal> {
        let ProposalStatus::Rejected { by, reason, at_ms } = &proposal.status else {
            return None;
        };
        Some(RejectedProposal {
            proposal_id: proposal.proposal_id.clone(),
            proposed_by: proposal.proposed_by.clone(),
            proposed_at: rfc3339(proposal.proposed_at_ms),
            reason: proposal.reason.clone(),
            describes: escaped(&proposal.describes).into_owned(),
            rejected_by: by.clone(),
            rejected_at: rfc3339(*at_ms),
            rejection: reason.clone(),
        })
    }
}

/// Whether `proposal` is still waiting for a decision.
pub(crate) fn is_open(proposal: &Proposal) -> bool {
    matches!(proposal.status, ProposalStatus::Open)
}
