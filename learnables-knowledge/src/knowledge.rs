//! [`Knowledge`]: the handle an agent teaches and reads through.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "embedded")]
use crate::LogStorage;
#[cfg(feature = "postgres")]
use crate::PostgresStorage;
use crate::core_shared::Registration;
use crate::off_runtime::off_runtime;
use crate::shared::Shared;
use crate::state::State;
use crate::storage::MemoryStorage;
use crate::writer::{Writer, extend};
use crate::{Declaration, Learnable, Lesson, LessonError, LessonResult, Review};
use crate::{FieldChange, Proposal, StoreError};
use crate::{
    ImportError, KnowledgeError, OnUnreadable, Snapshot, Storage, TeachError, UnreadableReport,
    VersionRecord, export, import, revert,
};

#[doc = include_str!("docs/knowledge.md")]
#[derive(Clone)]
pub struct Knowledge {
    shared: Arc<Shared>,
}

impl Knowledge {
    /// Opens (or creates) the durable embedded store in `dir`, with every
    /// version it holds.
    #[cfg(feature = "embedded")]
    pub fn open(dir: impl AsRef<std::path::Path>) -> Result<Knowledge, KnowledgeError> {
        let mut state = State::default();
        let storage = LogStorage::open_into(dir.as_ref(), &mut state)?;
        Ok(Knowledge {
            shared: Shared::on_storage(storage, state)?,
        })
    }

    /// Knowledge kept in memory only ([`MemoryStorage`]), starting empty.
    /// Its lessons are committed on the teacher's own thread: there is no
    /// write to wait for.
    pub fn in_memory() -> Knowledge {
        let writer = Writer::new(Box::new(MemoryStorage::default()), State::default());
        Knowledge {
            shared: Arc::new(Shared::new(Arc::new(writer), None)),
        }
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
        Ok(Knowledge {
            shared: Shared::on_storage(storage, state)?,
        })
    }

    #[doc = include_str!("docs/connect.md")]
    #[cfg(feature = "postgres")]
    pub fn connect(url: &str) -> Result<Knowledge, KnowledgeError> {
        Knowledge::with_storage(PostgresStorage::connect(url)?)
    }

    /// [`Knowledge::connect`] for async code: connects, migrates and loads
    /// on tokio's blocking pool.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), learnables_knowledge::KnowledgeError> {
    /// let knowledge = learnables_knowledge::Knowledge::connect_async("postgres://agent@db.internal/k").await?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "postgres")]
    pub async fn connect_async(url: &str) -> Result<Knowledge, KnowledgeError> {
        let url = url.to_owned();
        crate::async_calls::on_blocking_pool("connecting", move || Knowledge::connect(&url)).await
    }

    /// Sets how long [`Knowledge::teach`] waits for the back end to store a
    /// lesson (for every handle of this knowledge; by default
    /// [`DEFAULT_COMMIT_TIMEOUT`](crate::DEFAULT_COMMIT_TIMEOUT)). A lesson
    /// still queued behind a write that has not finished by then is
    /// withdrawn and refused ([`StoreError::Failed`](crate::StoreError::Failed):
    /// nothing stored); one being stored is answered with
    /// [`StoreError::OutcomeUnknown`](crate::StoreError::OutcomeUnknown).
    /// Either way the knowledge keeps serving reads.
    ///
    /// ```
    /// let knowledge = learnables_knowledge::Knowledge::in_memory();
    /// knowledge.set_commit_timeout(std::time::Duration::from_secs(5));
    /// ```
    pub fn set_commit_timeout(&self, timeout: Duration) {
        self.shared.set_commit_timeout(timeout);
    }

    /// Sets how many proposals may wait for review at once, per teacher
    /// and per entry ([`ProposalLimits`](crate::ProposalLimits) has an example).
    pub fn set_proposal_limits(&self, limits: crate::ProposalLimits) {
        self.shared.proposal_limits.set(limits);
    }

    /// How many proposals may wait for review at once.
    pub fn proposal_limits(&self) -> crate::ProposalLimits {
        self.shared.proposal_limits.get()
    }

    /// Reads the versions other processes sharing the back end have written
    /// since this knowledge last looked, and makes them what later pins see.
    /// Shared back ends call it on their own when told of new versions;
    /// call it to be sure of seeing everything written so far.
    pub fn catch_up(&self) -> Result<(), KnowledgeError> {
        self.shared.catch_up()
    }

    /// [`Knowledge::catch_up`] for async code, on tokio's blocking pool.
    #[cfg(feature = "tokio")]
    pub async fn catch_up_async(&self) -> Result<(), KnowledgeError> {
        let knowledge = self.clone();
        crate::async_calls::on_blocking_pool("catching up", move || knowledge.catch_up()).await
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
    /// An agent served by `learnables::a2a::LearnablesService`
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
    /// # extern crate learnables_core as learnables;
    /// use learnables_knowledge::{Knowledge, OnUnreadable};
    /// # #[derive(learnables::Learnable, Clone, Debug)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// let report = knowledge.register_with::<RoutingRule>(OnUnreadable::TreatAsUnknown)?;
    /// assert!(report.is_empty());
    /// # Ok::<(), learnables_knowledge::KnowledgeError>(())
    /// ```
    pub fn register_with<T>(
        &self,
        on_unreadable: OnUnreadable,
    ) -> Result<UnreadableReport, KnowledgeError>
    where
        T: Learnable + Send + Sync + 'static,
    {
        self.shared.register(Registration::of::<T>(), on_unreadable)
    }

    #[doc = include_str!("docs/register_declaration.md")]
    pub fn register_declaration(
        &self,
        declaration: &Declaration,
        on_unreadable: OnUnreadable,
    ) -> Result<UnreadableReport, KnowledgeError> {
        self.shared.register_declaration(declaration, on_unreadable)
    }

    /// The collections that can be taught, in no particular order.
    pub fn collections(&self) -> Vec<String> {
        self.shared.registry().keys().cloned().collect()
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
        let show = self.shared.registry().get(collection)?.show;
        Some(show(value))
    }

    /// What a stored value of `collection` says of entry `entry` in words,
    /// as its learnable phrases it now (aliases and defaults applied: the
    /// sentence agrees with [`Knowledge::lesson_fields_as_learned`]). `None`
    /// when no learnable is registered for the collection.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables_knowledge::Knowledge;
    /// use learnables::{Learnable, Lesson, LessonValue};
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
    /// # Ok::<(), learnables_knowledge::KnowledgeError>(())
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

    /// Why no lesson can teach `entry` of `collection` ("there is no HS
    /// chapter 99"), for show-back before a person fills a form.
    #[doc(hidden)]
    pub fn entry_refusal(&self, collection: &str, entry: &str) -> Option<crate::LessonError> {
        (self.shared.registry().get(collection)?.entry_refusal)(entry)
    }

    /// [`Knowledge::lesson_fields_as_learned`] and
    /// [`Knowledge::describes_as_learned`] from one read of the value, for
    /// the server side's show-back.
    #[doc(hidden)]
    pub fn shown_as_learned(
        &self,
        collection: &str,
        entry: &str,
        value: &crate::LessonValue,
    ) -> Option<Result<(Vec<crate::LessonField>, String), crate::LessonError>> {
        let shown = self.shared.registry().get(collection)?.shown;
        Some(shown(value, entry))
    }

    /// The knowledge as it is now, for a task to read from until it ends.
    pub fn pin(&self) -> Snapshot {
        Snapshot::of(self.shared.current(), self.shared.registry())
    }

    /// The knowledge as it was at `position` (a [`Snapshot::position`]
    /// kept by a task, say, to resume after a restart pinned to the version
    /// it started on). A position past the latest gives the latest.
    pub fn pin_at(&self, position: u64) -> Snapshot {
        Snapshot::of_past(self.shared.current(), self.shared.registry(), position)
    }

    /// The knowledge just after the version `version_id` was made: every
    /// collection as it stood then. For audit.
    pub fn pin_as_of(&self, version_id: &str) -> Result<Snapshot, KnowledgeError> {
        let current = self.shared.current();
        let position = current
            .by_id(version_id)
            .map(|version| version.position)
            .ok_or_else(|| KnowledgeError::UnknownVersion(version_id.to_owned()))?;
        Ok(self.pin_at(position))
    }

    /// Every version of `collection`, oldest first.
    pub fn history(&self, collection: &str) -> Vec<VersionRecord> {
        self.shared.current().history(collection)
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
    /// [`StoreError::OutcomeUnknown`](crate::StoreError::OutcomeUnknown):
    /// it may have been absorbed. Safe to
    /// call from async code (it blocks the calling thread; see
    /// `teach_async` with the `tokio` feature for a call that does not).
    pub fn teach(&self, lesson: &Lesson) -> Result<LessonResult, TeachError> {
        self.shared.commit_or_propose(self.shared.absorb(lesson)?)
    }

    /// [`Knowledge::teach`] for async code: the lesson is absorbed on the
    /// calling task, and the task, not its thread, waits while the commit
    /// thread stores it. A knowledge whose back end does not wait
    /// ([`Knowledge::in_memory`]) stores it in place, with no wait at all.
    /// Needs a tokio runtime with its timers enabled (the `tokio` feature),
    /// as the wait is bounded by
    /// the commit timeout. A lesson whose task is dropped while it waits is
    /// still stored.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// # #[derive(learnables::Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use learnables_knowledge::Knowledge;
    /// use learnables::{Lesson, LessonValue};
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>()?;
    /// let value = LessonValue::try_from(serde_json::json!({"desk": "general"}))?;
    /// let lesson = Lesson::new("routing_rules", "84", value, "alice@example.com");
    /// let result = knowledge.teach_async(lesson).await?;
    /// assert_eq!(result.definition_version, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(()) }).unwrap();
    /// ```
    #[cfg(feature = "tokio")]
    pub async fn teach_async(&self, lesson: Lesson) -> Result<LessonResult, TeachError> {
        crate::async_calls::teach(&self.shared, &lesson).await
    }

    /// [`Knowledge::teach_async`] of a lesson the caller keeps, for the
    /// server side of `learnables`, which answers with the lesson after.
    #[doc(hidden)]
    #[cfg(feature = "tokio")]
    pub async fn teach_borrowed_async(&self, lesson: &Lesson) -> Result<LessonResult, TeachError> {
        crate::async_calls::teach(&self.shared, lesson).await
    }

    /// Teaches the entry `entry` of `collection` the value it had in its
    /// version `version_id` again: a new version (or, when the entry holds
    /// that value already, `learned: false` and no new version), whose
    /// `describes` says it reverts, to which version, and what that
    /// version taught. Reverting to a version that retracted the entry
    /// retracts it again. The earlier value is read by the collection's
    /// learnable as a lesson would be, and refused if it no longer reads.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables_knowledge::Knowledge;
    /// use learnables::{Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules",
    /// #     describes = "Chapter {entry} goes to the {desk} desk")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>()?;
    /// let teach = |desk: &str| {
    ///     let value = LessonValue::try_from(serde_json::json!({"desk": desk})).unwrap();
    ///     knowledge.teach(&Lesson::new("routing_rules", "84", value, "alice@example.com"))
    /// };
    /// let first = teach("general")?;
    /// teach("perishables")?;
    /// let id = first.version_id.unwrap();
    /// let reverted = knowledge.revert("routing_rules", "84", &id, "bob@example.com", Some("wrong desk"))?;
    /// assert!(reverted.learned);
    /// assert_eq!(reverted.definition_version, 3);
    /// assert_eq!(reverted.describes, "Reverted to version 1: Chapter 84 goes to the general desk");
    /// assert_eq!(knowledge.pin().get::<RoutingRule>("84").unwrap().desk, "general");
    /// // Reverting again learns nothing.
    /// assert!(!knowledge.revert("routing_rules", "84", &id, "bob@example.com", None)?.learned);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn revert(
        &self,
        collection: &str,
        entry: &str,
        version_id: &str,
        taught_by: &str,
        reason: Option<&str>,
    ) -> Result<LessonResult, TeachError> {
        revert::revert(
            &self.shared,
            collection,
            entry,
            version_id,
            taught_by,
            reason,
        )
    }

    #[doc = include_str!("docs/retract.md")]
    pub fn retract(
        &self,
        collection: &str,
        entry: &str,
        taught_by: &str,
        reason: Option<&str>,
    ) -> Result<LessonResult, TeachError> {
        revert::retract(&self.shared, collection, entry, taught_by, reason)
    }

    /// Writes every version of the knowledge as it is now (a pin of it:
    /// lessons taught meanwhile are not in it) to `out` as JSON Lines: a
    /// first line naming the format, one line per version in position order
    /// (ids, positions, teachers, times, reasons, values and retractions,
    /// each with a checksum), and a last line with the count of versions.
    /// Returns that count. [`Knowledge::import`] reads it into an empty
    /// knowledge on any back end, its learnables registered.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables_knowledge::Knowledge;
    /// use learnables::{Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>()?;
    /// let value = LessonValue::try_from(serde_json::json!({"desk": "general"}))?;
    /// knowledge.teach(&Lesson::new("routing_rules", "84", value, "alice@example.com"))?;
    /// let mut file = Vec::new();
    /// assert_eq!(knowledge.export(&mut file)?, 1);
    /// let text = String::from_utf8(file.clone())?;
    /// assert_eq!(text.lines().count(), 3);
    /// assert!(text.starts_with(r#"{"format":"learnables-knowledge","version":1}"#));
    ///
    /// let moved = Knowledge::in_memory();
    /// moved.register::<RoutingRule>()?;
    /// assert_eq!(moved.import(&file[..])?, 1);
    /// assert_eq!(moved.history("routing_rules"), knowledge.history("routing_rules"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn export(&self, out: impl Write) -> std::io::Result<u64> {
        let reviews = off_runtime(|| self.shared.writer.storage().load_reviews())
            .map_err(std::io::Error::other)?;
        export::export(&self.shared.current(), &reviews, out)
    }

    /// Loads a file [`Knowledge::export`] wrote into this knowledge, which
    /// must be empty (on any back end) and have the learnables of the
    /// file's collections registered, keeping every version's id, position,
    /// teacher, time and reason; returns how many versions it loaded. The
    /// whole file is checked before anything is stored, and stored in one
    /// append, all or none: a file that is not whole (its last line
    /// missing, a line cut short), that does not follow on (positions or
    /// versions out of order, a version naming the wrong one before it),
    /// that was edited (a line failing its checksum), or of another format
    /// is refused with the line at fault ([`ImportError::Refused`]).
    ///
    /// A checksum anyone can compute again proves nothing against a file
    /// edited on purpose, so each version is also checked as teach checks
    /// a lesson: its collection registered, its entry and teacher named,
    /// its texts within a lesson's limits ([`Lesson::max_chars`](crate::Lesson::max_chars)),
    /// its teacher's name free of control, bidirectional and invisible
    /// characters, and its value one its entry could be taught
    /// ([`ImportError::Invalid`], with the line and the field); values
    /// that do not read as their types are reported all at once, as
    /// registering reports them for a store ([`ImportError::Unreadable`]).
    ///
    /// ```
    /// use learnables_knowledge::{ImportError, Knowledge};
    /// let file = b"{\"format\":\"learnables-knowledge\",\"version\":1}\n";
    /// let Err(ImportError::Refused { line, reason }) = Knowledge::in_memory().import(&file[..])
    /// else { panic!() };
    /// assert_eq!(line, 2);
    /// assert!(reason.contains("ends without its last line"), "{reason}");
    /// ```
    pub fn import(&self, input: impl std::io::Read) -> Result<u64, ImportError> {
        import::import(&self.shared, input)
    }

    #[doc = include_str!("docs/review.md")]
    pub fn review(&self, review: &Review) -> Result<LessonResult, TeachError> {
        self.shared.decide(review)
    }

    /// Every proposal of the entry `entry` of `collection`, open and
    /// decided, oldest first, each with its status as the knowledge is now
    /// (see [`Proposal`] for an example).
    ///
    /// ```
    /// let knowledge = learnables_knowledge::Knowledge::in_memory();
    /// assert!(knowledge.proposals("clearance_limits", "DE")?.is_empty());
    /// # Ok::<(), learnables_knowledge::StoreError>(())
    /// ```
    pub fn proposals(&self, collection: &str, entry: &str) -> Result<Vec<Proposal>, StoreError> {
        self.shared.proposals(collection, entry)
    }

    /// Every proposal still waiting for review, of every entry, oldest
    /// first.
    ///
    /// ```
    /// let knowledge = learnables_knowledge::Knowledge::in_memory();
    /// assert!(knowledge.open_proposals()?.is_empty());
    /// # Ok::<(), learnables_knowledge::StoreError>(())
    /// ```
    pub fn open_proposals(&self) -> Result<Vec<Proposal>, StoreError> {
        self.shared.open_proposals()
    }

    /// The proposal `proposal_id`, its status as the knowledge is now.
    ///
    /// ```
    /// let knowledge = learnables_knowledge::Knowledge::in_memory();
    /// assert_eq!(knowledge.proposal("0193-no-such-proposal")?, None);
    /// # Ok::<(), learnables_knowledge::StoreError>(())
    /// ```
    pub fn proposal(&self, proposal_id: &str) -> Result<Option<Proposal>, StoreError> {
        self.shared.proposal(proposal_id)
    }

    /// The proposal whose last approval made the version `version_id`:
    /// who proposed it and why, and who approved it and why. `None` for a
    /// version taught without review.
    ///
    /// ```
    /// let knowledge = learnables_knowledge::Knowledge::in_memory();
    /// assert_eq!(knowledge.version_proposal("0193-no-such-version")?, None);
    /// # Ok::<(), learnables_knowledge::StoreError>(())
    /// ```
    pub fn version_proposal(&self, version_id: &str) -> Result<Option<Proposal>, StoreError> {
        self.shared.version_proposal(version_id)
    }

    /// What `proposal` would change of its entry as the entry is now,
    /// field by field, each field as the lesson form shows it (`None` when
    /// no learnable is registered for its collection; an error when a
    /// value no longer reads as the learnable).
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables_knowledge::{Knowledge};
    /// use learnables::{Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "clearance_limits", entry = "clearance limit",
    /// #     teaches = "The highest value cleared without a second look",
    /// #     how = "A table keyed on the country", decided_by = "rules",
    /// #     describes = "{entry} clears up to {euros} euros", review)]
    /// # struct ClearanceLimit { #[learnable(label = "Euros")] euros: u32 }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<ClearanceLimit>()?;
    /// let value = LessonValue::try_from(serde_json::json!({"euros": 1000}))?;
    /// knowledge.teach(&Lesson::new("clearance_limits", "DE", value, "alice@example.com"))?;
    /// let proposal = knowledge.open_proposals()?.remove(0);
    /// let changes = knowledge.proposal_changes(&proposal).unwrap()?;
    /// assert_eq!((changes[0].before.as_deref(), changes[0].after.as_deref()), (None, Some("1000")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn proposal_changes(
        &self,
        proposal: &Proposal,
    ) -> Option<Result<Vec<FieldChange>, LessonError>> {
        self.shared.changes_of(proposal)
    }
}

impl std::fmt::Debug for Knowledge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Knowledge")
            .field("position", &self.shared.current().position())
            .field("collections", &self.collections())
            .finish()
    }
}
