//! [`Knowledge`]: the handle an agent teaches and reads through.

use std::borrow::Cow;
use std::collections::hash_map::Entry as MapEntry;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use arc_swap::ArcSwap;

#[cfg(feature = "embedded")]
use super::LogStorage;
use super::commit::{self, Results, extend};
use super::committer::{Committer, Late};
use super::off_runtime::off_runtime;
use super::pin_cache::Current;
use super::registry::{Absorbed, Registration, Registry};
use super::state::State;
use super::storage::StateOnly;
use super::{KnowledgeError, Snapshot, Storage, StoreError, TeachError, VersionRecord};
use crate::{Learnable, Lesson, LessonResult};

/// How long a teacher waits for its lesson to be stored before it is told
/// the back end did not answer, unless [`Knowledge::set_commit_timeout`]
/// says otherwise.
pub const DEFAULT_COMMIT_TIMEOUT: Duration = Duration::from_secs(120);

/// An agent's knowledge: the learnables it can be taught, every version of
/// what it was taught, and the back end that keeps them.
///
/// Cheap to clone and to share between threads: clones are handles to the
/// same knowledge. Reads go through a [`Snapshot`] and never wait for a
/// lesson being absorbed.
///
/// ```
/// use learnables::{Knowledge, Learnable, Lesson, LessonValue};
/// # #[derive(Learnable, Clone, Debug, PartialEq)]
/// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
/// #     how = "A table keyed on the HS chapter", decided_by = "rules",
/// #     describes = "Chapter {entry} now goes to the {desk} desk")]
/// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
/// let dir = std::env::temp_dir().join(format!("learnables-knowledge-doc-{}", std::process::id()));
/// let knowledge = Knowledge::open(&dir)?;
/// knowledge.register::<RoutingRule>()?;
/// let pinned = knowledge.pin();
///
/// let value = LessonValue::try_from(serde_json::json!({"desk": "general"})).unwrap();
/// let lesson = Lesson::new("routing_rules", "84", value, "alice@example.com");
/// let result = knowledge.teach(&lesson)?;
/// assert!(result.learned);
/// assert_eq!(result.definition_version, 1);
/// assert_eq!(result.describes, "Chapter 84 now goes to the general desk");
///
/// assert_eq!(pinned.get::<RoutingRule>("84"), None);                 // unchanged by the lesson
/// assert!(knowledge.pin().get::<RoutingRule>("84").is_some());       // sees the lesson
/// assert!(!knowledge.teach(&lesson)?.learned);                       // nothing new
/// # drop(knowledge); std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Knowledge {
    pub(super) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) storage: Box<dyn Storage>,
    /// False for [`Knowledge::in_memory`], whose state is its only store:
    /// a commit then makes no copy of its lessons for a back end.
    pub(crate) stores_versions: bool,
    pub(crate) current: Current,
    /// Held by whoever moves `current` forward: a commit, or a catch-up on
    /// versions other processes wrote.
    writer: Mutex<()>,
    /// Read on every lesson without a lock; replaced whole when a learnable
    /// is registered (under `registering`).
    registry: ArcSwap<Registry>,
    registering: Mutex<()>,
    pub(super) committer: Committer<Pending<'static>, Result<LessonResult, TeachError>>,
    /// How long a teacher waits for its lesson to be stored, in milliseconds.
    commit_timeout_ms: AtomicU64,
}

/// A lesson absorbed by its learnable, waiting to be committed: its texts
/// borrowed from the lesson while the teacher's own thread commits it,
/// copied for the commit thread.
pub(crate) struct Pending<'l> {
    pub(crate) collection: Cow<'l, str>,
    pub(crate) entry: Cow<'l, str>,
    pub(crate) taught_by: Cow<'l, str>,
    pub(crate) reason: Option<Cow<'l, str>>,
    pub(crate) absorbed: Absorbed,
}

impl Pending<'_> {
    /// The lesson with its texts copied, for the commit thread.
    pub(crate) fn into_owned(self) -> Pending<'static> {
        Pending {
            collection: Cow::Owned(self.collection.into_owned()),
            entry: Cow::Owned(self.entry.into_owned()),
            taught_by: Cow::Owned(self.taught_by.into_owned()),
            reason: self.reason.map(|reason| Cow::Owned(reason.into_owned())),
            absorbed: self.absorbed,
        }
    }
}

impl Shared {
    pub(crate) fn lock_writer(&self) -> std::sync::MutexGuard<'_, ()> {
        self.writer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The writer lock, if no one holds it.
    #[cfg(feature = "tokio")]
    pub(crate) fn try_lock_writer(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        match self.writer.try_lock() {
            Ok(writer) => Some(writer),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// Makes `state` what later pins see, its new versions appended to the
    /// versions every state shares. The caller holds the writer lock.
    pub(crate) fn publish(&self, mut state: State) -> Arc<State> {
        state.publish();
        let published = Arc::new(state);
        self.current.store(published.clone());
        published
    }
}

impl Knowledge {
    /// Opens (or creates) the durable embedded store in `dir`, with every
    /// version it holds.
    #[cfg(feature = "embedded")]
    pub fn open(dir: impl AsRef<std::path::Path>) -> Result<Knowledge, KnowledgeError> {
        Knowledge::with_storage(LogStorage::open(dir)?)
    }

    /// Knowledge kept in memory only, starting empty.
    pub fn in_memory() -> Knowledge {
        Knowledge::from_state(Box::new(StateOnly::default()), State::default(), false)
    }

    /// Knowledge on any back end, with every version it holds. Each stored
    /// version is checked to follow on from the one before; a store whose
    /// history is broken is reported as damaged, never opened with lessons
    /// missing. A back end shared with other processes is watched, so that
    /// their lessons reach this knowledge as they are made.
    pub fn with_storage(storage: impl Storage) -> Result<Knowledge, KnowledgeError> {
        let mut state = State::default();
        extend(&mut state, off_runtime(|| storage.load())?)?;
        let knowledge = Knowledge::from_state(Box::new(storage), state, true);
        let weak: Weak<Shared> = Arc::downgrade(&knowledge.shared);
        let wake: super::Wake = Arc::new(move || {
            if let Some(shared) = weak.upgrade() {
                // A failed catch-up is retried on the next wake or commit.
                let _ = (Knowledge { shared }).catch_up();
            }
        });
        off_runtime(|| knowledge.shared.storage.watch(wake))?;
        // Versions written between the load and the watch.
        knowledge.catch_up()?;
        Ok(knowledge)
    }

    /// Knowledge on `storage`, holding `state`; `stores_versions` is false
    /// when the state is the only store and commits hand `storage` nothing.
    fn from_state(storage: Box<dyn Storage>, mut state: State, stores_versions: bool) -> Knowledge {
        state.publish();
        Knowledge {
            shared: Arc::new_cyclic(|weak: &Weak<Shared>| {
                let weak = weak.clone();
                // The commit thread holds the knowledge only while it
                // commits, so that dropping every handle ends it.
                let commit = move |batch: Vec<Pending<'static>>| -> Option<Results> {
                    let shared = weak.upgrade()?;
                    Some(commit::commit(&shared, &batch))
                };
                let panicked = |message: &str| {
                    Err(TeachError::Store(StoreError::OutcomeUnknown(format!(
                        "the knowledge's back end panicked while storing the lesson ({})",
                        crate::lesson_error::shortened(message)
                    ))))
                };
                Shared {
                    storage,
                    stores_versions,
                    current: Current::new(state),
                    writer: Mutex::new(()),
                    registry: ArcSwap::from_pointee(Registry::new()),
                    registering: Mutex::new(()),
                    committer: Committer::new(commit, panicked),
                    commit_timeout_ms: AtomicU64::new(millis(DEFAULT_COMMIT_TIMEOUT)),
                }
            }),
        }
    }

    /// Sets how long [`Knowledge::teach`] waits for the back end to store a
    /// lesson (for every handle of this knowledge; by default
    /// [`DEFAULT_COMMIT_TIMEOUT`]). A lesson still queued behind a write
    /// that has not finished by then is withdrawn and refused
    /// ([`StoreError::Failed`]: nothing stored); one being stored is
    /// answered with [`StoreError::OutcomeUnknown`]. Either way the
    /// knowledge keeps serving reads.
    ///
    /// ```
    /// let knowledge = learnables::Knowledge::in_memory();
    /// knowledge.set_commit_timeout(std::time::Duration::from_secs(5));
    /// ```
    pub fn set_commit_timeout(&self, timeout: Duration) {
        self.shared
            .commit_timeout_ms
            .store(millis(timeout), Ordering::Relaxed);
    }

    /// Reads the versions other processes sharing the back end have written
    /// since this knowledge last looked, and makes them what later pins see.
    /// Shared back ends call it on their own when told of new versions;
    /// call it to be sure of seeing everything written so far.
    pub fn catch_up(&self) -> Result<(), KnowledgeError> {
        off_runtime(|| {
            let _writer = self.lock_writer();
            self.catch_up_locked()
        })
    }

    fn lock_writer(&self) -> std::sync::MutexGuard<'_, ()> {
        self.shared.lock_writer()
    }

    fn catch_up_locked(&self) -> Result<(), KnowledgeError> {
        let current = self.shared.current.load_full();
        let records = self.shared.storage.load_since(current.position)?;
        if records.is_empty() {
            return Ok(());
        }
        let mut state = State::clone(&current);
        extend(&mut state, records)?;
        self.shared.publish(state);
        Ok(())
    }

    /// Makes `T` teachable: lessons for its collection are parsed as `T`.
    /// Registering the same type again does nothing; another type for the
    /// same collection is refused, and so is a descriptor that breaks the
    /// spec's rules or stored entries that no longer parse as `T`.
    pub fn register<T>(&self) -> Result<(), KnowledgeError>
    where
        T: Learnable + Send + Sync + 'static,
    {
        let descriptor = T::descriptor();
        let collection = descriptor.collection.clone();
        descriptor
            .validate()
            .map_err(|violations| KnowledgeError::InvalidLearnable {
                collection: collection.clone(),
                violations,
            })?;
        let registration = Registration::of::<T>();
        let _registering = self
            .shared
            .registering
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut registry = Registry::clone(&self.shared.registry.load());
        match registry.entry(collection.clone()) {
            MapEntry::Occupied(existing) if existing.get().type_id == registration.type_id => {
                Ok(())
            }
            MapEntry::Occupied(existing) => Err(KnowledgeError::CollectionTaken {
                collection,
                registered: existing.get().type_name,
            }),
            MapEntry::Vacant(vacant) => {
                let state = self.shared.current.load();
                if let Some(stored) = state.collection(&collection) {
                    for stored in state.entries(stored) {
                        if let Err(error) = T::from_lesson_value(&stored.value()) {
                            return Err(KnowledgeError::IncompatibleEntry {
                                collection,
                                entry: stored.entry().to_owned(),
                                error,
                            });
                        }
                    }
                }
                vacant.insert(registration);
                self.shared.registry.store(Arc::new(registry));
                Ok(())
            }
        }
    }

    /// The collections that can be taught, in no particular order.
    pub fn collections(&self) -> Vec<String> {
        self.shared.registry.load().keys().cloned().collect()
    }

    /// A stored value of `collection` shown by its learnable: the lesson
    /// fields with the value's parts as their defaults (see
    /// [`Learnable::lesson_fields_as_learned`]). `None` when no learnable is
    /// registered for the collection.
    pub fn lesson_fields_as_learned(
        &self,
        collection: &str,
        value: &crate::LessonValue,
    ) -> Option<Result<Vec<crate::LessonField>, crate::LessonError>> {
        let show = self.shared.registry.load().get(collection)?.show;
        Some(show(value))
    }

    /// The knowledge as it is now, for a task to read from until it ends.
    pub fn pin(&self) -> Snapshot {
        Snapshot {
            state: self.shared.current.pin(),
        }
    }

    /// The knowledge as it was at `position` (a [`Snapshot::position`]
    /// kept by a task, say, to resume after a restart pinned to the version
    /// it started on). A position past the latest gives the latest.
    pub fn pin_at(&self, position: u64) -> Snapshot {
        let current = self.shared.current.load_full();
        if position >= current.position {
            return Snapshot { state: current };
        }
        Snapshot {
            state: Arc::new(current.as_of(position)),
        }
    }

    /// The knowledge just after the version `version_id` was made: every
    /// collection as it stood then. For audit.
    pub fn pin_as_of(&self, version_id: &str) -> Result<Snapshot, KnowledgeError> {
        let current = self.shared.current.load();
        let position = current
            .position_of(version_id)
            .ok_or_else(|| KnowledgeError::UnknownVersion(version_id.to_owned()))?;
        Ok(self.pin_at(position))
    }

    /// Every version of `collection`, oldest first.
    pub fn history(&self, collection: &str) -> Vec<VersionRecord> {
        self.shared.current.load().history(collection)
    }

    /// Absorbs a lesson: the learnable registered for its collection parses
    /// the value; if it differs from the entry's current value, a new
    /// version is made durable and becomes what later pins see. The same
    /// value again learns nothing (`learned: false`, no new version). A
    /// refused lesson changes nothing and uses up no version number.
    ///
    /// Lessons are stored on the knowledge's commit thread, which takes
    /// every lesson waiting when it starts writing (group commit); the
    /// caller waits at most the commit timeout
    /// ([`Knowledge::set_commit_timeout`]). (A back end that only writes
    /// local files, such as the embedded store, stores a lesson that finds
    /// nothing else being stored on the teacher's own thread:
    /// [`Storage::may_append_on_teachers_thread`](super::Storage::may_append_on_teachers_thread).) A lesson whose write was sent
    /// but not confirmed (a lost connection, a back end that panicked or
    /// did not answer in time) is answered with
    /// [`StoreError::OutcomeUnknown`]: it may have been absorbed. Safe to
    /// call from async code (it blocks the calling thread; see
    /// `teach_async` with the `tokio` feature for a call that does not).
    pub fn teach(&self, lesson: &Lesson) -> Result<LessonResult, TeachError> {
        let pending = self.absorb(lesson)?;
        if self.shared.storage.appends_without_waiting() {
            return self.commit_in_place(pending);
        }
        let timeout = self.commit_timeout();
        let committer = &self.shared.committer;
        let outcome = if self.shared.storage.may_append_on_teachers_thread() {
            committer.submit_here_when_idle(pending.into_owned(), timeout)
        } else {
            committer.submit(pending.into_owned(), timeout)
        };
        late_as_error(outcome, timeout)
    }

    /// Checks a lesson and has its learnable parse the value: what is left
    /// to commit.
    pub(super) fn absorb<'l>(&self, lesson: &'l Lesson) -> Result<Pending<'l>, TeachError> {
        if lesson.entry.is_empty() {
            return Err(TeachError::EmptyEntry);
        }
        if lesson.taught_by.trim().is_empty() {
            return Err(TeachError::NoTeacher);
        }
        let registration = {
            let registry = self.shared.registry.load();
            match registry.get(&lesson.collection) {
                Some(registration) => *registration,
                None => {
                    let mut known: Vec<String> = registry.keys().cloned().collect();
                    known.sort_unstable();
                    return Err(TeachError::UnknownCollection {
                        collection: crate::lesson_error::shortened(&lesson.collection),
                        known,
                    });
                }
            }
        };
        let absorbed = (registration.absorb)(&lesson.value, &lesson.entry)?;
        Ok(Pending {
            collection: Cow::Borrowed(&lesson.collection),
            entry: Cow::Borrowed(&lesson.entry),
            taught_by: Cow::Borrowed(&lesson.taught_by),
            reason: lesson.reason.as_deref().map(Cow::Borrowed),
            absorbed,
        })
    }

    /// Commits one lesson on the caller's thread, for a back end that
    /// appends without waiting: no hand-over to the commit thread.
    pub(super) fn commit_in_place(&self, pending: Pending<'_>) -> Result<LessonResult, TeachError> {
        self.commit_in_place_holding(&self.lock_writer(), pending)
    }

    /// [`Knowledge::commit_in_place`] by the holder of the writer lock.
    pub(super) fn commit_in_place_holding(
        &self,
        writer: &std::sync::MutexGuard<'_, ()>,
        pending: Pending<'_>,
    ) -> Result<LessonResult, TeachError> {
        commit::commit_holding(writer, &self.shared, std::slice::from_ref(&pending))
            .pop()
            .unwrap_or_else(|| {
                Err(TeachError::Store(StoreError::OutcomeUnknown(
                    "the commit gave no result".to_owned(),
                )))
            })
    }

    pub(super) fn commit_timeout(&self) -> Duration {
        Duration::from_millis(self.shared.commit_timeout_ms.load(Ordering::Relaxed))
    }
}

/// A lesson's result, or the error for one not answered within `timeout`.
pub(super) fn late_as_error(
    outcome: Result<Result<LessonResult, TeachError>, Late>,
    timeout: Duration,
) -> Result<LessonResult, TeachError> {
    match outcome {
        Ok(result) => result,
        Err(Late::Withdrawn) => Err(TeachError::Store(StoreError::Failed(format!(
            "the knowledge's back end did not take the lesson within {timeout:?}: an \
             earlier write has not finished; nothing was stored"
        )))),
        Err(Late::InFlight) => Err(TeachError::Store(StoreError::OutcomeUnknown(format!(
            "the knowledge's back end did not answer within {timeout:?}"
        )))),
    }
}

impl std::fmt::Debug for Knowledge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Knowledge")
            .field("position", &self.shared.current.load().position)
            .field("collections", &self.collections())
            .finish()
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
