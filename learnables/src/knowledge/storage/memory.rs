//! [`MemoryStorage`]: a back end that keeps its versions in memory.

use std::sync::Mutex;

use super::{Storage, StoreError, check_follows_on};
use crate::knowledge::VersionRecord;

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
}
