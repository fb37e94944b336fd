//! [`Knowledge`]: the handle an agent teaches and reads through.

use std::collections::hash_map::Entry as MapEntry;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

#[cfg(feature = "embedded")]
use super::LogStorage;
use super::commit_thread::CommitThread;
use super::latest::Latest;
use super::off_runtime::off_runtime;
use super::registry::Registry;
use super::state::State;
use super::storage::StateOnly;
use super::writer::{Pending, Writer, extend};
use super::{
    Disagreement, KnowledgeError, OnUnreadable, Snapshot, Storage, StoreError, TeachError,
    UnreadableReport, VersionRecord,
};
use crate::Declaration;
use crate::Learnable;
use crate::shared::Registration;
use crate::untrusted::Untrusted;
use crate::{Lesson, LessonResult};

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
    pub(crate) writer: Arc<Writer>,
    /// `None` when the back end does not wait ([`Knowledge::in_memory`]):
    /// lessons are committed on the teacher's thread.
    commit_thread: Option<CommitThread>,
    /// Read on every lesson; replaced whole when a learnable is registered
    /// (under `registering`).
    registry: Latest<Registry>,
    registering: Mutex<()>,
    /// How long a teacher waits for its lesson to be stored, in milliseconds.
    commit_timeout_ms: AtomicU64,
    /// Taken by each review decision: reviewers of one process take turns.
    pub(super) reviewing: Mutex<()>,
}

impl Knowledge {
    /// Opens (or creates) the durable embedded store in `dir`, with every
    /// version it holds.
    #[cfg(feature = "embedded")]
    pub fn open(dir: impl AsRef<std::path::Path>) -> Result<Knowledge, KnowledgeError> {
        let mut state = State::default();
        let storage = LogStorage::open_into(dir.as_ref(), &mut state)?;
        Knowledge::with_state(storage, state)
    }

    /// Knowledge kept in memory only, starting empty. Its lessons are
    /// committed on the teacher's own thread: there is no write to wait for.
    pub fn in_memory() -> Knowledge {
        let writer = Arc::new(Writer::new(
            Box::new(StateOnly::default()),
            State::default(),
        ));
        Knowledge::from_parts(writer, None)
    }

    /// Knowledge on any back end, with every version it holds. Each stored
    /// version is checked to follow on from the one before; a store whose
    /// history is broken is reported as damaged, never opened with lessons
    /// missing. A back end shared with other processes is watched, so that
    /// their lessons reach this knowledge as they are made. Lessons are
    /// stored by the knowledge's commit thread.
    pub fn with_storage(storage: impl Storage) -> Result<Knowledge, KnowledgeError> {
        let mut state = State::default();
        extend(&mut state, off_runtime(|| storage.load())?)?;
        Knowledge::with_state(storage, state)
    }

    /// Knowledge on `storage`, which holds the versions `state` was built
    /// of (checked to follow on): see [`Knowledge::with_storage`].
    fn with_state(storage: impl Storage, state: State) -> Result<Knowledge, KnowledgeError> {
        let writer = Arc::new(Writer::new(Box::new(storage), state));
        let commit_thread = CommitThread::start(Arc::downgrade(&writer))?;
        let knowledge = Knowledge::from_parts(writer, Some(commit_thread));
        let weak: Weak<Writer> = Arc::downgrade(&knowledge.shared.writer);
        let wake: super::Wake = Arc::new(move || {
            if let Some(writer) = weak.upgrade() {
                // A failed catch-up is retried on the next wake or commit.
                let _ = writer.catch_up();
            }
        });
        off_runtime(|| knowledge.shared.writer.storage().watch(wake))?;
        // Versions written between the load and the watch.
        knowledge.catch_up()?;
        Ok(knowledge)
    }

    fn from_parts(writer: Arc<Writer>, commit_thread: Option<CommitThread>) -> Knowledge {
        Knowledge {
            shared: Arc::new(Shared {
                writer,
                commit_thread,
                registry: Latest::new(Registry::new()),
                registering: Mutex::new(()),
                commit_timeout_ms: AtomicU64::new(millis(DEFAULT_COMMIT_TIMEOUT)),
                reviewing: Mutex::new(()),
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
        Ok(off_runtime(|| self.shared.writer.catch_up())?)
    }

    /// Makes `T` teachable: lessons for its collection are parsed as `T`.
    /// Registering the same type again does nothing; another type for the
    /// same collection is refused, and so is a descriptor that breaks the
    /// spec's rules. Every stored version of the collection is read as `T`
    /// (each entry's latest and every earlier one a pin may reach): where
    /// some do not read, the error is one report of every such version,
    /// grouped by cause, each with its fix ([`KnowledgeError::Unreadable`]);
    /// [`Knowledge::register_with`] can register anyway.
    ///
    /// An agent served by [`LearnablesService`](crate::a2a::LearnablesService)
    /// need not call it: the service registers every learnable its
    /// declaration declares.
    pub fn register<T>(&self) -> Result<(), KnowledgeError>
    where
        T: Learnable + Send + Sync + 'static,
    {
        self.register_with::<T>(OnUnreadable::Refuse).map(drop)
    }

    /// [`Knowledge::register`], deciding what to do when stored versions
    /// do not read as `T`: refuse ([`OnUnreadable::Refuse`], the report is
    /// the error), or register anyway ([`OnUnreadable::TreatAsUnknown`]:
    /// those entries read as unknown, and the report is returned). Stored
    /// versions are never rewritten or dropped. Registering a type already
    /// registered reports nothing.
    ///
    /// ```
    /// use learnables::Knowledge;
    /// use learnables::knowledge::OnUnreadable;
    /// # #[derive(learnables::Learnable, Clone, Debug)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// let report = knowledge.register_with::<RoutingRule>(OnUnreadable::TreatAsUnknown)?;
    /// assert!(report.is_empty());
    /// # Ok::<(), learnables::KnowledgeError>(())
    /// ```
    pub fn register_with<T>(
        &self,
        on_unreadable: OnUnreadable,
    ) -> Result<UnreadableReport, KnowledgeError>
    where
        T: Learnable + Send + Sync + 'static,
    {
        self.register_registration(Registration::of::<T>(), on_unreadable)
    }

    /// [`Knowledge::register_with`] of the type `registration` is of.
    fn register_registration(
        &self,
        registration: Registration,
        on_unreadable: OnUnreadable,
    ) -> Result<UnreadableReport, KnowledgeError> {
        let descriptor = (registration.descriptor)();
        let collection = descriptor.collection.clone();
        descriptor
            .validate()
            .map_err(|violations| KnowledgeError::InvalidLearnable {
                collection: collection.clone(),
                violations,
            })?;
        let _registering = self
            .shared
            .registering
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut registry = Registry::clone(&self.shared.registry.get());
        match registry.entry(collection.clone()) {
            MapEntry::Occupied(existing) if existing.get().type_id == registration.type_id => {
                Ok(UnreadableReport::default())
            }
            MapEntry::Occupied(existing) => Err(KnowledgeError::CollectionTaken {
                collection,
                registered: existing.get().type_name,
            }),
            MapEntry::Vacant(vacant) => {
                let state = self.shared.writer.current();
                let mut report = UnreadableReport::default();
                for stored in state.collection_versions(&collection) {
                    if stored.retracted {
                        continue;
                    }
                    if let Err(error) = (registration.reads)(&stored.value()) {
                        report.add(&collection, &stored.entry, &error);
                    }
                }
                if !report.is_empty() && on_unreadable == OnUnreadable::Refuse {
                    return Err(KnowledgeError::Unreadable(report));
                }
                if !report.is_empty() {
                    // Started anyway: an operator must hear which entries the
                    // agent now treats as unknown, not find out from its questions.
                    let mut entries: Vec<String> = report
                        .causes()
                        .iter()
                        .flat_map(|cause| cause.entries())
                        .map(|entry| Untrusted::new(entry).to_string())
                        .collect();
                    entries.sort_unstable();
                    entries.dedup();
                    tracing::warn!(
                        collection = %Untrusted::new(&collection),
                        entries = %entries.join(", "),
                        "started with stored versions that do not read: these entries are treated as unknown until taught again"
                    );
                }
                vacant.insert(registration);
                self.shared.registry.set(Arc::new(registry));
                Ok(report)
            }
        }
    }

    /// Registers every learnable `declaration` declares (with
    /// [`Declaration::learnable`]), then checks that the declaration and
    /// this knowledge are one list: each declared collection read by its
    /// declared type, each registered one declared
    /// ([`KnowledgeError::Disagrees`] says how they are not). Stored
    /// versions that do not read are reported for every declared type at
    /// once, as [`Knowledge::register_with`] does for one.
    /// [`LearnablesService::try_new`](crate::a2a::LearnablesService::try_new)
    /// calls it.
    ///
    /// ```
    /// use learnables::knowledge::{Disagreement, OnUnreadable};
    /// use learnables::{Declaration, Knowledge, KnowledgeError, Learnable};
    /// # #[derive(Learnable, Clone, Debug)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// let declaration = Declaration::new().learnable::<RoutingRule>();
    /// knowledge.register_declaration(&declaration, OnUnreadable::Refuse)?;
    /// assert_eq!(knowledge.collections(), ["routing_rules"]);
    ///
    /// // A learnable declared by hand has no type to read it.
    /// let by_hand = Declaration::new().descriptor(RoutingRule::descriptor().clone());
    /// let other = Knowledge::in_memory();
    /// let Err(KnowledgeError::Disagrees { disagreement, .. }) =
    ///     other.register_declaration(&by_hand, OnUnreadable::Refuse) else { panic!() };
    /// assert_eq!(disagreement, Disagreement::NotReadable);
    /// # Ok::<(), KnowledgeError>(())
    /// ```
    pub fn register_declaration(
        &self,
        declaration: &Declaration,
        on_unreadable: OnUnreadable,
    ) -> Result<UnreadableReport, KnowledgeError> {
        let mut report = UnreadableReport::default();
        for registration in declaration.registrations() {
            match self.register_registration(registration, on_unreadable) {
                Ok(more) | Err(KnowledgeError::Unreadable(more)) => report.extend(more),
                Err(error) => return Err(error),
            }
        }
        if !report.is_empty() && on_unreadable == OnUnreadable::Refuse {
            return Err(KnowledgeError::Unreadable(report));
        }
        self.agrees_with(declaration)?;
        Ok(report)
    }

    /// Whether `declaration` declares exactly the learnables this
    /// knowledge reads, each as its registered type describes it.
    fn agrees_with(&self, declaration: &Declaration) -> Result<(), KnowledgeError> {
        let registry = self.shared.registry.get();
        let declared = &declaration.params().learnables;
        let disagrees = |collection: &str, disagreement| KnowledgeError::Disagrees {
            collection: collection.to_owned(),
            disagreement,
        };
        for descriptor in declared {
            match registry.get(&descriptor.collection) {
                None => return Err(disagrees(&descriptor.collection, Disagreement::NotReadable)),
                Some(registered) if (registered.descriptor)() != descriptor => {
                    return Err(disagrees(
                        &descriptor.collection,
                        Disagreement::OtherDescriptor,
                    ));
                }
                Some(_) => {}
            }
        }
        let mut undeclared: Vec<&String> = registry
            .keys()
            .filter(|collection| !declared.iter().any(|d| &d.collection == *collection))
            .collect();
        undeclared.sort_unstable();
        match undeclared.first() {
            Some(collection) => Err(disagrees(collection, Disagreement::NotDeclared)),
            None => Ok(()),
        }
    }

    /// The collections that can be taught, in no particular order.
    pub fn collections(&self) -> Vec<String> {
        self.shared.registry.get().keys().cloned().collect()
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
        let show = self.shared.registry.get().get(collection)?.show;
        Some(show(value))
    }

    /// What a stored value of `collection` says of entry `entry` in words,
    /// as its learnable phrases it now (aliases and defaults applied: the
    /// sentence agrees with [`Knowledge::lesson_fields_as_learned`]). `None`
    /// when no learnable is registered for the collection.
    ///
    /// ```
    /// use learnables::{Knowledge, Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules",
    /// #     describes = "Chapter {entry} goes to the {desk} desk")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>()?;
    /// let value = LessonValue::try_from(serde_json::json!({"desk": "general"})).unwrap();
    /// let said = knowledge.describes_as_learned("routing_rules", "85", &value);
    /// assert_eq!(said, Some(Ok("Chapter 85 goes to the general desk".to_owned())));
    /// # Ok::<(), learnables::KnowledgeError>(())
    /// ```
    pub fn describes_as_learned(
        &self,
        collection: &str,
        entry: &str,
        value: &crate::LessonValue,
    ) -> Option<Result<String, crate::LessonError>> {
        self.shown_as_learned(collection, entry, value)
            .map(|shown| shown.map(|(_, describes)| describes))
    }

    /// [`Knowledge::lesson_fields_as_learned`] and
    /// [`Knowledge::describes_as_learned`] from one read of the value, for
    /// show-back.
    pub(crate) fn shown_as_learned(
        &self,
        collection: &str,
        entry: &str,
        value: &crate::LessonValue,
    ) -> Option<Result<(Vec<crate::LessonField>, String), crate::LessonError>> {
        let shown = self.shared.registry.get().get(collection)?.shown;
        Some(shown(value, entry))
    }

    /// The knowledge as it is now, for a task to read from until it ends.
    pub fn pin(&self) -> Snapshot {
        Snapshot::of(self.shared.writer.current())
    }

    /// The knowledge as it was at `position` (a [`Snapshot::position`]
    /// kept by a task, say, to resume after a restart pinned to the version
    /// it started on). A position past the latest gives the latest.
    pub fn pin_at(&self, position: u64) -> Snapshot {
        Snapshot::of_past(self.shared.writer.current(), position)
    }

    /// The knowledge just after the version `version_id` was made: every
    /// collection as it stood then. For audit.
    pub fn pin_as_of(&self, version_id: &str) -> Result<Snapshot, KnowledgeError> {
        let current = self.shared.writer.current();
        let position = current
            .by_id(version_id)
            .map(|version| version.position)
            .ok_or_else(|| KnowledgeError::UnknownVersion(version_id.to_owned()))?;
        Ok(self.pin_at(position))
    }

    /// Every version of `collection`, oldest first.
    pub fn history(&self, collection: &str) -> Vec<VersionRecord> {
        self.shared.writer.current().history(collection)
    }

    /// Absorbs a lesson: the learnable registered for its collection parses
    /// the value; if it differs from the entry's current value, a new
    /// version is made durable and becomes what later pins see. The same
    /// value again learns nothing (`learned: false`, no new version). A
    /// refused lesson changes nothing and uses up no version number.
    ///
    /// A knowledge on a back end that does not wait
    /// ([`Knowledge::in_memory`]) stores the lesson on the caller's thread.
    /// Any other stores it on the knowledge's commit thread, which takes
    /// every lesson waiting as one batch (group commit); the caller sleeps
    /// until its answer, for the commit timeout at most
    /// ([`Knowledge::set_commit_timeout`]). A
    /// lesson whose write was sent but not confirmed (a lost connection, a
    /// back end that panicked or did not answer in time) is answered with
    /// [`StoreError::OutcomeUnknown`]: it may have been absorbed. Safe to
    /// call from async code (it blocks the calling thread; see
    /// `teach_async` with the `tokio` feature for a call that does not).
    ///
    /// A lesson of a learnable declared with review is checked the same
    /// way, then kept as a proposal based on the entry's current version:
    /// `learned: false`, `describes` saying it waits for review and what it
    /// would teach, the version unchanged, and its `proposal_id`. Nothing a
    /// task reads changes until [`Knowledge::review`] approves it.
    pub fn teach(&self, lesson: &Lesson) -> Result<LessonResult, TeachError> {
        self.commit_or_propose(self.absorb(lesson)?)
    }

    /// Commits a lesson absorbed, waiting on this thread (see
    /// [`Knowledge::dispatch`]).
    pub(super) fn commit(&self, pending: Pending<'_>) -> Result<LessonResult, TeachError> {
        match self.dispatch(pending) {
            Dispatch::Done(result) => result,
            Dispatch::Queued(thread, pending, timeout) => thread.submit(pending, timeout),
        }
    }

    /// Where a lesson absorbed is committed, for blocking and async callers
    /// alike: in place for a back end that does not wait (there is no write
    /// to wait for), else queued for the commit thread with the commit
    /// timeout, its texts copied for that thread.
    pub(super) fn dispatch(&self, pending: Pending<'_>) -> Dispatch<'_> {
        match &self.shared.commit_thread {
            None => Dispatch::Done(self.commit_in_place(pending)),
            Some(thread) => Dispatch::Queued(thread, pending.into_owned(), self.commit_timeout()),
        }
    }

    /// Checks a lesson and has its learnable parse the value: what is left
    /// to commit.
    pub(super) fn absorb<'l>(&self, lesson: &'l Lesson) -> Result<Pending<'l>, TeachError> {
        Pending::check_names(&lesson.collection, &lesson.entry, &lesson.taught_by)?;
        let registration = self.registration(&lesson.collection)?;
        let absorbed = (registration.absorb)(&lesson.value, &lesson.entry)?.into();
        Ok(Pending::borrowed(
            &lesson.collection,
            &lesson.entry,
            &lesson.taught_by,
            lesson.reason.as_deref(),
            absorbed,
            false,
        ))
    }

    /// Every learnable registered, by collection.
    pub(super) fn registry(&self) -> Arc<Registry> {
        self.shared.registry.get()
    }

    /// The learnable registered for `collection`.
    pub(super) fn registration(&self, collection: &str) -> Result<Registration, TeachError> {
        let registry = self.shared.registry.get();
        match registry.get(collection) {
            Some(registration) => Ok(*registration),
            None => {
                let mut known: Vec<String> = registry.keys().cloned().collect();
                known.sort_unstable();
                Err(TeachError::UnknownCollection {
                    collection: crate::shared::shortened(collection),
                    known,
                })
            }
        }
    }

    /// The knowledge's current state.
    pub(super) fn current(&self) -> Arc<State> {
        self.shared.writer.current()
    }

    /// Commits one lesson on the caller's thread, for a back end that
    /// does not wait.
    pub(super) fn commit_in_place(&self, pending: Pending<'_>) -> Result<LessonResult, TeachError> {
        self.shared
            .writer
            .commit(std::slice::from_ref(&pending))
            .pop()
            .unwrap_or_else(|| {
                Err(TeachError::Store(StoreError::OutcomeUnknown(
                    "the commit gave no result".to_owned().into(),
                )))
            })
    }

    pub(super) fn commit_timeout(&self) -> Duration {
        Duration::from_millis(self.shared.commit_timeout_ms.load(Ordering::Relaxed))
    }
}

/// Dropping the last handle ends the commit thread after it has committed
/// every lesson queued (an async teacher's whose task was dropped too), so
/// that the back end is closed when the drop returns: the store can be
/// opened again at once. A back end that hangs holds the drop no longer
/// than the commit timeout.
impl Drop for Shared {
    fn drop(&mut self) {
        let wait = Duration::from_millis(self.commit_timeout_ms.load(Ordering::Relaxed));
        if let Some(thread) = &mut self.commit_thread {
            thread.close(wait);
        }
    }
}

impl std::fmt::Debug for Knowledge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Knowledge")
            .field("position", &self.shared.writer.current().position())
            .field("collections", &self.collections())
            .finish()
    }
}

/// A lesson absorbed, committed already or waiting for the commit thread:
/// see [`Knowledge::dispatch`].
pub(super) enum Dispatch<'k> {
    /// Committed in place.
    Done(Result<LessonResult, TeachError>),
    /// To submit to the commit thread, to wait for this long at most.
    Queued(&'k CommitThread, Pending<'static>, Duration),
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
