//! [`MemoryStorage`]: the back end that keeps its versions in memory, as
//! the JSON Lines of their records in one buffer.

use std::sync::{Mutex, PoisonError};

use super::{Storage, StoreError, check_follows_on};
use crate::VersionRecord;

/// Versions kept in memory only: the back end of
/// [`Knowledge::in_memory`](crate::Knowledge::in_memory), for tests and
/// agents whose knowledge may start empty on every run. Several knowledges
/// given one (behind an `Arc`) share it as replicas share a database.
///
/// Each version is kept as its record's JSON line in one buffer, a few
/// hundred bytes a version beside the knowledge's own state (a record kept
/// whole would cost more than the state itself), and read back only when a
/// knowledge loads it.
///
/// ```
/// use learnables_knowledge::{MemoryStorage, Storage};
/// let storage = MemoryStorage::default();
/// assert!(storage.load().unwrap().is_empty());
/// ```
#[derive(Debug, Default)]
pub struct MemoryStorage {
    lines: Mutex<Lines>,
}

#[derive(Debug, Default)]
struct Lines {
    /// Every version's record as one line of JSON, in position order.
    text: Vec<u8>,
    /// Where the line of the version at position `p` starts: `starts[p - 1]`.
    starts: Vec<usize>,
}

impl Storage for MemoryStorage {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.load_since(0)
    }

    fn load_since(&self, position: u64) -> Result<Vec<VersionRecord>, StoreError> {
        // Nothing is left half written under the lock: an append that
        // fails takes its lines back before it returns.
        let lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(&from) = usize::try_from(position)
            .ok()
            .and_then(|index| lines.starts.get(index))
        else {
            return Ok(Vec::new());
        };
        lines.text[from..]
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| {
                serde_json::from_slice(line).map_err(|error| {
                    StoreError::Damaged(
                        format!("a version kept in memory does not read: {error}").into(),
                    )
                })
            })
            .collect()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        let mut last = lines.starts.len() as u64;
        check_follows_on(last, records)?;
        let (text_was, starts_was) = (lines.text.len(), lines.starts.len());
        for record in records {
            let written = if record.position == last + 1 {
                let start = lines.text.len();
                lines.starts.push(start);
                serde_json::to_writer(&mut lines.text, record)
                    .map_err(|error| StoreError::Failed(format!("{error}").into()))
            } else {
                Err(StoreError::Conflict {
                    expected: record.position,
                    found: last,
                })
            };
            if let Err(error) = written {
                lines.text.truncate(text_was);
                lines.starts.truncate(starts_was);
                return Err(error);
            }
            lines.text.push(b'\n');
            last = record.position;
        }
        Ok(())
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
