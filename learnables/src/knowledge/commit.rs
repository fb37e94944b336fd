//! The commit loop: what a batch of lessons makes of the knowledge, decided
//! against the latest versions and stored in one durable append before
//! anyone sees it. Runs on the commit thread (see `committer.rs`).

use std::sync::MutexGuard;

use super::change::value_json;
use super::knowledge::{Pending, Shared};
use super::state::State;
use super::{StoreError, TeachError, VersionRecord, version_record};
use crate::LessonResult;

/// The results of a batch, one per lesson, in order.
pub(crate) type Results = Vec<Result<LessonResult, TeachError>>;

/// Commits a batch: decides each lesson's version against the state as the
/// batch's earlier lessons leave it, writes the new versions in one durable
/// append, and only then publishes the new state. If another process
/// sharing the back end wrote first, the back end hands over its versions
/// (holding its write lock, for a shared back end); they are published,
/// and the batch is decided again on top of them.
pub(crate) fn commit(shared: &Shared, batch: &[Pending]) -> Results {
    commit_holding(&shared.lock_writer(), shared, batch)
}

/// [`commit`] by the holder of the knowledge's writer lock, `_writer`.
pub(crate) fn commit_holding(
    _writer: &MutexGuard<'_, ()>,
    shared: &Shared,
    batch: &[Pending],
) -> Results {
    let mut base = shared.current.load_full();
    let (mut working, records, mut results) = decide(&base, batch);
    if records.is_empty() {
        return results;
    }
    let mut redecide = |others: Vec<VersionRecord>| -> Result<Vec<VersionRecord>, StoreError> {
        let mut caught_up = State::clone(&base);
        extend(&mut caught_up, others)?;
        base = shared.publish(caught_up);
        let (again, records, decided) = decide(&base, batch);
        working = again;
        results = decided;
        Ok(records)
    };
    match shared.storage.append_decided(records, &mut redecide) {
        Ok(()) => {
            shared.publish(working);
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
/// them, the new versions to store, and each lesson's result.
fn decide(current: &State, batch: &[Pending]) -> (State, Vec<VersionRecord>, Results) {
    let mut working = current.clone();
    let mut records = Vec::new();
    let mut results = Vec::with_capacity(batch.len());
    for pending in batch {
        let head = working
            .head(&pending.collection)
            .map(|head| (head.definition_version, head.version_id().to_owned()));
        // Written once: compared with the entry's value, then kept.
        let json = value_json(&pending.absorbed.value);
        // A lesson repeating the entry's value reports the version that
        // holds that value, not the collection's latest.
        let unchanged = working
            .entry(&pending.collection, &pending.entry)
            .filter(|stored| stored.value_is(&pending.absorbed.value, json.as_deref()));
        if let Some(stored) = unchanged {
            results.push(Ok(LessonResult {
                learned: false,
                describes: pending.absorbed.describes.clone(),
                definition_version: stored.definition_version,
                version_id: Some(stored.version_id().to_owned()),
                previous_version_id: working.previous_version_id(stored),
            }));
            continue;
        }
        let record = VersionRecord {
            position: working.position + 1,
            collection: pending.collection.clone(),
            definition_version: head.as_ref().map_or(0, |head| head.0) + 1,
            version_id: new_version_id(),
            previous_version_id: head.map(|head| head.1),
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
        working.apply_written(&record, json);
        records.push(record);
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
