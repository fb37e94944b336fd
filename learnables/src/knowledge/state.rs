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

/// All collections at one position.
#[derive(Clone, Default)]
pub(crate) struct State {
    /// How many versions the knowledge has (the position of the latest).
    pub(crate) position: u64,
    pub(crate) collections: OrdMap<Arc<str>, CollectionState>,
    /// Every change, in position order.
    pub(crate) log: Vector<Arc<Change>>,
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
        self.log.push_back(Arc::new(Change {
            record,
            replaced,
            previous_head,
        }));
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

    /// The knowledge as it was at `position`: later changes undone, most
    /// recent first. Costs the number of changes undone, not the size of
    /// the knowledge.
    pub(crate) fn as_of(&self, position: u64) -> State {
        let mut past = self.clone();
        while past.position > position {
            let Some(change) = past.log.pop_back() else {
                break;
            };
            past.undo(&change);
        }
        past
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

    /// The position of the version `version_id`.
    pub(crate) fn position_of(&self, version_id: &str) -> Option<u64> {
        self.log
            .iter()
            .find(|change| change.record.version_id == version_id)
            .map(|change| change.record.position)
    }
}
