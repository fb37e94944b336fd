//! Review before learning: a lesson of a learnable declared with review
//! (`#[learnable(review)]`) is checked as any lesson, then kept as a
//! [`Proposal`] instead of learned; [`Knowledge::review`] approves or
//! rejects it, and the last approval needed makes the entry's new version.
//!
//! Every decision is one record appended at the proposal's next number,
//! which the back end refuses if another reviewer's record took it
//! first: the loser reads the proposal again and decides anew, so a
//! proposal is never approved twice, nor approved once rejected. The
//! last approval names the version it makes before the version is made,
//! and the writer makes it only while the entry is still at the version
//! the proposal was based on: nobody approves what they were not shown.

use std::sync::{Arc, PoisonError};

use uuid::Uuid;

use super::approved::{Approved, changed_since};
use super::change_between::{FieldChange, field_changes};
use super::off_runtime::off_runtime;
use super::proposal::{Folded, Proposal, ProposalStatus, ReviewEvent, ReviewRecord, fold};
use super::registry::Absorbed;
use super::shared::Shared;
use super::storage::ReviewsOf;
use super::writer::{Pending, new_version_id};
use super::{StoreError, TeachError};
use crate::LessonError;
use crate::{Decision, LessonResult, Review, ReviewRule};

/// How many times a decision is taken again after another reviewer's
/// record took its number: each retry follows another reviewer's
/// success, so a few are plenty.
const ATTEMPTS: usize = 16;

/// Two teachers' names are one teacher when a person could not tell them
/// apart ([`identity::same`](crate::identity::same)): a look-alike second
/// name must not count as a second teacher.
fn same_teacher(one: &str, other: &str) -> bool {
    crate::identity::same(one, other)
}

impl Shared {
    /// See `Knowledge::proposals`.
    pub(crate) fn proposals(
        &self,
        collection: &str,
        entry: &str,
    ) -> Result<Vec<Proposal>, StoreError> {
        self.proposals_of(ReviewsOf::Entry { collection, entry })
    }

    /// See `Knowledge::open_proposals`.
    pub(crate) fn open_proposals(&self) -> Result<Vec<Proposal>, StoreError> {
        let mut undecided = self.proposals_of(ReviewsOf::Undecided)?;
        undecided.retain(|proposal| proposal.status == ProposalStatus::Open);
        Ok(undecided)
    }

    /// See `Knowledge::version_proposal`.
    pub(crate) fn version_proposal(
        &self,
        version_id: &str,
    ) -> Result<Option<Proposal>, StoreError> {
        Ok(self
            .proposals_of(ReviewsOf::MakingVersion(version_id))?
            .into_iter()
            .find(|proposal| {
                matches!(&proposal.status, ProposalStatus::Learned { version_id: made }
                    if made == version_id)
            }))
    }

    /// See `Knowledge::proposal`.
    pub(crate) fn proposal(&self, proposal_id: &str) -> Result<Option<Proposal>, StoreError> {
        Ok(self.proposals_of(ReviewsOf::Proposal(proposal_id))?.pop())
    }

    /// Commits a change, or, for a learnable declared with review,
    /// proposes it: what teaching, reverting and retracting end in.
    pub(crate) fn commit_or_propose(
        &self,
        pending: Pending<'_>,
    ) -> Result<LessonResult, TeachError> {
        match self.review_rule(&pending.collection) {
            Some(rule) => self.propose(&pending, rule),
            None => self.commit(pending),
        }
    }

    /// The review the learnable of `collection` asks for, if any.
    pub(crate) fn review_rule(&self, collection: &str) -> Option<ReviewRule> {
        let registry = self.registry();
        let registration = registry.get(collection)?;
        (registration.descriptor)().review
    }

    /// Keeps `pending` as a proposal based on the entry's current version;
    /// a change that changes nothing is answered as a lesson would be.
    fn propose(&self, pending: &Pending<'_>, rule: ReviewRule) -> Result<LessonResult, TeachError> {
        let state = self.current();
        let latest = state.latest(&pending.collection, &pending.entry);
        let unchanged = if pending.retract {
            match latest {
                None => {
                    return Err(TeachError::UnknownEntry {
                        collection: pending.collection.to_string(),
                        entry: pending.entry.to_string(),
                    });
                }
                Some(stored) => Some(stored).filter(|stored| stored.retracted),
            }
        } else {
            latest.filter(|stored| {
                !stored.retracted
                    && stored.value_is(&pending.absorbed.value, pending.absorbed.json.as_deref())
            })
        };
        if let Some(stored) = unchanged {
            let mut result = LessonResult::new(
                false,
                pending.absorbed.describes.clone(),
                stored.definition_version,
            )
            .with_version_id(&*stored.version_id);
            result.previous_version_id = stored.previous_version_id.as_deref().map(str::to_owned);
            return Ok(result);
        }
        self.room_for_a_proposal(pending)?;
        let proposal_id = Uuid::now_v7().hyphenated().to_string();
        let record = ReviewRecord {
            proposal_id: proposal_id.clone(),
            seq: 0,
            collection: pending.collection.to_string(),
            entry: pending.entry.to_string(),
            teacher: pending.taught_by.to_string(),
            reason: pending.reason.as_deref().map(str::to_owned),
            at_ms: super::version_record::now_ms(),
            event: ReviewEvent::Proposed {
                value: pending.absorbed.value.clone(),
                retract: pending.retract,
                describes: pending.absorbed.describes.clone(),
                based_on: latest.map(|version| version.version_id.to_string()),
                based_on_version: latest.map(|version| version.definition_version),
                approvals_needed: rule.approvals,
            },
        };
        off_runtime(|| self.writer.storage().append_review(&record))?;
        Ok(self
            .unchanged(&pending.collection)
            .with_describes(format!(
                "Waiting for review: {}",
                pending.absorbed.describes
            ))
            .with_proposal_id(proposal_id))
    }

    /// Refuses a proposal while its teacher or its entry has as many open
    /// ones as the limits allow.
    fn room_for_a_proposal(&self, pending: &Pending<'_>) -> Result<(), TeachError> {
        let limits = self.proposal_limits.get();
        let open = self.open_proposals()?;
        let refused = |of, limit| TeachError::TooManyProposals {
            of,
            teacher: pending.taught_by.to_string(),
            entry: pending.entry.to_string(),
            limit,
        };
        let by_teacher = open
            .iter()
            .filter(|proposal| crate::identity::same(&proposal.proposed_by, &pending.taught_by))
            .count();
        if by_teacher >= limits.per_teacher as usize {
            return Err(refused(crate::ProposalsOf::Teacher, limits.per_teacher));
        }
        let of_entry = open
            .iter()
            .filter(|proposal| {
                proposal.collection == *pending.collection && proposal.entry == *pending.entry
            })
            .count();
        if of_entry >= limits.per_entry as usize {
            return Err(refused(crate::ProposalsOf::Entry, limits.per_entry));
        }
        Ok(())
    }

    /// A result that learned nothing, at the collection's latest version.
    fn unchanged(&self, collection: &str) -> LessonResult {
        let state = self.current();
        match state.head(collection) {
            Some(head) => LessonResult::new(false, "", head.definition_version)
                .with_version_id(&*head.version_id),
            None => LessonResult::new(false, "", 0),
        }
    }

    /// [`Knowledge::review`]: one decision, taken again when another
    /// reviewer's record took its number first.
    pub(crate) fn decide(&self, review: &Review) -> Result<LessonResult, TeachError> {
        Pending::check_names(&review.collection, &review.entry, &review.reviewed_by)?;
        self.registration(&review.collection)?;
        let reason = review
            .reason
            .as_deref()
            .map(str::trim)
            .filter(|reason| !reason.is_empty());
        if review.decision == Decision::Reject && reason.is_none() {
            return Err(TeachError::NoRejectionReason);
        }
        // Reviewers of this process take turns; those of others are kept
        // apart by the records' numbers.
        let _turn = self
            .reviewing
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for _ in 0..ATTEMPTS {
            let folded = self.find(review)?;
            match self.decide_once(review, reason, folded) {
                Err(TeachError::Store(StoreError::Conflict { .. })) => {}
                decided => return decided,
            }
        }
        Err(TeachError::Store(StoreError::Failed(
            "other reviewers kept deciding the proposal first; read it again".into(),
        )))
    }

    /// The proposal `review` names, its status as the knowledge is now.
    fn find(&self, review: &Review) -> Result<Folded, TeachError> {
        let which = ReviewsOf::Proposal(&review.proposal_id);
        let records = off_runtime(|| self.writer.storage().load_reviews_of(which))?;
        let state = self.current();
        let mut found = fold(&records).into_iter().find(|folded| {
            folded.proposal.proposal_id == review.proposal_id
                && folded.proposal.collection == review.collection
                && folded.proposal.entry == review.entry
        });
        match &mut found {
            Some(folded) => {
                folded.settle(&state);
                Ok(found.expect("found"))
            }
            None => Err(TeachError::UnknownProposal {
                collection: review.collection.clone(),
                entry: review.entry.clone(),
                proposal_id: review.proposal_id.clone(),
            }),
        }
    }

    fn decide_once(
        &self,
        review: &Review,
        reason: Option<&str>,
        folded: Folded,
    ) -> Result<LessonResult, TeachError> {
        let proposal = &folded.proposal;
        let closed = |how: String| TeachError::ProposalClosed {
            proposal_id: proposal.proposal_id.clone(),
            how,
        };
        match &proposal.status {
            ProposalStatus::Open => {}
            ProposalStatus::Approved { .. } if review.decision == Decision::Reject => {
                return Err(closed(
                    "every approval it needs was given, so it can no longer be rejected".to_owned(),
                ));
            }
            ProposalStatus::Approved { .. } => {}
            ProposalStatus::Learned { version_id } => {
                return Err(closed(format!(
                    "it was approved and learned as {version_id}"
                )));
            }
            ProposalStatus::Rejected { by, reason, .. } => {
                return Err(closed(match reason {
                    Some(reason) => format!("{by} rejected it: {reason}"),
                    None => format!("{by} rejected it"),
                }));
            }
            ProposalStatus::Stale { .. } if review.decision == Decision::Approve => {
                let state = self.current();
                let latest = state.latest(&proposal.collection, &proposal.entry);
                return Err(TeachError::StaleProposal {
                    proposal_id: proposal.proposal_id.clone(),
                    changed: changed_since(proposal.based_on_version, latest),
                });
            }
            ProposalStatus::Stale { .. } => {
                return Err(closed(
                    "its entry changed since it was proposed, so it can no longer be learned"
                        .to_owned(),
                ));
            }
        }
        let storage = self.writer.storage();
        match review.decision {
            Decision::Reject => {
                let record = ReviewRecord::next(
                    proposal,
                    folded.records,
                    &review.reviewed_by,
                    reason,
                    ReviewEvent::Rejected,
                );
                off_runtime(|| storage.append_review(&record))?;
                Ok(self
                    .unchanged(&proposal.collection)
                    .with_describes(format!("Rejected, nothing learned: {}", proposal.describes))
                    .with_proposal_id(&proposal.proposal_id))
            }
            Decision::Approve => {
                if same_teacher(&review.reviewed_by, &proposal.proposed_by) {
                    return Err(TeachError::SelfApproval {
                        proposal_id: proposal.proposal_id.clone(),
                        teacher: review.reviewed_by.clone(),
                    });
                }
                if let Some(version_id) = &folded.makes_version {
                    // Approved in full, and its version not made (a crash
                    // came between): made now.
                    return self.learn(proposal, version_id);
                }
                if proposal
                    .approvals
                    .iter()
                    .any(|approval| same_teacher(&approval.by, &review.reviewed_by))
                {
                    return Err(TeachError::AlreadyApproved {
                        proposal_id: proposal.proposal_id.clone(),
                        teacher: review.reviewed_by.clone(),
                    });
                }
                let needed = usize::try_from(proposal.approvals_needed).unwrap_or(usize::MAX);
                let left = needed.saturating_sub(proposal.approvals.len() + 1);
                let makes_version = (left == 0).then(new_version_id);
                let record = ReviewRecord::next(
                    proposal,
                    folded.records,
                    &review.reviewed_by,
                    reason,
                    ReviewEvent::Approved {
                        makes_version: makes_version.clone(),
                    },
                );
                off_runtime(|| storage.append_review(&record))?;
                match makes_version {
                    Some(version_id) => self.learn(proposal, &version_id),
                    None => Ok(self
                        .unchanged(&proposal.collection)
                        .with_describes(format!(
                            "{left} more approval{} needed: {}",
                            if left == 1 { "" } else { "s" },
                            proposal.describes
                        ))
                        .with_proposal_id(&proposal.proposal_id)),
                }
            }
        }
    }

    /// Makes `proposal`'s value the entry's version `version_id`, taught
    /// by its author, if the entry is still at the version it was based on.
    fn learn(&self, proposal: &Proposal, version_id: &str) -> Result<LessonResult, TeachError> {
        let registration = self.registration(&proposal.collection)?;
        // Its sentence is the learnable's of the value, said again now,
        // never one a record holds but for the mark of a revert.
        let mut absorbed: Absorbed = if proposal.retract {
            super::revert::retraction(&(registration.descriptor)().entry, &proposal.entry)
        } else {
            (registration.absorb)(&proposal.value, &proposal.entry)?.into()
        };
        absorbed.describes = super::revert::said_again(&proposal.describes, absorbed.describes);
        let mut pending = Pending::borrowed(
            &proposal.collection,
            &proposal.entry,
            &proposal.proposed_by,
            proposal.reason.as_deref(),
            absorbed,
            proposal.retract,
        );
        pending.approved = Some(Arc::new(Approved {
            proposal_id: proposal.proposal_id.clone(),
            version_id: version_id.to_owned(),
            based_on: proposal.based_on.clone(),
            based_on_version: proposal.based_on_version,
        }));
        self.commit(pending)
    }

    /// The proposals `which` selects, each settled, oldest first.
    fn proposals_of(&self, which: ReviewsOf<'_>) -> Result<Vec<Proposal>, StoreError> {
        let records = off_runtime(|| self.writer.storage().load_reviews_of(which))?;
        let state = self.current();
        Ok(fold(&records)
            .into_iter()
            .map(|mut folded| {
                folded.settle(&state);
                folded.proposal
            })
            .collect())
    }

    /// What `proposal` would change of its entry as it is now, field by
    /// field.
    pub(crate) fn changes_of(
        &self,
        proposal: &Proposal,
    ) -> Option<Result<Vec<FieldChange>, LessonError>> {
        let registry = self.registry();
        let show = registry.get(&proposal.collection)?.show;
        let state = self.current();
        let before = match state
            .latest(&proposal.collection, &proposal.entry)
            .filter(|version| !version.retracted)
        {
            Some(version) => match show(&version.value()) {
                Ok(fields) => Some(fields),
                Err(error) => return Some(Err(error)),
            },
            None => None,
        };
        let after = if proposal.retract {
            None
        } else {
            match show(&proposal.value) {
                Ok(fields) => Some(fields),
                Err(error) => return Some(Err(error)),
            }
        };
        Some(Ok(field_changes(before.as_deref(), after.as_deref())))
    }
}

trait WithDescribes {
    fn with_describes(self, describes: String) -> Self;
}

impl WithDescribes for LessonResult {
    fn with_describes(mut self, describes: String) -> LessonResult {
        self.describes = describes;
        self
    }
}
