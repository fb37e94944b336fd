//! [`MemoryStorage`]: a back end that keeps its versions in memory.

use std::sync::Mutex;

use super::{Storage, StoreError, check_follows_on, check_review_follows_on};
use crate::knowledge::{ReviewRecord, VersionRecord};

/// Versions kept in memory only: for tests, and agents whose knowledge may
/// start empty on every run.
///
/// ```
/// use learnables::knowledge::{MemoryStorage, Storage};
/// let storage = MemoryStorage::default();
/// assert!(storage.load().unwrap().is_empty());
/// ```
#[derive(Debug, Default)]
pub struct MemoryStorage {
    records: Mutex<Vec<VersionRecord>>,
    reviews: Mutex<Vec<ReviewRecord>>,
}

impl Storage for MemoryStorage {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        Ok(self
            .records
            .lock()
            .map_err(|_| StoreError::Failed("a writer panicked".into()))?
            .clone())
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        let mut stored = self
            .records
            .lock()
            .map_err(|_| StoreError::Failed("a writer panicked".into()))?;
        check_follows_on(stored.last().map_or(0, |last| last.position), records)?;
        stored.extend_from_slice(records);
        Ok(())
    }

    fn append_review(&self, record: &ReviewRecord) -> Result<(), StoreError> {
        let mut reviews = self
            .reviews
            .lock()
            .map_err(|_| StoreError::Failed("a writer panicked".into()))?;
        check_review_follows_on(&reviews, record)?;
        reviews.push(record.clone());
        Ok(())
    }

    fn load_reviews(&self) -> Result<Vec<ReviewRecord>, StoreError> {
        Ok(self
            .reviews
            .lock()
            .map_err(|_| StoreError::Failed("a writer panicked".into()))?
            .clone())
    }
}
