//! The single writer of a knowledge: it decides what each lesson makes of
//! the knowledge, has the back end store it, and publishes the new state.
//!
//! One [`Writer`] per knowledge, and its lock is held by whoever moves the
//! knowledge forward: a commit (on the teacher's thread for a back end that
//! does not wait, on the commit thread otherwise), or a catch-up on
//! versions other processes wrote. Only the writer publishes: the current
//! state is a private field of it, so every state a pin can see was made
//! here, after its back end stored it.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::LessonResult;
use crate::approved::Approved;
use crate::latest::Latest;
use crate::record_view::{RecordView, ValueRef};
use crate::registry::Absorbed;
use crate::state::State;
use crate::{Storage, StoreError, TeachError, VersionRecord, version_record};

/// The results of a batch, one per lesson, in order.
pub(crate) type Results = Vec<Result<LessonResult, TeachError>>;

/// A lesson absorbed by its learnable, waiting to be committed: its texts
/// borrowed from the lesson while the teacher's own thread commits it,
/// copied for the commit thread.
pub(crate) struct Pending<'l> {
    pub(crate) collection: Cow<'l, str>,
    pub(crate) entry: Cow<'l, str>,
    pub(crate) taught_by: Cow<'l, str>,
    pub(crate) reason: Option<Cow<'l, str>>,
    pub(crate) absorbed: Absorbed,
    /// Whether the lesson retracts the entry (its `absorbed` value is
    /// empty): the new version makes the entry absent.
    pub(crate) retract: bool,
    /// For a proposal's last approval: the version it makes, and the
    /// entry's version it must still be based on.
    pub(crate) approved: Option<Arc<Approved>>,
}

impl<'l> Pending<'l> {
    /// Refuses an empty entry or teacher, and a collection or entry with a
    /// character that does not show as itself: what every change checks
    /// first.
    pub(crate) fn check_names(
        collection: &str,
        entry: &str,
        taught_by: &str,
    ) -> Result<(), crate::TeachError> {
        if entry.is_empty() {
            return Err(crate::TeachError::EmptyEntry);
        }
        crate::untrusted::HiddenCharacter::check("collection", collection)?;
        crate::untrusted::HiddenCharacter::check("entry", entry)?;
        if taught_by.trim().is_empty() {
            return Err(crate::TeachError::NoTeacher);
        }
        Ok(())
    }

    /// A change of borrowed texts (checked by [`Pending::check_names`]).
    pub(crate) fn borrowed(
        collection: &'l str,
        entry: &'l str,
        taught_by: &'l str,
        reason: Option<&'l str>,
        absorbed: Absorbed,
        retract: bool,
    ) -> Pending<'l> {
        Pending {
            collection: Cow::Borrowed(collection),
            entry: Cow::Borrowed(entry),
            taught_by: Cow::Borrowed(taught_by),
            reason: reason.map(Cow::Borrowed),
            absorbed,
            retract,
            approved: None,
        }
    }
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
            retract: self.retract,
            approved: self.approved,
        }
    }
}

/// The knowledge's back end, its current state and the lock of whoever
/// moves it forward.
pub(crate) struct Writer {
    storage: Box<dyn Storage>,
    /// The latest published state: what [`Writer::current`] pins.
    current: Latest<State>,
    lock: Mutex<()>,
}

impl Writer {
    /// The writer of `storage`, which holds `state`.
    pub(crate) fn new(storage: Box<dyn Storage>, mut state: State) -> Writer {
        state.publish();
        Writer {
            storage,
            current: Latest::new(state),
            lock: Mutex::new(()),
        }
    }

    /// The back end.
    pub(crate) fn storage(&self) -> &dyn Storage {
        &*self.storage
    }

    /// The latest published state.
    pub(crate) fn current(&self) -> Arc<State> {
        self.current.get()
    }

    fn lock(&self) -> MutexGuard<'_, ()> {
        // Nothing is left half done under the lock: a panic in a back end
        // leaves the published state as it was.
        self.lock.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes `state` what later pins see. The caller holds the lock.
    fn publish(&self, _writer: &MutexGuard<'_, ()>, mut state: State) -> Arc<State> {
        state.publish();
        let published = Arc::new(state);
        self.current.set(published.clone());
        published
    }

    /// Reads the versions other processes wrote since the latest published
    /// state, and publishes them.
    pub(crate) fn catch_up(&self) -> Result<(), StoreError> {
        let writer = self.lock();
        let current = self.current();
        let records = self.storage.load_since(current.position())?;
        if records.is_empty() {
            return Ok(());
        }
        let mut state = State::clone(&current);
        extend(&mut state, records)?;
        self.publish(&writer, state);
        Ok(())
    }

    /// Stores `records` (checked to follow on from an empty knowledge, and
    /// applied to `state`, which starts empty) in one append, and publishes
    /// `state`, if the knowledge is empty: `Ok(false)`, storing nothing,
    /// when it is not.
    pub(crate) fn import(
        &self,
        state: State,
        records: &[VersionRecord],
    ) -> Result<bool, StoreError> {
        let writer = self.lock();
        if self.current().position() != 0 {
            return Ok(false);
        }
        self.storage.append(records)?;
        self.publish(&writer, state);
        Ok(true)
    }

    /// Commits a batch: decides each lesson's version against the state as
    /// the batch's earlier lessons leave it, has the back end store the new
    /// versions in one append, and only then publishes the new state. If
    /// another process sharing the back end wrote first, the back end hands
    /// over its versions (holding its write lock, for a shared back end);
    /// they are published, and the batch is decided again on top of them.
    pub(crate) fn commit(&self, batch: &[Pending<'_>]) -> Results {
        let writer = self.lock();
        let mut base = self.current();
        let (mut working, records, mut results) = decide(&base, batch);
        if working.is_none() {
            return results;
        }
        let stored = {
            let mut redecide =
                |others: Vec<VersionRecord>| -> Result<Vec<VersionRecord>, StoreError> {
                    let mut caught_up = State::clone(&base);
                    extend(&mut caught_up, others)?;
                    base = self.publish(&writer, caught_up);
                    let (again, records, decided) = decide(&base, batch);
                    working = again;
                    results = decided;
                    Ok(records)
                };
            self.storage.append_decided(records, &mut redecide)
        };
        match stored {
            Ok(()) => {
                if let Some(working) = working {
                    self.publish(&writer, working);
                }
                results
            }
            Err(error) => batch
                .iter()
                .map(|_| Err(TeachError::Store(error.clone())))
                .collect(),
        }
    }
}

/// Applies stored records after `state`'s position, each checked to follow on.
pub(crate) fn extend(state: &mut State, records: Vec<VersionRecord>) -> Result<(), StoreError> {
    for record in records {
        state
            .follows_on(&record)
            .map_err(|reason| StoreError::Damaged(reason.into()))?;
        state.apply(&record);
    }
    Ok(())
}

/// Decides what a batch of lessons makes of `current`: the state after
/// them (`None` when none learns anything), the new versions to store, and
/// each lesson's result.
fn decide(current: &State, batch: &[Pending<'_>]) -> (Option<State>, Vec<VersionRecord>, Results) {
    // Copied from `current` when the first lesson learns.
    let mut working: Option<State> = None;
    let mut records = Vec::new();
    let mut results = Vec::with_capacity(batch.len());
    for pending in batch {
        let seen = working.as_ref().unwrap_or(current);
        // Written once, by the teacher: compared with the entry's value,
        // then kept.
        let json = pending.absorbed.json.as_deref();
        // A lesson repeating the entry's value reports the version that
        // holds that value, not the collection's latest.
        // A retraction of an entry already absent reports the version
        // that made it absent.
        let latest = seen.latest(&pending.collection, &pending.entry);
        if let Some(approved) = &pending.approved
            && let Err(stale) = approved.still_based_on(latest)
        {
            results.push(Err(stale));
            continue;
        }
        let unchanged = if pending.retract {
            match latest {
                None => {
                    results.push(Err(TeachError::UnknownEntry {
                        collection: pending.collection.to_string(),
                        entry: pending.entry.to_string(),
                    }));
                    continue;
                }
                Some(stored) => Some(stored).filter(|stored| stored.retracted),
            }
        } else {
            latest.filter(|stored| {
                !stored.retracted && stored.value_is(&pending.absorbed.value, json)
            })
        };
        if let Some(stored) = unchanged {
            let mut result = LessonResult::new(
                false,
                pending.absorbed.describes.clone(),
                stored.definition_version,
            )
            .with_version_id(stored.version_id.to_string());
            result.previous_version_id = stored.previous_version_id.as_deref().map(str::to_owned);
            results.push(Ok(result));
            continue;
        }
        let (definition_version, previous_version_id) = match seen.head(&pending.collection) {
            Some(head) => (
                head.definition_version + 1,
                Some(head.version_id.to_string()),
            ),
            None => (1, None),
        };
        let version_id = match &pending.approved {
            Some(approved) => approved.version_id.clone(),
            None => new_version_id(),
        };
        let record = RecordView {
            position: seen.position() + 1,
            collection: Cow::Borrowed(&pending.collection),
            definition_version,
            version_id: Cow::Borrowed(&version_id),
            previous_version_id: previous_version_id.as_deref().map(Cow::Borrowed),
            entry: Cow::Borrowed(&pending.entry),
            value: ValueRef::Parsed(&pending.absorbed.value),
            taught_by: Cow::Borrowed(&pending.taught_by),
            reason: pending.reason.as_deref().map(Cow::Borrowed),
            describes: Cow::Borrowed(&pending.absorbed.describes),
            taught_at_ms: version_record::now_ms(),
            retracted: pending.retract,
        };
        working
            .get_or_insert_with(|| current.clone())
            .apply_written(&record, json);
        records.push(record.to_record());
        let mut result =
            LessonResult::new(true, pending.absorbed.describes.clone(), definition_version)
                .with_version_id(version_id);
        result.previous_version_id = previous_version_id;
        result.proposal_id = pending
            .approved
            .as_ref()
            .map(|approved| approved.proposal_id.clone());
        results.push(Ok(result));
    }
    (working, records, results)
}

/// A new unique version id: a UUID v7, so ids also sort by time.
pub(crate) fn new_version_id() -> String {
    uuid::Uuid::now_v7().hyphenated().to_string()
}
