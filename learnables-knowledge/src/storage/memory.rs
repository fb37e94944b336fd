//! [`MemoryStorage`]: the back end that keeps its versions in memory, each
//! as a compact JSON array of its record's fields.

use std::sync::{Mutex, PoisonError};

use super::{ReviewsOf, Storage, StoreError, check_follows_on, check_review_follows_on};
use crate::{LessonValue, ReviewRecord, VersionRecord};

/// Versions kept in memory only: the back end of
/// [`Knowledge::in_memory`](crate::Knowledge::in_memory), for tests and
/// agents whose knowledge may start empty on every run. Several knowledges
/// given one (behind an `Arc`) share it as replicas share a database.
///
/// Each version is kept as one JSON array of its record's fields, a
/// couple of hundred bytes a version beside the knowledge's own state (a
/// record kept whole would cost more than the state itself), and read back
/// only when a knowledge loads it.
///
/// ```
/// use learnables_knowledge::{MemoryStorage, Storage};
/// let storage = MemoryStorage::default();
/// assert!(storage.load().unwrap().is_empty());
/// ```
#[derive(Debug, Default)]
pub struct MemoryStorage {
    /// The version at position `p` is `versions[p - 1]`.
    versions: Mutex<Vec<Box<[u8]>>>,
    /// The records of proposals, approvals and rejections.
    reviews: Mutex<Vec<ReviewRecord>>,
}

/// A record's fields in order, as a version is kept: an array, so that no
/// field's name is kept with every version.
type Fields = (
    u64,
    String,
    u64,
    String,
    Option<String>,
    String,
    LessonValue,
    String,
    Option<String>,
    String,
    u64,
    bool,
);

impl Storage for MemoryStorage {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.load_since(0)
    }

    fn load_since(&self, position: u64) -> Result<Vec<VersionRecord>, StoreError> {
        // Nothing is left half written under the lock: an append that
        // fails takes its versions back before it returns.
        let versions = self.versions.lock().unwrap_or_else(PoisonError::into_inner);
        let from = usize::try_from(position).unwrap_or(usize::MAX);
        versions
            .get(from..)
            .unwrap_or_default()
            .iter()
            .map(|kept| {
                let fields: Fields = serde_json::from_slice(kept).map_err(|error| {
                    StoreError::Damaged(
                        format!("a version kept in memory does not read: {error}").into(),
                    )
                })?;
                Ok(VersionRecord {
                    position: fields.0,
                    collection: fields.1,
                    definition_version: fields.2,
                    version_id: fields.3,
                    previous_version_id: fields.4,
                    entry: fields.5,
                    value: fields.6,
                    taught_by: fields.7,
                    reason: fields.8,
                    describes: fields.9,
                    taught_at_ms: fields.10,
                    retracted: fields.11,
                })
            })
            .collect()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        let mut versions = self.versions.lock().unwrap_or_else(PoisonError::into_inner);
        let mut last = versions.len() as u64;
        check_follows_on(last, records)?;
        let mut kept = Vec::with_capacity(records.len());
        for record in records {
            if record.position != last + 1 {
                return Err(StoreError::Conflict {
                    expected: record.position,
                    found: last,
                });
            }
            let fields = (
                record.position,
                &record.collection,
                record.definition_version,
                &record.version_id,
                &record.previous_version_id,
                &record.entry,
                &record.value,
                &record.taught_by,
                &record.reason,
                &record.describes,
                record.taught_at_ms,
                record.retracted,
            );
            let json = serde_json::to_vec(&fields)
                .map_err(|error| StoreError::Failed(format!("{error}").into()))?;
            kept.push(json.into_boxed_slice());
            last = record.position;
        }
        versions.extend(kept);
        Ok(())
    }

    fn append_review(&self, record: &ReviewRecord) -> Result<(), StoreError> {
        let mut reviews = self.reviews.lock().unwrap_or_else(PoisonError::into_inner);
        check_review_follows_on(&reviews, record)?;
        reviews.push(record.clone());
        Ok(())
    }

    fn load_reviews(&self) -> Result<Vec<ReviewRecord>, StoreError> {
        Ok(self
            .reviews
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone())
    }

    fn load_reviews_of(&self, which: ReviewsOf<'_>) -> Result<Vec<ReviewRecord>, StoreError> {
        let reviews = self.reviews.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(which.select(&reviews))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(position: u64) -> VersionRecord {
        VersionRecord {
            position,
            collection: "routing_rules".to_owned(),
            definition_version: position,
            version_id: format!("v{position}"),
            previous_version_id: (position > 1).then(|| format!("v{}", position - 1)),
            entry: "85\n\"quoted\"".to_owned(),
            value: serde_json::from_str(r#"{"desk":"général","n":[1,2.5,null]}"#).unwrap(),
            taught_by: "alice@example.com".to_owned(),
            reason: Some("line\nbreak".to_owned()),
            describes: "Chapter 85".to_owned(),
            taught_at_ms: 7,
            retracted: position == 3,
        }
    }

    #[test]
    fn versions_kept_read_back_whole_from_any_position() {
        let storage = MemoryStorage::default();
        storage.append(&[record(1), record(2)]).unwrap();
        storage.append(&[record(3)]).unwrap();
        assert_eq!(storage.load().unwrap(), [record(1), record(2), record(3)]);
        assert_eq!(storage.load_since(1).unwrap(), [record(2), record(3)]);
        assert_eq!(storage.load_since(3).unwrap(), []);
        assert_eq!(storage.load_since(9).unwrap(), []);
    }

    #[test]
    fn a_group_that_does_not_follow_on_leaves_nothing() {
        let storage = MemoryStorage::default();
        storage.append(&[record(1)]).unwrap();
        let error = storage.append(&[record(3)]).unwrap_err();
        assert!(
            matches!(
                error,
                StoreError::Conflict {
                    expected: 3,
                    found: 1
                }
            ),
            "{error:?}"
        );
        let error = storage.append(&[record(2), record(4)]).unwrap_err();
        assert!(
            matches!(
                error,
                StoreError::Conflict {
                    expected: 4,
                    found: 2
                }
            ),
            "{error:?}"
        );
        assert_eq!(storage.load().unwrap(), [record(1)]);
        storage.append(&[record(2)]).unwrap();
        assert_eq!(storage.load().unwrap(), [record(1), record(2)]);
    }
}
