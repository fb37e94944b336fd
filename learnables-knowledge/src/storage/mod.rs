//! Where versions are kept: the [`Storage`] trait and its back ends.

#[cfg(feature = "embedded")]
mod log_frame;
#[cfg(feature = "embedded")]
mod log_storage;
mod memory;
#[cfg(feature = "postgres")]
mod postgres_storage;
#[cfg(feature = "embedded")]
mod private_files;
mod reviews_of;

#[cfg(feature = "embedded")]
pub use log_storage::LogStorage;
pub use memory::MemoryStorage;
#[cfg(feature = "postgres")]
pub use postgres_storage::PostgresStorage;
pub use reviews_of::ReviewsOf;
#[cfg(feature = "postgres")]
pub(crate) use reviews_of::{decides, makes_version};

use crate::{ReviewRecord, StoreError, VersionRecord};

/// A back end of [`Knowledge`](crate::Knowledge): an append-only list of
/// versions in position order.
///
/// `Knowledge` decides what each version is and hands a back end whole
/// groups of versions to make durable; a back end's only duties are to keep
/// every group it acknowledged, to keep none of a group it refused, and to
/// refuse a group that does not follow on from what it holds (which is how
/// a store shared by several processes keeps each history linear).
pub trait Storage: Send + Sync + 'static {
    /// Every stored version, in position order.
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError>;

    /// Makes `records` durable, all or none, before returning `Ok`. The
    /// first record's position is one past the last stored; if it is not,
    /// the back end refuses with [`StoreError::Conflict`] and stores nothing.
    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError>;

    /// Makes durable the group `records`, or, if other writers stored
    /// versions after the position it was decided against, the group
    /// `redecide` makes once it has seen them: `redecide` is given the
    /// versions stored after the position the last group was decided
    /// against and returns the group to store instead (empty when nothing
    /// is left to store). Returns once a group is stored (or was empty).
    ///
    /// A back end shared by several processes overrides this to hold its
    /// write lock while `redecide` runs, so that a group is never refused
    /// because another writer got there first. The default retries
    /// [`Storage::append`] after each [`StoreError::Conflict`], a bounded
    /// number of times, which is enough for a back end only one process
    /// writes.
    fn append_decided(
        &self,
        records: Vec<VersionRecord>,
        redecide: &mut Redecide<'_>,
    ) -> Result<(), StoreError> {
        let mut records = records;
        let mut attempts = 0;
        loop {
            let Some(first) = records.first() else {
                return Ok(());
            };
            let after = first.position - 1;
            match self.append(&records) {
                Err(StoreError::Conflict { .. }) if attempts < DEFAULT_ATTEMPTS => {
                    attempts += 1;
                    records = redecide(self.load_since(after)?)?;
                }
                other => return other,
            }
        }
    }

    /// The stored versions after `position`, in position order: how a
    /// process sharing the store with others catches up on their lessons.
    /// The default reads everything and keeps the tail; a shared back end
    /// should read only the tail.
    fn load_since(&self, position: u64) -> Result<Vec<VersionRecord>, StoreError> {
        let mut records = self.load()?;
        records.retain(|record| record.position > position);
        Ok(records)
    }

    /// Asks the back end to call `wake` whenever another process may have
    /// appended versions, so that their lessons reach this process promptly
    /// without polling. A back end only this process writes has nothing to
    /// report and keeps the default, which never calls `wake`.
    ///
    /// Call `wake` from a thread of the back end's own (a listener, say),
    /// never from inside `append` or `load`: it takes the knowledge's writer
    /// lock, which a commit holds while it appends.
    fn watch(&self, wake: Wake) -> Result<(), StoreError> {
        let _ = wake;
        Ok(())
    }

    /// Makes one record of a proposal durable before returning `Ok`: the
    /// proposal itself, an approval or a rejection (see [`ReviewRecord`]).
    /// Its `seq` must be the number of records its proposal has (0 for a
    /// new proposal); if it is not (another reviewer's record took that
    /// number first) the back end refuses with [`StoreError::Conflict`]
    /// (`expected`: the record's number, `found`: how many the proposal
    /// has) and stores nothing. That refusal is what keeps two reviewers
    /// from both approving, or one approving what another rejected.
    ///
    /// The default keeps nothing and refuses: a back end that does not
    /// keep proposals serves no learnable declared with review.
    fn append_review(&self, record: &ReviewRecord) -> Result<(), StoreError> {
        let _ = record;
        Err(StoreError::Failed(
            "this knowledge's back end keeps no proposals, so a learnable declared with review \
             cannot be taught on it"
                .into(),
        ))
    }

    /// Every record of every proposal, each proposal's in number order.
    /// The default, for a back end that keeps none, is none.
    fn load_reviews(&self) -> Result<Vec<ReviewRecord>, StoreError> {
        Ok(Vec::new())
    }

    /// The records of the proposals `which` selects ([`ReviewsOf`]), each
    /// proposal's in number order: what a listing or a decision reads.
    /// The default reads every record and keeps those; a back end whose
    /// records are not in memory should read only those.
    fn load_reviews_of(&self, which: ReviewsOf<'_>) -> Result<Vec<ReviewRecord>, StoreError> {
        Ok(which.select(&self.load_reviews()?))
    }
}

/// Refuses a proposal's record whose number is not the count of records
/// `held` (every record a back end holds) has of its proposal.
pub(crate) fn check_review_follows_on(
    held: &[ReviewRecord],
    record: &ReviewRecord,
) -> Result<(), StoreError> {
    let found = held
        .iter()
        .filter(|kept| kept.proposal_id == record.proposal_id)
        .count();
    let found = u64::try_from(found).unwrap_or(u64::MAX);
    if u64::from(record.seq) == found {
        Ok(())
    } else {
        Err(StoreError::Conflict {
            expected: u64::from(record.seq),
            found,
        })
    }
}

/// Refuses a group whose first position is not one past `found`, the
/// position of the last version a back end holds; an empty group follows
/// on from anything.
pub(crate) fn check_follows_on(found: u64, records: &[VersionRecord]) -> Result<(), StoreError> {
    match records.first() {
        Some(first) if first.position != found + 1 => Err(StoreError::Conflict {
            expected: first.position,
            found,
        }),
        _ => Ok(()),
    }
}

/// What [`Storage::append_decided`] calls when other writers stored
/// versions first: given them, it returns the group to store instead.
pub type Redecide<'a> =
    dyn FnMut(Vec<VersionRecord>) -> Result<Vec<VersionRecord>, StoreError> + Send + 'a;

/// How many conflicts the default [`Storage::append_decided`] decides
/// again after before giving up.
const DEFAULT_ATTEMPTS: usize = 32;

/// What a shared back end calls when others may have written: it makes the
/// knowledge catch up. Cheap to call often; calls that find nothing new do
/// nothing.
pub type Wake = std::sync::Arc<dyn Fn() + Send + Sync>;
