//! The back end of [`Knowledge::in_memory`](crate::Knowledge::in_memory):
//! nothing is kept beyond the knowledge's own in-memory state, which holds
//! every version already.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{Storage, StoreError, check_follows_on};
use crate::knowledge::VersionRecord;

/// Keeps only the position of the last version appended, to refuse a
/// group that does not follow on, as every back end must. Loads nothing:
/// a knowledge on it starts empty.
#[derive(Debug, Default)]
pub(crate) struct StateOnly {
    last: AtomicU64,
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
}
