//! What every handle of a [`Knowledge`](crate::Knowledge) shares ([`Shared`]):
//! its writer, commit thread, registry of learnables and commit timeout,
//! and the steps the handle's calls go through (registering a type,
//! absorbing a lesson, committing it in place or on the commit thread).

use std::collections::hash_map::Entry as MapEntry;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use crate::Declaration;
use crate::commit_thread::CommitThread;
use crate::core_shared::Registration;
use crate::latest::Latest;
use crate::off_runtime::off_runtime;
use crate::registry::Registry;
use crate::state::State;
use crate::untrusted::Untrusted;
use crate::writer::{Pending, Writer};
use crate::{
    Disagreement, KnowledgeError, OnUnreadable, Storage, StoreError, TeachError, UnreadableReport,
    Wake,
};
use crate::{Lesson, LessonResult};

/// How long a teacher waits for its lesson to be stored before it is told
/// the back end did not answer, unless
/// [`Knowledge::set_commit_timeout`](crate::Knowledge::set_commit_timeout)
/// says otherwise.
pub const DEFAULT_COMMIT_TIMEOUT: Duration = Duration::from_secs(120);

/// The knowledge behind every handle of it.
pub(crate) struct Shared {
    pub(crate) writer: Arc<Writer>,
    /// `None` when the back end does not wait (knowledge in memory):
    /// lessons are committed on the teacher's thread.
    commit_thread: Option<CommitThread>,
    /// Read on every lesson; replaced whole when a learnable is registered
    /// (under `registering`).
    registry: Latest<Registry>,
    registering: Mutex<()>,
    /// Taken by each review decision: reviewers of one process take turns.
    pub(crate) reviewing: Mutex<()>,
    /// How long a teacher waits for its lesson to be stored, in milliseconds.
    commit_timeout_ms: AtomicU64,
    /// How many proposals may wait at once.
    pub(crate) proposal_limits: crate::proposal_limits::HeldLimits,
}

/// A lesson absorbed, committed already or waiting for the commit thread:
/// see [`Shared::dispatch`].
pub(crate) enum Dispatch<'k> {
    /// Committed in place.
    Done(Result<LessonResult, TeachError>),
    /// To submit to the commit thread, to wait for this long at most.
    Queued(&'k CommitThread, Pending<'static>, Duration),
}

impl Shared {
    /// The knowledge of `writer`, committing on `commit_thread` if any.
    pub(crate) fn new(writer: Arc<Writer>, commit_thread: Option<CommitThread>) -> Shared {
        Shared {
            writer,
            commit_thread,
            registry: Latest::new(Registry::new()),
            registering: Mutex::new(()),
            reviewing: Mutex::new(()),
            commit_timeout_ms: AtomicU64::new(millis(DEFAULT_COMMIT_TIMEOUT)),
            proposal_limits: crate::proposal_limits::HeldLimits::new(
                crate::ProposalLimits::DEFAULT,
            ),
        }
    }

    /// The knowledge of `storage`, which holds the versions `state` was
    /// built of, with a commit thread, watching the back end for versions
    /// other processes write.
    pub(crate) fn on_storage(
        storage: impl Storage,
        state: State,
    ) -> Result<Arc<Shared>, KnowledgeError> {
        let writer = Arc::new(Writer::new(Box::new(storage), state));
        let commit_thread = CommitThread::start(Arc::downgrade(&writer))?;
        let shared = Arc::new(Shared::new(writer, Some(commit_thread)));
        let weak: Weak<Writer> = Arc::downgrade(&shared.writer);
        let wake: Wake = Arc::new(move || {
            if let Some(writer) = weak.upgrade() {
                // A failed catch-up is retried on the next wake or commit.
                let _ = writer.catch_up();
            }
        });
        off_runtime(|| shared.writer.storage().watch(wake))?;
        // Versions written between the load and the watch.
        shared.catch_up()?;
        Ok(shared)
    }

    /// Reads the versions other processes wrote since the last look.
    pub(crate) fn catch_up(&self) -> Result<(), KnowledgeError> {
        Ok(off_runtime(|| self.writer.catch_up())?)
    }

    /// Sets how long a teacher waits for its lesson to be stored.
    pub(crate) fn set_commit_timeout(&self, timeout: Duration) {
        self.commit_timeout_ms
            .store(millis(timeout), Ordering::Relaxed);
    }

    fn commit_timeout(&self) -> Duration {
        Duration::from_millis(self.commit_timeout_ms.load(Ordering::Relaxed))
    }

    /// The knowledge's current state.
    pub(crate) fn current(&self) -> Arc<State> {
        self.writer.current()
    }

    /// Every learnable registered, by collection.
    pub(crate) fn registry(&self) -> Arc<Registry> {
        self.registry.get()
    }

    /// Registers the type `registration` is of: see
    /// [`Knowledge::register_with`](crate::Knowledge::register_with).
    pub(crate) fn register(
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
            .registering
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut registry = Registry::clone(&self.registry.get());
        let vacant = match registry.entry(collection.clone()) {
            MapEntry::Occupied(existing) if existing.get().type_id == registration.type_id => {
                return Ok(UnreadableReport::default());
            }
            MapEntry::Occupied(existing) => {
                return Err(KnowledgeError::CollectionTaken {
                    collection,
                    registered: existing.get().type_name,
                });
            }
            MapEntry::Vacant(vacant) => vacant,
        };
        let state = self.writer.current();
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
        self.registry.set(Arc::new(registry));
        Ok(report)
    }

    /// Registers every learnable `declaration` declares, then checks that
    /// they are one list: see
    /// [`Knowledge::register_declaration`](crate::Knowledge::register_declaration).
    pub(crate) fn register_declaration(
        &self,
        declaration: &Declaration,
        on_unreadable: OnUnreadable,
    ) -> Result<UnreadableReport, KnowledgeError> {
        let mut report = UnreadableReport::default();
        for registration in declaration.registrations() {
            match self.register(registration, on_unreadable) {
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
        let registry = self.registry.get();
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

    /// The learnable registered for `collection`.
    pub(crate) fn registration(&self, collection: &str) -> Result<Registration, TeachError> {
        let registry = self.registry.get();
        match registry.get(collection) {
            Some(registration) => Ok(*registration),
            None => {
                let mut known: Vec<String> = registry.keys().cloned().collect();
                known.sort_unstable();
                Err(TeachError::UnknownCollection {
                    collection: crate::core_shared::shortened(collection),
                    known,
                })
            }
        }
    }

    /// Checks a lesson and has its learnable parse the value: what is left
    /// to commit.
    pub(crate) fn absorb<'l>(&self, lesson: &'l Lesson) -> Result<Pending<'l>, TeachError> {
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

    /// Commits a lesson absorbed, waiting on this thread (see
    /// [`Shared::dispatch`]).
    pub(crate) fn commit(&self, pending: Pending<'_>) -> Result<LessonResult, TeachError> {
        match self.dispatch(pending) {
            Dispatch::Done(result) => result,
            Dispatch::Queued(thread, pending, timeout) => thread.submit(pending, timeout),
        }
    }

    /// Where a lesson absorbed is committed, for blocking and async callers
    /// alike: in place for a back end that does not wait (there is no write
    /// to wait for), else queued for the commit thread with the commit
    /// timeout, its texts copied for that thread.
    pub(crate) fn dispatch(&self, pending: Pending<'_>) -> Dispatch<'_> {
        let Some(thread) = &self.commit_thread else {
            let result = self
                .writer
                .commit(std::slice::from_ref(&pending))
                .pop()
                .unwrap_or_else(|| {
                    Err(TeachError::Store(StoreError::OutcomeUnknown(
                        "the commit gave no result".to_owned().into(),
                    )))
                });
            return Dispatch::Done(result);
        };
        Dispatch::Queued(thread, pending.into_owned(), self.commit_timeout())
    }
}

/// Dropping the last handle ends the commit thread after it has committed
/// every lesson queued (an async teacher's whose task was dropped too), so
/// that the back end is closed when the drop returns: the store can be
/// opened again at once. A back end that hangs holds the drop no longer
/// than the commit timeout.
impl Drop for Shared {
    fn drop(&mut self) {
        let wait = self.commit_timeout();
        if let Some(thread) = &mut self.commit_thread {
            thread.close(wait);
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
