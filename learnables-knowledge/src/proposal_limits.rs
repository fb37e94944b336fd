//! [`ProposalLimits`]: how many proposals may wait at once, per teacher
//! and per entry, so that one teacher cannot bury review under proposals
//! nobody can read through.

use std::sync::atomic::{AtomicU32, Ordering};

/// How many open proposals (waiting for review, not stale) a teacher may
/// have at once, and an entry: a lesson past either is refused
/// ([`TeachError::TooManyProposals`](crate::TeachError::TooManyProposals))
/// until some are decided. The default, [`ProposalLimits::DEFAULT`], is
/// generous for people (a teacher waits on 20, an entry on 5) and stops
/// a token that proposes in a loop.
///
/// ```
/// use learnables_knowledge::{Knowledge, ProposalLimits};
/// let knowledge = Knowledge::in_memory();
/// knowledge.set_proposal_limits(ProposalLimits { per_teacher: 50, per_entry: 3 });
/// assert_eq!(knowledge.proposal_limits().per_entry, 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProposalLimits {
    /// Open proposals one teacher may have at once.
    pub per_teacher: u32,
    /// Open proposals one entry may have at once.
    pub per_entry: u32,
}

impl ProposalLimits {
    /// 20 open proposals a teacher, 5 an entry.
    pub const DEFAULT: ProposalLimits = ProposalLimits {
        per_teacher: 20,
        per_entry: 5,
    };
}

impl Default for ProposalLimits {
    fn default() -> ProposalLimits {
        ProposalLimits::DEFAULT
    }
}

/// The limits a knowledge holds, set while it serves.
pub(crate) struct HeldLimits {
    per_teacher: AtomicU32,
    per_entry: AtomicU32,
}

impl HeldLimits {
    pub(crate) fn new(limits: ProposalLimits) -> HeldLimits {
        HeldLimits {
            per_teacher: AtomicU32::new(limits.per_teacher),
            per_entry: AtomicU32::new(limits.per_entry),
        }
    }

    pub(crate) fn set(&self, limits: ProposalLimits) {
        self.per_teacher
            .store(limits.per_teacher, Ordering::Relaxed);
        self.per_entry.store(limits.per_entry, Ordering::Relaxed);
    }

    pub(crate) fn get(&self) -> ProposalLimits {
        ProposalLimits {
            per_teacher: self.per_teacher.load(Ordering::Relaxed),
            per_entry: self.per_entry.load(Ordering::Relaxed),
        }
    }
}
