//! Knowledge: immutable versions of what an agent has been taught, pinned
//! snapshots for running tasks, and the back ends that keep the versions.
//!
//! Each lesson absorbed makes one new version of its collection (a linear
//! history per collection, `definitionVersion` 1, 2, 3, ...) and one new
//! position of the whole knowledge. A [`Snapshot`] pinned before the lesson
//! keeps seeing the knowledge as it was.

mod committer;
#[cfg(feature = "postgres")]
mod connect;
mod error;
mod registry;
mod snapshot;
mod state;
mod storage;
mod version_record;

use std::collections::hash_map::Entry as MapEntry;
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};

use arc_swap::ArcSwap;

pub use error::{KnowledgeError, TeachError};
pub use snapshot::{CollectionVersion, Snapshot};
#[cfg(feature = "postgres")]
pub use storage::PostgresStorage;
#[cfg(feature = "embedded")]
pub use storage::RedbStorage;
pub use storage::{MemoryStorage, Storage, StoreError, Wake};
pub use version_record::VersionRecord;

use self::committer::Committer;
use self::registry::{Absorbed, Registration, Registry};
use self::state::State;
use crate::{Learnable, Lesson, LessonResult};

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
    shared: Arc<Shared>,
}

struct Shared {
    storage: Box<dyn Storage>,
    current: ArcSwap<State>,
    /// Held by whoever moves `current` forward: a commit, or a catch-up on
    /// versions other processes wrote.
    writer: Mutex<()>,
    registry: RwLock<Registry>,
    committer: Committer<Pending, Result<LessonResult, TeachError>>,
}

/// A lesson absorbed by its learnable, waiting to be committed.
struct Pending {
    collection: String,
    entry: String,
    taught_by: String,
    reason: Option<String>,
    absorbed: Absorbed,
}

impl Knowledge {
    /// Opens (or creates) the durable embedded store in `dir`, with every
    /// version it holds.
    #[cfg(feature = "embedded")]
    pub fn open(dir: impl AsRef<std::path::Path>) -> Result<Knowledge, KnowledgeError> {
        Knowledge::with_storage(RedbStorage::open(dir)?)
    }

    /// Knowledge kept in memory only, starting empty.
    pub fn in_memory() -> Knowledge {
        Knowledge::from_state(Box::new(MemoryStorage::default()), State::default())
    }

    /// Knowledge on any back end, with every version it holds. Each stored
    /// version is checked to follow on from the one before; a store whose
    /// history is broken is reported as damaged, never opened with lessons
    /// missing. A back end shared with other processes is watched, so that
    /// their lessons reach this knowledge as they are made.
    pub fn with_storage(storage: impl Storage) -> Result<Knowledge, KnowledgeError> {
        let mut state = State::default();
        extend(&mut state, storage.load()?)?;
        let knowledge = Knowledge::from_state(Box::new(storage), state);
        let weak: Weak<Shared> = Arc::downgrade(&knowledge.shared);
        knowledge.shared.storage.watch(Arc::new(move || {
            if let Some(shared) = weak.upgrade() {
                // A failed catch-up is retried on the next wake or commit.
                let _ = (Knowledge { shared }).catch_up();
            }
        }))?;
        // Versions written between the load and the watch.
        knowledge.catch_up()?;
        Ok(knowledge)
    }

    fn from_state(storage: Box<dyn Storage>, state: State) -> Knowledge {
        Knowledge {
            shared: Arc::new(Shared {
                storage,
                current: ArcSwap::from_pointee(state),
                writer: Mutex::new(()),
                registry: RwLock::new(Registry::new()),
                committer: Committer::new(),
            }),
        }
    }

    /// Reads the versions other processes sharing the back end have written
    /// since this knowledge last looked, and makes them what later pins see.
    /// Shared back ends call it on their own when told of new versions;
    /// call it to be sure of seeing everything written so far.
    pub fn catch_up(&self) -> Result<(), KnowledgeError> {
        let _writer = self.lock_writer();
        self.catch_up_locked()
    }

    fn lock_writer(&self) -> std::sync::MutexGuard<'_, ()> {
        self.shared
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn catch_up_locked(&self) -> Result<(), KnowledgeError> {
        let current = self.shared.current.load_full();
        let records = self.shared.storage.load_since(current.position)?;
        if records.is_empty() {
            return Ok(());
        }
        let mut state = State::clone(&current);
        extend(&mut state, records)?;
        self.shared.current.store(Arc::new(state));
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
        let mut registry = self
            .shared
            .registry
            .write()
            .unwrap_or_else(PoisonError::into_inner);
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
                    for (entry, stored) in stored.entries.iter() {
                        if let Err(error) = T::from_lesson_value(&stored.record.value) {
                            return Err(KnowledgeError::IncompatibleEntry {
                                collection,
                                entry: entry.to_string(),
                                error,
                            });
                        }
                    }
                }
                vacant.insert(registration);
                Ok(())
            }
        }
    }

    /// The collections that can be taught, in no particular order.
    pub fn collections(&self) -> Vec<String> {
        self.shared
            .registry
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
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
        let show = self
            .shared
            .registry
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(collection)?
            .show;
        Some(show(value))
    }

    /// The knowledge as it is now, for a task to read from until it ends.
    pub fn pin(&self) -> Snapshot {
        Snapshot {
            state: self.shared.current.load_full(),
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
    pub fn teach(&self, lesson: &Lesson) -> Result<LessonResult, TeachError> {
        if lesson.entry.is_empty() {
            return Err(TeachError::EmptyEntry);
        }
        if lesson.taught_by.trim().is_empty() {
            return Err(TeachError::NoTeacher);
        }
        let registration = {
            let registry = self
                .shared
                .registry
                .read()
                .unwrap_or_else(PoisonError::into_inner);
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
        let pending = Pending {
            collection: lesson.collection.clone(),
            entry: lesson.entry.clone(),
            taught_by: lesson.taught_by.clone(),
            reason: lesson.reason.clone(),
            absorbed,
        };
        self.shared
            .committer
            .submit(pending, |batch| self.commit(batch))
    }

    /// Commits a batch: decides each lesson's version against the state as
    /// the batch's earlier lessons leave it, writes the new versions in one
    /// durable append, and only then publishes the new state. If another
    /// process sharing the back end wrote first, catches up on its versions
    /// and decides again.
    fn commit(&self, batch: Vec<Pending>) -> Vec<Result<LessonResult, TeachError>> {
        let _writer = self.lock_writer();
        let mut attempts = 0;
        loop {
            let current = self.shared.current.load_full();
            let (working, records, results) = decide(&current, &batch);
            if records.is_empty() {
                return results;
            }
            let error = match self.shared.storage.append(&records) {
                Ok(()) => {
                    self.shared.current.store(Arc::new(working));
                    return results;
                }
                Err(error) => error,
            };
            attempts += 1;
            let retry = matches!(error, StoreError::Conflict { .. }) && attempts < MAX_ATTEMPTS;
            if retry {
                backoff(attempts);
            }
            let caught_up = retry && self.catch_up_locked().is_ok();
            if !caught_up {
                return batch
                    .iter()
                    .map(|_| Err(TeachError::Store(error.clone())))
                    .collect();
            }
        }
    }
}

/// How many times a commit is decided again after other processes wrote
/// first, before the lesson is refused.
const MAX_ATTEMPTS: usize = 32;

/// A short, growing, jittered pause before deciding again after a conflict,
/// so that replicas contending for the same store take turns instead of
/// colliding again at once.
fn backoff(attempts: usize) {
    let jitter = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| u64::from(since.subsec_nanos()) % 400);
    let step = u64::try_from(attempts.min(16)).unwrap_or(16);
    std::thread::sleep(std::time::Duration::from_micros(100 * step + jitter));
}

/// Applies stored records after `state`'s position, each checked to follow on.
fn extend(state: &mut State, records: Vec<VersionRecord>) -> Result<(), StoreError> {
    for record in records {
        state.follows_on(&record).map_err(StoreError::Damaged)?;
        state.apply(Arc::new(record));
    }
    Ok(())
}

/// Decides what a batch of lessons makes of `current`: the state after
/// them, the new versions to store, and each lesson's result.
#[allow(clippy::type_complexity)]
fn decide(
    current: &State,
    batch: &[Pending],
) -> (
    State,
    Vec<VersionRecord>,
    Vec<Result<LessonResult, TeachError>>,
) {
    let mut working = current.clone();
    let mut records = Vec::new();
    let mut results = Vec::with_capacity(batch.len());
    for pending in batch {
        let collection = working.collection(&pending.collection);
        let head = collection.and_then(|collection| collection.head.clone());
        let unchanged = collection
            .and_then(|collection| collection.entries.get(pending.entry.as_str()))
            .is_some_and(|stored| stored.record.value == pending.absorbed.value);
        if unchanged && let Some(head) = head {
            results.push(Ok(LessonResult {
                learned: false,
                describes: pending.absorbed.describes.clone(),
                definition_version: head.definition_version,
                version_id: Some(head.version_id.clone()),
                previous_version_id: head.previous_version_id.clone(),
            }));
            continue;
        }
        let record = VersionRecord {
            position: working.position + 1,
            collection: pending.collection.clone(),
            definition_version: head.as_ref().map_or(0, |head| head.definition_version) + 1,
            version_id: new_version_id(),
            previous_version_id: head.map(|head| head.version_id.clone()),
            entry: pending.entry.clone(),
            value: pending.absorbed.value.clone(),
            taught_by: pending.taught_by.clone(),
            reason: pending.reason.clone(),
            describes: pending.absorbed.describes.clone(),
            taught_at_ms: version_record::now_ms(),
        };
        results.push(Ok(LessonResult {
            learned: true,
            describes: record.describes.clone(),
            definition_version: record.definition_version,
            version_id: Some(record.version_id.clone()),
            previous_version_id: record.previous_version_id.clone(),
        }));
        let shared = Arc::new(record.clone());
        working.apply(shared.clone());
        if let Some(stored) = working
            .collection(&shared.collection)
            .and_then(|collection| collection.entries.get(shared.entry.as_str()))
        {
            let _ = stored.typed.set(pending.absorbed.typed.clone());
        }
        records.push(record);
    }
    (working, records, results)
}

impl std::fmt::Debug for Knowledge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Knowledge")
            .field("position", &self.shared.current.load().position)
            .field("collections", &self.collections())
            .finish()
    }
}

/// A new unique version id: a UUID v7, so ids also sort by time.
fn new_version_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
