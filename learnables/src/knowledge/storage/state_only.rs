//! The back end of [`Knowledge::in_memory`](crate::Knowledge::in_memory):
//! nothing is kept beyond the knowledge's own in-memory state, which holds
//! every version already.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use super::{Storage, StoreError, check_follows_on, check_review_follows_on};
use crate::knowledge::{ReviewRecord, VersionRecord};

/// Keeps only the position of the last version appended, to refuse a
/// group that does not follow on, as every back end must, and the records
/// of proposals (which the state does not hold). Loads no version: a
/// knowledge on it starts empty.
#[derive(Debug, Default)]
pub(crate) struct StateOnly {
    last: AtomicU64,
    reviews: Mutex<Vec<ReviewRecord>>,
}

impl Storage for StateOnly {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        Ok(Vec::new())
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        let Some(last) = records.last() else {
            return Ok(());
        };
        check_follows_on(self.last.load(Ordering::Acquire), records)?;
        // Appends come one group at a time, under the knowledge's writer
        // lock: nothing moves `last` between the check and the store.
        self.last.store(last.position, Ordering::Release);
        Ok(())
    }

    fn append_review(&self, record: &ReviewRecord) -> Result<(), StoreError> {
        let mut reviews = self.reviews.lock().unwrap_or_else(PoisonError::into_inner);
        check_review_follows_on(&reviews, record)?;
        reviews.push(record.clone());
        Ok(())
    }

    fn load_reviews(&self) -> Result<Vec<ReviewRecord>, StoreError> {
        Ok(self
            .reviews
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone())
    }
}
