//! Review before learning, on the wire: a learnable's [`ReviewRule`] (the
//! descriptor's `review` key, our extension beside the spec's keys) and a
//! reviewer's [`Review`] of a proposal (the params of
//! `rsaxb.learnables.Review`).

use serde::{Deserialize, Serialize};

/// How many approvals each lesson of a learnable needs before it is
/// learned, each by a teacher other than its author and all distinct:
/// the descriptor's `"review": {"approvals": N}`. `#[learnable(review)]`
/// declares one, `#[learnable(review = N)]` N.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::ReviewRule;
/// let rule = ReviewRule::new(2).unwrap();
/// assert_eq!(serde_json::to_value(rule).unwrap(), serde_json::json!({"approvals": 2}));
/// assert!(ReviewRule::new(0).is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewRule {
    /// How many distinct teachers other than the author approve (1 or more).
    pub approvals: u32,
}

impl ReviewRule {
    /// A rule of `approvals` approvals; `None` for 0, which is no review.
    pub fn new(approvals: u32) -> Option<ReviewRule> {
        (approvals > 0).then_some(ReviewRule { approvals })
    }
}

/// What a reviewer decides of a proposal.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::Decision;
/// assert_eq!(serde_json::to_value(Decision::Approve).unwrap(), "approve");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The proposal may be learned: the last approval needed makes the
    /// entry's new version.
    Approve,
    /// The proposal is closed; nothing is learned.
    Reject,
}

/// A reviewer's decision on one proposal: the params of
/// `rsaxb.learnables.Review`, and what
/// `Knowledge::review` (in `learnables`) takes.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{Decision, Review};
/// let review = Review {
///     collection: "clearance_limits".into(),
///     entry: "DE".into(),
///     proposal_id: "0193...".into(),
///     decision: Decision::Reject,
///     reviewed_by: "bob@example.com".into(),
///     reason: Some("the limit is set by the ministry".into()),
/// };
/// let json = serde_json::to_value(&review).unwrap();
/// assert_eq!(json["proposalId"], "0193...");
/// assert_eq!(json["decision"], "reject");
/// assert_eq!(json["reviewedBy"], "bob@example.com");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    /// The proposal's collection.
    pub collection: String,
    /// The proposal's entry.
    pub entry: String,
    /// The proposal decided on.
    pub proposal_id: String,
    /// Approve or reject.
    pub decision: Decision,
    /// The reviewing teacher.
    pub reviewed_by: String,
    /// Why, in the reviewer's words: required to reject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
