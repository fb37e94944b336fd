//! The commit loop: what a batch of lessons makes of the knowledge, decided
//! against the latest versions and stored in one durable append before
//! anyone sees it. Runs on the commit thread (see `committer.rs`).

use std::sync::MutexGuard;

use arc_swap::Guard;

use super::knowledge::{Pending, Shared};
use super::state::State;
use super::version_record::RecordView;
use super::{StoreError, TeachError, VersionRecord, version_record};
use crate::LessonResult;

/// The results of a batch, one per lesson, in order.
pub(crate) type Results = Vec<Result<LessonResult, TeachError>>;

/// Commits a batch: decides each lesson's version against the state as the
/// batch's earlier lessons leave it, writes the new versions in one durable
/// append, and only then publishes the new state. If another process
/// sharing the back end wrote first, the back end hands over its versions
/// (holding its write lock, for a shared back end); they are published,
/// and the batch is decided again on top of them. A knowledge whose state
/// is its only store ([`Knowledge::in_memory`](crate::Knowledge::in_memory))
/// publishes without handing its back end anything.
pub(crate) fn commit(shared: &Shared, batch: &[Pending<'_>]) -> Results {
    commit_holding(&shared.lock_writer(), shared, batch)
}

/// [`commit`] by the holder of the knowledge's writer lock, `_writer`.
pub(crate) fn commit_holding(
    _writer: &MutexGuard<'_, ()>,
    shared: &Shared,
    batch: &[Pending<'_>],
) -> Results {
    let current = shared.current.load();
    let (working, records, results) = decide(&current, batch, shared.stores_versions);
    let Some(working) = working else {
        return results;
    };
    if !shared.stores_versions {
        drop(current);
        shared.publish(working);
        return results;
    }
    // Decided again, on top of other writers' versions, if the back end
    // says they came first.
    let mut base = Guard::into_inner(current);
    let mut working = Some(working);
    let mut results = results;
    let mut redecide = |others: Vec<VersionRecord>| -> Result<Vec<VersionRecord>, StoreError> {
        let mut caught_up = State::clone(&base);
        extend(&mut caught_up, others)?;
        base = shared.publish(caught_up);
        let (again, records, decided) = decide(&base, batch, true);
        working = again;
        results = decided;
        Ok(records)
    };
    match shared.storage.append_decided(records, &mut redecide) {
        Ok(()) => {
            if let Some(working) = working {
                shared.publish(working);
            }
            results
        }
        Err(error) => batch
            .iter()
            .map(|_| Err(TeachError::Store(error.clone())))
            .collect(),
    }
}

/// Applies stored records after `state`'s position, each checked to follow on.
pub(crate) fn extend(state: &mut State, records: Vec<VersionRecord>) -> Result<(), StoreError> {
    for record in records {
        state.follows_on(&record).map_err(StoreError::Damaged)?;
        state.apply(&record);
    }
    Ok(())
}

/// Decides what a batch of lessons makes of `current`: the state after
/// them (`None` when none learns anything), the new versions to store (none
/// unless `to_store`: the lessons are not copied for a back end that
/// stores nothing), and each lesson's result.
fn decide(
    current: &State,
    batch: &[Pending<'_>],
    to_store: bool,
) -> (Option<State>, Vec<VersionRecord>, Results) {
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
        let unchanged = seen
            .entry(&pending.collection, &pending.entry)
            .filter(|stored| stored.value_is(&pending.absorbed.value, json));
        if let Some(stored) = unchanged {
            results.push(Ok(LessonResult {
                learned: false,
                describes: pending.absorbed.describes.clone(),
                definition_version: stored.definition_version,
                version_id: Some(stored.version_id().to_owned()),
                previous_version_id: seen.previous_version_id(stored),
            }));
            continue;
        }
        let position = seen.position + 1;
        let (definition_version, previous_version_id) = match seen.head(&pending.collection) {
            Some(head) => (
                head.definition_version + 1,
                Some(head.version_id().to_owned()),
            ),
            None => (1, None),
        };
        let version_id = new_version_id();
        let record = RecordView {
            position,
            collection: &pending.collection,
            definition_version,
            version_id: &version_id,
            previous_version_id: previous_version_id.as_deref(),
            entry: &pending.entry,
            value: &pending.absorbed.value,
            taught_by: &pending.taught_by,
            reason: pending.reason.as_deref(),
            describes: &pending.absorbed.describes,
            taught_at_ms: version_record::now_ms(),
        };
        working
            .get_or_insert_with(|| current.clone())
            .apply_written(record, json);
        if to_store {
            records.push(record.to_record());
        }
        results.push(Ok(LessonResult {
            learned: true,
            describes: pending.absorbed.describes.clone(),
            definition_version,
            version_id: Some(version_id),
            previous_version_id,
        }));
    }
    (working, records, results)
}

/// A new unique version id: a UUID v7, so ids also sort by time.
fn new_version_id() -> String {
    // Written straight into the id's bytes, without a formatter.
    let mut id = [0; uuid::fmt::Hyphenated::LENGTH];
    uuid::Uuid::now_v7()
        .hyphenated()
        .encode_lower(&mut id)
        .to_owned()
}
