//! The knowledge at one position: every collection's entries and version,
//! held in persistent maps so that a new version shares all but a path of
//! nodes with the one before, and a snapshot is one reference count.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use imbl::shared_ptr::DefaultSharedPtr;
use imbl::{GenericHashMap, OrdMap, Vector};

use super::VersionRecord;

/// An entry as one version left it, with its typed form once a reader has
/// asked for it.
pub(crate) struct Entry {
    /// The record that gave the entry its value.
    pub(crate) record: Arc<VersionRecord>,
    pub(crate) typed: OnceLock<Arc<dyn Any + Send + Sync>>,
}

/// A record as applied: what it replaced, so that it can be undone.
pub(crate) struct Change {
    pub(crate) record: Arc<VersionRecord>,
    replaced: Option<Arc<Entry>>,
    previous_head: Option<Arc<VersionRecord>>,
}

/// A collection's entries by key: a hash trie, so that a lookup touches a
/// few nodes and compares one key, and a new version copies one path.
pub(crate) type Entries =
    GenericHashMap<Arc<str>, Arc<Entry>, foldhash::fast::RandomState, DefaultSharedPtr>;

/// One collection at one version.
#[derive(Clone, Default)]
pub(crate) struct CollectionState {
    /// The latest record, `None` before the first lesson.
    pub(crate) head: Option<Arc<VersionRecord>>,
    pub(crate) entries: Entries,
}

impl CollectionState {
    /// The entries in key order.
    pub(crate) fn sorted_entries(&self) -> Vec<(&str, &Entry)> {
        let mut sorted: Vec<(&str, &Entry)> = self
            .entries
            .iter()
            .map(|(key, entry)| (&**key, &**entry))
            .collect();
        sorted.sort_unstable_by_key(|(key, _)| *key);
        sorted
    }
}

impl CollectionState {
    pub(crate) fn version(&self) -> u64 {
        self.head.as_ref().map_or(0, |head| head.definition_version)
    }

    pub(crate) fn version_id(&self) -> Option<&str> {
        self.head.as_ref().map(|head| head.version_id.as_str())
    }
}

/// How many versions apart the kept checkpoints are: a past version is
/// reached by replaying at most this many changes from the nearest one
/// (or undoing them from the present, whichever is fewer).
pub(crate) const CHECKPOINT_EVERY: u64 = 256;

/// All collections at one position.
#[derive(Clone, Default)]
pub(crate) struct State {
    /// How many versions the knowledge has (the position of the latest).
    pub(crate) position: u64,
    pub(crate) collections: OrdMap<Arc<str>, CollectionState>,
    /// Every change, in position order: the change at index `i` made
    /// position `i + 1`.
    pub(crate) log: Vector<Arc<Change>>,
    /// The collections at every multiple of [`CHECKPOINT_EVERY`] up to
    /// `position`: index `i` is position `(i + 1) * CHECKPOINT_EVERY`. They
    /// share all but what changed since with each other and the present.
    checkpoints: Vector<OrdMap<Arc<str>, CollectionState>>,
    /// The position of each version whose id is a UUID (all this crate
    /// makes), by id.
    positions: GenericHashMap<u128, u64, foldhash::fast::RandomState, DefaultSharedPtr>,
}

impl State {
    pub(crate) fn collection(&self, name: &str) -> Option<&CollectionState> {
        self.collections.get(name)
    }

    /// Applies the next record; [`State::follows_on`] has checked it.
    pub(crate) fn apply(&mut self, record: Arc<VersionRecord>) {
        let name: Arc<str> = Arc::from(record.collection.as_str());
        let mut collection = self.collections.get(&name).cloned().unwrap_or_default();
        let entry = Arc::new(Entry {
            record: record.clone(),
            typed: OnceLock::new(),
        });
        let replaced = collection
            .entries
            .insert(Arc::from(record.entry.as_str()), entry);
        let previous_head = collection.head.replace(record.clone());
        self.collections.insert(name, collection);
        self.position = record.position;
        if let Ok(id) = uuid::Uuid::parse_str(&record.version_id) {
            self.positions.insert(id.as_u128(), record.position);
        }
        self.log.push_back(Arc::new(Change {
            record,
            replaced,
            previous_head,
        }));
        if self.position.is_multiple_of(CHECKPOINT_EVERY) {
            self.checkpoints.push_back(self.collections.clone());
        }
    }

    /// Applies a logged change again, to the collections only.
    fn redo(collections: &mut OrdMap<Arc<str>, CollectionState>, change: &Change) {
        let record = &change.record;
        let name: Arc<str> = Arc::from(record.collection.as_str());
        let mut collection = collections.get(&name).cloned().unwrap_or_default();
        let entry = Arc::new(Entry {
            record: record.clone(),
            typed: OnceLock::new(),
        });
        collection
            .entries
            .insert(Arc::from(record.entry.as_str()), entry);
        collection.head = Some(record.clone());
        collections.insert(name, collection);
    }

    /// Whether `record` is the next version: the next position, and the
    /// next version of its collection, naming the current head.
    pub(crate) fn follows_on(&self, record: &VersionRecord) -> Result<(), String> {
        if record.position != self.position + 1 {
            return Err(format!(
                "version {} is at position {}, but the knowledge is at position {}",
                record.version_id, record.position, self.position
            ));
        }
        let collection = self.collection(&record.collection);
        let head_version = collection.map_or(0, CollectionState::version);
        let head_id = collection.and_then(CollectionState::version_id);
        if record.definition_version != head_version + 1
            || record.previous_version_id.as_deref() != head_id
        {
            return Err(format!(
                "version {} of `{}` claims to be number {} after {:?}, but the collection is at \
                 number {head_version} ({head_id:?})",
                record.version_id,
                record.collection,
                record.definition_version,
                record.previous_version_id
            ));
        }
        Ok(())
    }

    /// The knowledge as it was at `position`: replayed from the nearest
    /// checkpoint at or before it, or, if the present is nearer, later
    /// changes undone. Costs at most [`CHECKPOINT_EVERY`] changes, whatever
    /// the size and age of the knowledge.
    pub(crate) fn as_of(&self, position: u64) -> State {
        let position = position.min(self.position);
        let checkpoint = position / CHECKPOINT_EVERY;
        let from = checkpoint * CHECKPOINT_EVERY;
        let index = |position: u64| usize::try_from(position).unwrap_or(usize::MAX);
        let nearest = match checkpoint {
            0 => Some(OrdMap::new()),
            n => self.checkpoints.get(index(n - 1)).cloned(),
        };
        let replay = nearest.filter(|_| self.position - position > position - from);
        let Some(mut collections) = replay else {
            let mut past = self.clone();
            while past.position > position {
                let Some(change) = past.log.pop_back() else {
                    break;
                };
                past.undo(&change);
            }
            past.truncate_indexes();
            return past;
        };
        for change in self
            .log
            .skip(index(from))
            .iter()
            .take(index(position - from))
        {
            State::redo(&mut collections, change);
        }
        let mut past = State {
            position,
            collections,
            log: self.log.take(index(position)),
            checkpoints: self.checkpoints.take(index(checkpoint)),
            positions: self.positions.clone(),
        };
        past.truncate_indexes();
        past
    }

    /// Drops the checkpoints after `position`. (The id index keeps later
    /// versions; [`State::position_of`] ignores them.)
    fn truncate_indexes(&mut self) {
        let kept = usize::try_from(self.position / CHECKPOINT_EVERY).unwrap_or(usize::MAX);
        if self.checkpoints.len() > kept {
            self.checkpoints.truncate(kept);
        }
    }

    fn undo(&mut self, change: &Change) {
        let record = &change.record;
        let name: &str = &record.collection;
        if let Some(mut collection) = self.collections.get(name).cloned() {
            match &change.replaced {
                Some(entry) => {
                    collection
                        .entries
                        .insert(Arc::from(record.entry.as_str()), entry.clone());
                }
                None => {
                    collection.entries.remove(record.entry.as_str());
                }
            }
            collection.head = change.previous_head.clone();
            if collection.head.is_none() {
                self.collections.remove(name);
            } else {
                self.collections.insert(Arc::from(name), collection);
            }
        }
        self.position = record.position - 1;
    }

    /// The records of `collection`, oldest first.
    pub(crate) fn history(&self, collection: &str) -> Vec<VersionRecord> {
        self.log
            .iter()
            .filter(|change| change.record.collection == collection)
            .map(|change| (*change.record).clone())
            .collect()
    }

    /// The position of the version `version_id`: through the index for
    /// the UUIDs this crate makes, by a scan for any other id.
    pub(crate) fn position_of(&self, version_id: &str) -> Option<u64> {
        if let Ok(id) = uuid::Uuid::parse_str(version_id) {
            let position = self
                .positions
                .get(&id.as_u128())
                .copied()
                .filter(|at| *at <= self.position);
            // Only a stored id that names the same UUID in another spelling
            // (upper case, say) is missed by the index and found below.
            if let Some(position) = position {
                return Some(position);
            }
        }
        self.log
            .iter()
            .find(|change| change.record.version_id == version_id)
            .map(|change| change.record.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LessonValue;

    fn record(position: u64, state: &State) -> VersionRecord {
        let collection = if position.is_multiple_of(3) { "b" } else { "a" };
        let head = state.collection(collection).and_then(|c| c.head.clone());
        VersionRecord {
            position,
            collection: collection.to_owned(),
            definition_version: head.as_ref().map_or(0, |h| h.definition_version) + 1,
            version_id: uuid::Uuid::now_v7().to_string(),
            previous_version_id: head.map(|h| h.version_id.clone()),
            entry: (position % 17).to_string(),
            value: LessonValue::try_from(serde_json::json!({"n": position})).unwrap(),
            taught_by: "alice@example.com".to_owned(),
            reason: None,
            describes: String::new(),
            taught_at_ms: 0,
        }
    }

    /// A collection as compared: its name, head and entries' positions.
    type Contents = (String, Option<String>, Vec<(String, u64)>);

    /// What a state holds, to compare two.
    fn contents(state: &State) -> Vec<Contents> {
        state
            .collections
            .iter()
            .map(|(name, collection)| {
                let mut entries: Vec<(String, u64)> = collection
                    .entries
                    .iter()
                    .map(|(key, entry)| (key.to_string(), entry.record.position))
                    .collect();
                entries.sort();
                let head = collection.version_id().map(str::to_owned);
                (name.to_string(), head, entries)
            })
            .collect()
    }

    #[test]
    fn every_past_position_is_what_applying_up_to_it_made() {
        let total = 3 * CHECKPOINT_EVERY + 40;
        let mut present = State::default();
        let mut built = vec![State::default()];
        for position in 1..=total {
            let next = record(position, &present);
            present.follows_on(&next).unwrap();
            present.apply(Arc::new(next));
            built.push(present.clone());
        }
        for position in (0..=total).chain([total + 5]) {
            let past = present.as_of(position);
            let expected = &built[usize::try_from(position.min(total)).unwrap()];
            assert_eq!(past.position, expected.position);
            assert_eq!(contents(&past), contents(expected), "at {position}");
            assert_eq!(past.log.len(), expected.log.len());
            // A past state carries on as if it were the present then.
            let next = record(past.position + 1, &past);
            assert!(past.follows_on(&next).is_ok());
        }
        let id = &built[100].log[99].record.version_id;
        assert_eq!(present.position_of(id), Some(100));
        assert_eq!(present.as_of(50).position_of(id), None);
        assert_eq!(present.position_of("not-a-uuid"), None);
    }
}
