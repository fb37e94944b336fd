//! A write the back end refuses leaves the knowledge as it was; a back end
//! that panics or hangs answers every waiting teacher with an error while
//! reads go on; teachers waiting together share commits.

use learnables_tests::support::backend_suite;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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

/// Memory storage that counts its appends, and panics or hangs on demand.
#[derive(Default)]
struct Misbehaving {
    inner: MemoryStorage,
    appends: Arc<AtomicUsize>,
    panicking: Arc<AtomicBool>,
    /// While set, an append waits until it is cleared.
    hanging: Arc<AtomicBool>,
    /// Set when the storage is dropped: the knowledge has closed it.
    dropped: Arc<AtomicBool>,
}

impl Drop for Misbehaving {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

impl Storage for Misbehaving {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.inner.load()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        self.appends.fetch_add(1, Ordering::SeqCst);
        assert!(
            !self.panicking.load(Ordering::SeqCst),
            "the disk caught fire"
        );
        while self.hanging.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(5));
        }
        // A little of a disk's sync time, so that teachers queue up.
        std::thread::sleep(Duration::from_millis(1));
        self.inner.append(records)
    }
}

/// Eight teachers teaching at once, each refused: their errors.
fn eight_refused_teachers(knowledge: &Knowledge) -> Vec<TeachError> {
    std::thread::scope(|scope| {
        let teachers: Vec<_> = (0..8)
            .map(|teacher| {
                scope.spawn(move || {
                    knowledge
                        .teach(&rule_lesson(&(teacher + 1).to_string(), "cold chain"))
                        .unwrap_err()
                })
            })
            .collect();
        teachers.into_iter().map(|t| t.join().unwrap()).collect()
    })
}

#[test]
fn eight_teachers_share_commits() {
    // 8 teachers x 12 lessons: one lesson for each of the 96 HS chapters.
    const LESSONS: usize = 12;
    let storage = Misbehaving::default();
    let appends = storage.appends.clone();
    let knowledge = registered(Knowledge::with_storage(storage).unwrap());
    std::thread::scope(|scope| {
        for teacher in 0..8 {
            let knowledge = &knowledge;
            scope.spawn(move || {
                for i in 0..LESSONS {
                    let entry =
                        learnables_examples::Chapter::nth(teacher * LESSONS + i).to_string();
                    assert!(
                        knowledge
                            .teach(&rule_lesson(&entry, "general"))
                            .unwrap()
                            .learned
                    );
                }
            });
        }
    });
    assert_eq!(knowledge.history("routing_rules").len(), 8 * LESSONS);
    let commits = appends.load(Ordering::SeqCst);
    assert!(
        commits < 8 * LESSONS,
        "{commits} commits for {} lessons",
        8 * LESSONS
    );
}

#[test]
fn a_panicking_back_end_answers_every_teacher_and_reads_go_on() {
    let storage = Misbehaving::default();
    let panicking = storage.panicking.clone();
    let knowledge = registered(Knowledge::with_storage(storage).unwrap());
    knowledge.teach(&rule_lesson("84", "general")).unwrap();
    panicking.store(true, Ordering::SeqCst);
    let errors = eight_refused_teachers(&knowledge);
    for error in errors {
        let TeachError::Store(StoreError::OutcomeUnknown(message)) = &error else {
            panic!("{error:?}");
        };
        assert!(message.contains("the disk caught fire"), "{message}");
        assert!(
            error
                .to_string()
                .starts_with("the lesson may have been absorbed"),
            "{error}"
        );
    }
    // Reads go on, and so does teaching once the back end behaves.
    assert_eq!(
        knowledge.pin().get::<RoutingRule>("84").unwrap().desk,
        Desk::General
    );
    panicking.store(false, Ordering::SeqCst);
    let next = knowledge.teach(&rule_lesson("84", "cold chain")).unwrap();
    assert_eq!(next.definition_version, 2);
}

#[test]
fn a_hanging_back_end_answers_every_teacher_within_the_timeout() {
    let storage = Misbehaving::default();
    let hanging = storage.hanging.clone();
    let knowledge = registered(Knowledge::with_storage(storage).unwrap());
    knowledge.teach(&rule_lesson("84", "general")).unwrap();
    knowledge.set_commit_timeout(Duration::from_millis(200));
    hanging.store(true, Ordering::SeqCst);
    let started = Instant::now();
    let errors = eight_refused_teachers(&knowledge);
    assert!(started.elapsed() < Duration::from_secs(30));
    for error in &errors {
        match error {
            // Being written when the time ran out: it may yet be stored.
            TeachError::Store(StoreError::OutcomeUnknown(message)) => {
                assert!(message.contains("did not answer"), "{message}");
            }
            // Still queued: withdrawn, never written.
            TeachError::Store(StoreError::Failed(message)) => {
                assert!(message.ends_with("nothing was stored"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        knowledge.pin().get::<RoutingRule>("84").unwrap().desk,
        Desk::General
    );
    hanging.store(false, Ordering::SeqCst);
    knowledge.set_commit_timeout(Duration::from_secs(60));
    let next = knowledge.teach(&rule_lesson("84", "cold chain")).unwrap();
    assert!(next.learned);
    assert_eq!(
        knowledge.pin().get::<RoutingRule>("84").unwrap().desk,
        Desk::Perishables
    );
}

/// Dropping the knowledge while a write is in flight (its teacher gave up
/// waiting) waits for that write, so that the back end is closed when the
/// drop returns: a store can be opened again at once, and no thread of the
/// knowledge outlives it.
#[test]
fn dropping_the_knowledge_waits_for_the_write_in_flight_then_closes_the_back_end() {
    let storage = Misbehaving::default();
    let (hanging, dropped, appends) = (
        storage.hanging.clone(),
        storage.dropped.clone(),
        storage.appends.clone(),
    );
    let knowledge = registered(Knowledge::with_storage(storage).unwrap());
    // Long enough for the commit thread to take the lesson on a busy
    // machine, so that it is being written, not withdrawn, when the
    // teacher gives up.
    knowledge.set_commit_timeout(Duration::from_secs(1));
    hanging.store(true, Ordering::SeqCst);
    let gave_up = knowledge.teach(&rule_lesson("84", "general")).unwrap_err();
    assert!(
        matches!(gave_up, TeachError::Store(StoreError::OutcomeUnknown(_))),
        "{gave_up:?}"
    );
    knowledge.set_commit_timeout(Duration::from_secs(60));
    let dropper = std::thread::spawn(move || drop(knowledge));
    std::thread::sleep(Duration::from_millis(100));
    assert!(!dropper.is_finished(), "the drop waits for the write");
    assert!(!dropped.load(Ordering::SeqCst));
    hanging.store(false, Ordering::SeqCst);
    dropper.join().unwrap();
    assert!(
        dropped.load(Ordering::SeqCst),
        "the back end is closed when the drop returns"
    );
    assert_eq!(appends.load(Ordering::SeqCst), 1);
}

/// A back end that hangs holds the drop no longer than the commit timeout;
/// the commit thread closes it once the write returns.
#[test]
fn a_hanging_back_end_holds_the_drop_no_longer_than_the_commit_timeout() {
    let storage = Misbehaving::default();
    let (hanging, dropped) = (storage.hanging.clone(), storage.dropped.clone());
    let knowledge = registered(Knowledge::with_storage(storage).unwrap());
    knowledge.set_commit_timeout(Duration::from_millis(200));
    hanging.store(true, Ordering::SeqCst);
    knowledge.teach(&rule_lesson("84", "general")).unwrap_err();
    let (done, dropped_in_time) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(knowledge);
        done.send(()).unwrap();
    });
    dropped_in_time
        .recv_timeout(Duration::from_secs(60))
        .expect("the drop returned while the back end hung");
    assert!(!dropped.load(Ordering::SeqCst), "the write still holds it");
    hanging.store(false, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !dropped.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "the back end was never closed");
        std::thread::sleep(Duration::from_millis(5));
    }
}
