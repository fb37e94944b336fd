//! The stable reasons a refused review gives (a JSON-RPC error's
//! `google.rpc.ErrorInfo` reason, beside the reasons of
//! [`a2a::reasons`](crate::a2a::reasons)): one for each refusal only
//! review has, so that a client tells them apart without reading the
//! message.

use super::TeachError;

/// The reasons of review's refusals.
pub mod review_reasons {
    /// No proposal of the entry has the id.
    pub const PROPOSAL_NOT_FOUND: &str = "PROPOSAL_NOT_FOUND";
    /// The proposal was learned, rejected or closed as stale already.
    pub const PROPOSAL_CLOSED: &str = "PROPOSAL_CLOSED";
    /// The author approving their own proposal.
    pub const SELF_APPROVAL: &str = "SELF_APPROVAL";
    /// A teacher approving the same proposal twice.
    pub const ALREADY_APPROVED: &str = "ALREADY_APPROVED";
    /// The proposal's entry changed since it was proposed.
    pub const PROPOSAL_STALE: &str = "PROPOSAL_STALE";
    /// A rejection without a reason.
    pub const REJECTION_REASON_MISSING: &str = "REJECTION_REASON_MISSING";
    /// A lesson while its teacher or its entry has as many proposals
    /// waiting as the agent allows.
    pub const TOO_MANY_PROPOSALS: &str = "TOO_MANY_PROPOSALS";
}

impl TeachError {
    /// The stable reason of a refusal only review has (see
    /// [`review_reasons`]); `None` for every other refusal.
    ///
    /// ```
    /// use learnables_knowledge::TeachError;
    /// let error = TeachError::SelfApproval {
    ///     proposal_id: "p1".into(),
    ///     teacher: "alice@example.com".into(),
    /// };
    /// assert_eq!(error.review_reason(), Some("SELF_APPROVAL"));
    /// assert_eq!(TeachError::EmptyEntry.review_reason(), None);
    /// ```
    pub fn review_reason(&self) -> Option<&'static str> {
        Some(match self {
            TeachError::UnknownProposal { .. } => review_reasons::PROPOSAL_NOT_FOUND,
            TeachError::ProposalClosed { .. } => review_reasons::PROPOSAL_CLOSED,
            TeachError::SelfApproval { .. } => review_reasons::SELF_APPROVAL,
            TeachError::AlreadyApproved { .. } => review_reasons::ALREADY_APPROVED,
            TeachError::StaleProposal { .. } => review_reasons::PROPOSAL_STALE,
            TeachError::NoRejectionReason => review_reasons::REJECTION_REASON_MISSING,
            TeachError::TooManyProposals { .. } => review_reasons::TOO_MANY_PROPOSALS,
            _ => return None,
        })
    }
}
