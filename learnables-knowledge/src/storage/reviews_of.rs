//! [`ReviewsOf`]: which records of proposals a back end reads for a
//! listing or a decision, so that neither reads every record it holds.

use std::collections::HashSet;

use crate::{ReviewEvent, ReviewRecord};

/// Which records of proposals [`Storage::load_reviews_of`](super::Storage::load_reviews_of)
/// reads: always every record of each proposal it selects, each
/// proposal's in number order, proposals in the order they were made.
///
/// ```
/// use learnables_knowledge::{MemoryStorage, ReviewsOf, Storage};
/// let storage = MemoryStorage::default();
/// assert!(storage.load_reviews_of(ReviewsOf::Undecided).unwrap().is_empty());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReviewsOf<'a> {
    /// One proposal, by its id: what a decision reads.
    Proposal(&'a str),
    /// The proposals of one entry: what show-back and history read.
    Entry {
        /// The collection.
        collection: &'a str,
        /// The entry.
        entry: &'a str,
    },
    /// The proposals no record has decided yet (no rejection, no approval
    /// naming the version it makes): what the review listing and the
    /// limits on open proposals read. Some of them may be stale.
    Undecided,
    /// The proposal whose last approval names this version.
    MakingVersion(&'a str),
}

impl ReviewsOf<'_> {
    /// The records of `records` (every record a back end holds, in its
    /// order) this selects: how a back end that keeps its records in
    /// memory reads them.
    ///
    /// ```
    /// use learnables_knowledge::ReviewsOf;
    /// assert!(ReviewsOf::Proposal("p1").select(&[]).is_empty());
    /// ```
    pub fn select(&self, records: &[ReviewRecord]) -> Vec<ReviewRecord> {
        let keep: Box<dyn Fn(&ReviewRecord) -> bool> = match *self {
            ReviewsOf::Proposal(id) => Box::new(move |record| record.proposal_id == id),
            ReviewsOf::Entry { collection, entry } => {
                Box::new(move |record| record.collection == collection && record.entry == entry)
            }
            ReviewsOf::Undecided => {
                let decided: HashSet<&str> = records
                    .iter()
                    .filter(|record| decides(record))
                    .map(|record| record.proposal_id.as_str())
                    .collect();
                let decided: HashSet<String> = decided.into_iter().map(str::to_owned).collect();
                Box::new(move |record| !decided.contains(&record.proposal_id))
            }
            ReviewsOf::MakingVersion(version) => {
                let Some(id) = records
                    .iter()
                    .find(|record| makes_version(record) == Some(version))
                    .map(|record| record.proposal_id.clone())
                else {
                    return Vec::new();
                };
                Box::new(move |record| record.proposal_id == id)
            }
        };
        records
            .iter()
            .filter(|record| keep(record))
            .cloned()
            .collect()
    }
}

/// Whether `record` decides its proposal: a rejection, or the approval
/// that names the version it makes.
pub(crate) fn decides(record: &ReviewRecord) -> bool {
    matches!(record.event, ReviewEvent::Rejected) || makes_version(record).is_some()
}

/// The version `record` makes, if it is the approval that names one.
pub(crate) fn makes_version(record: &ReviewRecord) -> Option<&str> {
    match &record.event {
        ReviewEvent::Approved { makes_version } => makes_version.as_deref(),
        _ => None,
    }
}
