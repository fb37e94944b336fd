//! A write the back end refuses leaves the knowledge as it was.

mod backend_suite;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use backend_suite::{registered, rule_lesson};
use learnables::knowledge::{MemoryStorage, Storage, StoreError, VersionRecord};
use learnables::{Knowledge, TeachError};
use learnables_examples::{Desk, RoutingRule};

/// Memory storage whose writes fail while `failing` is set.
struct Flaky {
    inner: MemoryStorage,
    failing: Arc<AtomicBool>,
}

impl Storage for Flaky {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.inner.load()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::Failed("disk full".into()));
        }
        self.inner.append(records)
    }
}

#[test]
fn a_failed_write_is_refused_and_changes_nothing() {
    let failing = Arc::new(AtomicBool::new(false));
    let knowledge = registered(
        Knowledge::with_storage(Flaky {
            inner: MemoryStorage::default(),
            failing: failing.clone(),
        })
        .unwrap(),
    );
    let first = knowledge.teach(&rule_lesson("84", "general")).unwrap();
    failing.store(true, Ordering::SeqCst);
    let error = knowledge
        .teach(&rule_lesson("84", "cold chain"))
        .unwrap_err();
    assert_eq!(
        error,
        TeachError::Store(StoreError::Failed("disk full".into()))
    );
    assert_eq!(
        error.to_string(),
        "the lesson was not absorbed: the knowledge store failed: disk full"
    );
    let pinned = knowledge.pin();
    assert_eq!(pinned.position(), 1);
    assert_eq!(pinned.get::<RoutingRule>("84").unwrap().desk, Desk::General);
    assert_eq!(knowledge.history("routing_rules").len(), 1);
    failing.store(false, Ordering::SeqCst);
    let next = knowledge.teach(&rule_lesson("84", "cold chain")).unwrap();
    assert_eq!(next.definition_version, 2);
    assert_eq!(next.previous_version_id, first.version_id);
}
