//! [`State`]: the knowledge after its latest version. Every version is
//! kept once, behind an `Arc`; each collection's entries are persistent
//! maps (`imbl`) that share their unchanged parts with the state before, so
//! copying a state is a few reference counts and a lesson copies only the
//! paths it changes. What only grows (every version in order, by
//! collection and by id) is kept once for all states ([`Published`]).
//!
//! A state is never changed once shared: the writer applies versions to
//! its own copy and publishes it whole. A state is read as of any position
//! up to its latest (a [`Snapshot`](crate::Snapshot) pinned in the past):
//! each entry's versions are chained, newest first, so the version it had
//! then is found by walking back from its latest.

use std::sync::Arc;

use imbl::OrdSet;
use imbl::shared_ptr::DefaultSharedPtr;

#[cfg(feature = "embedded")]
use crate::StoreError;
use crate::VersionRecord;
use crate::entry_key::{ByEntry, EntryKey, EntryProbe};
use crate::published::Published;
use crate::record_view::RecordView;
#[cfg(feature = "embedded")]
use crate::record_view::ValueRef;
use crate::version::{Shared, Version, value_json};

/// A persistent hash map with a fast, randomly seeded hasher: opening a
/// store hashes every version's keys, and SipHash's resistance to chosen
/// keys is not needed where the seed is random and the keys are the
/// knowledge's own.
type HashMap<K, V> = imbl::GenericHashMap<K, V, foldhash::fast::RandomState, DefaultSharedPtr>;

/// The knowledge after its latest version.
#[derive(Clone, Default)]
pub(crate) struct State {
    /// How many versions the knowledge has (the position of the latest).
    position: u64,
    /// The collections with at least one version, in the order of their
    /// first.
    collections: Vec<Collection>,
    /// The versions published so far, shared by every state.
    published: Arc<Published>,
    /// Versions applied since the state was last published, in position
    /// order: only the writer's own copy has any.
    unpublished: Vec<Arc<Version>>,
    /// Every teacher's name, kept once.
    teachers: HashMap<Arc<str>, ()>,
}

/// One collection: its latest version, and each entry's.
#[derive(Clone)]
pub(crate) struct Collection {
    pub(crate) name: Arc<str>,
    head: Arc<Version>,
    /// Each entry's latest version, a retraction included.
    entries: HashMap<ByEntry, ()>,
    /// Every entry's key, in the order entries are listed.
    order: OrdSet<EntryKey>,
}

impl Collection {
    /// The version of entry `key` at position `at`, a retraction included.
    pub(crate) fn latest(&self, key: &str, at: u64) -> Option<&Version> {
        let (newest, ()) = self.entries.get_key_value(&EntryProbe(key))?;
        newest
            .0
            .and_earlier()
            .find(|version| version.position <= at)
    }

    /// The version that gave entry `key` its value at position `at`: `None`
    /// when the entry was absent (never taught, or retracted).
    pub(crate) fn entry(&self, key: &str, at: u64) -> Option<&Version> {
        self.latest(key, at).filter(|version| !version.retracted)
    }

    /// The entries present at position `at`, in key order.
    pub(crate) fn entries(&self, at: u64) -> impl Iterator<Item = &Version> {
        self.order
            .iter()
            .filter_map(move |key| self.entry(&key.text, at))
    }
}

impl State {
    /// How many versions the knowledge has: the position of the latest.
    pub(crate) fn position(&self) -> u64 {
        self.position
    }

    /// The collection `name`, once it has a version.
    pub(crate) fn collection(&self, name: &str) -> Option<&Collection> {
        self.collections
            .iter()
            .find(|collection| *collection.name == *name)
    }

    /// The names of the collections with at least one version at `at`.
    pub(crate) fn collections(&self, at: u64) -> impl Iterator<Item = &str> {
        self.collections
            .iter()
            .filter(move |collection| self.head_at(&collection.name, at).is_some())
            .map(|collection| &*collection.name)
    }

    /// The latest version of entry `key` of `collection`, a retraction
    /// included.
    pub(crate) fn latest(&self, collection: &str, key: &str) -> Option<&Version> {
        self.collection(collection)?.latest(key, self.position)
    }

    /// The latest version of `collection`.
    pub(crate) fn head(&self, collection: &str) -> Option<&Version> {
        self.collection(collection)
            .map(|collection| &*collection.head)
    }

    /// The latest version of `collection` at position `at` (of a published
    /// state).
    pub(crate) fn head_at(&self, collection: &str, at: u64) -> Option<Arc<Version>> {
        let head = &self.collection(collection)?.head;
        if head.position <= at {
            return Some(head.clone());
        }
        self.published.head(collection, at)
    }

    /// Every version of `collection` (of a published state), oldest first.
    pub(crate) fn collection_versions(&self, collection: &str) -> Vec<Arc<Version>> {
        self.published
            .collection_versions(collection, self.position)
    }

    /// Every version (of a published state), in position order.
    pub(crate) fn versions(&self) -> Vec<Arc<Version>> {
        self.published.versions(self.position)
    }

    /// The version whose id is `version_id` (of a published state), in any
    /// spelling of a UUID.
    pub(crate) fn by_id(&self, version_id: &str) -> Option<Arc<Version>> {
        self.published.by_id(version_id, self.position)
    }

    /// The records of `collection` (of a published state), oldest first.
    pub(crate) fn history(&self, collection: &str) -> Vec<VersionRecord> {
        let versions = self.collection_versions(collection);
        versions.iter().map(|version| version.to_record()).collect()
    }

    /// Whether `record` is the next version: the next position, and the
    /// next version of its collection, naming the current head.
    pub(crate) fn follows_on(&self, record: &VersionRecord) -> Result<(), String> {
        self.follows_on_view(&RecordView::of(record))
    }

    /// [`State::follows_on`] of a borrowed record.
    pub(crate) fn follows_on_view(&self, record: &RecordView<'_>) -> Result<(), String> {
        if record.position != self.position + 1 {
            return Err(format!(
                "version {} is at position {}, but the knowledge is at position {}",
                record.version_id, record.position, self.position
            ));
        }
        let head = self.head(&record.collection);
        let head_version = head.map_or(0, |head| head.definition_version);
        let head_id = head.map(|head| &*head.version_id);
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

    /// Applies the next record; [`State::follows_on`] has checked it.
    pub(crate) fn apply(&mut self, record: &VersionRecord) {
        self.apply_written(
            &RecordView::of(record),
            value_json(&record.value).as_deref(),
        );
    }

    /// Checks that a record read back from a store follows on, and applies
    /// it, its value kept as the text it was read as when that text is
    /// what the value parsed would be written as.
    #[cfg(feature = "embedded")]
    pub(crate) fn apply_stored(&mut self, record: &RecordView<'_>) -> Result<(), StoreError> {
        self.follows_on_view(record)
            .map_err(|reason| StoreError::Damaged(reason.into()))?;
        match &record.value {
            ValueRef::Compact { text, plain: true } => {
                self.apply_written(record, Some(text));
            }
            value => {
                // Keys out of order, or nested deeper than a version keeps
                // as text: read as any record is.
                let parsed = value.parsed().map_err(|error| {
                    StoreError::Damaged(
                        format!(
                            "the value of the version at position {} cannot be read: {error}",
                            record.position
                        )
                        .into(),
                    )
                })?;
                let json = value_json(&parsed);
                let view = record.with_value(ValueRef::Parsed(&parsed));
                self.apply_written(&view, json.as_deref());
            }
        }
        Ok(())
    }

    /// [`State::apply`] of a record whose value is already written as
    /// `value_json` ([`value_json`] of its value, or the compact text a store
    /// read back), so that it is written once.
    pub(crate) fn apply_written(&mut self, record: &RecordView<'_>, value_json: Option<&str>) {
        let taught_by = self.teacher(&record.taught_by);
        let index = self
            .collections
            .iter()
            .position(|collection| *collection.name == *record.collection);
        let collection = index.map(|index| &mut self.collections[index]);
        let previous = collection.as_ref().and_then(|collection| {
            let (newest, ()) = collection
                .entries
                .get_key_value(&EntryProbe(&record.entry))?;
            Some(newest.0.clone())
        });
        let shared = Shared {
            collection: collection
                .as_ref()
                .map_or_else(|| Arc::from(&*record.collection), |c| c.name.clone()),
            entry: previous.as_ref().map_or_else(
                || Arc::from(&*record.entry),
                |previous| previous.entry.clone(),
            ),
            taught_by,
            previous_version_id: collection.as_ref().map(|c| c.head.version_id.clone()),
            previous,
        };
        let is_new_entry = shared.previous.is_none();
        let version = Arc::new(Version::new(record, value_json, shared));
        let collection = match collection {
            Some(collection) => {
                collection.head = version.clone();
                collection
            }
            None => {
                self.collections.push(Collection {
                    name: version.collection.clone(),
                    head: version.clone(),
                    entries: HashMap::default(),
                    order: OrdSet::new(),
                });
                self.collections.last_mut().expect("just pushed")
            }
        };
        if is_new_entry {
            collection
                .order
                .insert(EntryKey::new(version.entry.clone()));
        }
        // Replaces the entry's key as well as its value: the key is the
        // version.
        collection.entries.insert(ByEntry(version.clone()), ());
        self.unpublished.push(version);
        self.position = record.position;
    }

    /// Makes the versions applied since the state was last published
    /// readable by id and in order, by every state. For the writer only,
    /// as it publishes this state.
    pub(crate) fn publish(&mut self) {
        self.published.append(&self.unpublished);
        self.unpublished = Vec::new();
    }

    /// The teacher `name`, kept once however many versions they taught.
    fn teacher(&mut self, name: &str) -> Arc<str> {
        if let Some((known, ())) = self.teachers.get_key_value(name) {
            return known.clone();
        }
        let name: Arc<str> = Arc::from(name);
        self.teachers.insert(name.clone(), ());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LessonValue;

    /// The next record after `state`: collection "b" every third position,
    /// "a" otherwise; entry "0" changes at every fifth position, the others
    /// in turn among 17; every eleventh version retracts its entry.
    fn record(position: u64, state: &State) -> VersionRecord {
        let collection = if position.is_multiple_of(3) { "b" } else { "a" };
        let head = state.head(collection);
        let entry = if position.is_multiple_of(5) {
            0
        } else {
            position % 17
        };
        VersionRecord {
            position,
            collection: collection.to_owned(),
            definition_version: head.map_or(0, |h| h.definition_version) + 1,
            version_id: uuid::Uuid::now_v7().to_string(),
            previous_version_id: head.map(|h| h.version_id.to_string()),
            entry: entry.to_string(),
            value: LessonValue::try_from(serde_json::json!({"n": position})).unwrap(),
            taught_by: format!("teacher-{}@example.com", position % 20),
            reason: position
                .is_multiple_of(2)
                .then(|| format!("reason {position}")),
            describes: String::new(),
            taught_at_ms: position,
            retracted: position.is_multiple_of(11),
        }
    }

    /// What a state holds as of `at`: each collection's name, head and
    /// entries (key, position, value), in key order.
    type Contents = Vec<(
        String,
        Option<VersionRecord>,
        Vec<(String, u64, LessonValue)>,
    )>;

    fn contents(state: &State, at: u64) -> Contents {
        state
            .collections(at)
            .map(|name| {
                let collection = state.collection(name).unwrap();
                let head = state.head_at(name, at).map(|head| head.to_record());
                let entries: Vec<_> = collection
                    .entries(at)
                    .map(|v| (v.entry.to_string(), v.position, v.value()))
                    .collect();
                for (key, position, _) in &entries {
                    let found = collection.entry(key, at).map(|v| v.position);
                    assert_eq!(found, Some(*position));
                }
                (name.to_owned(), head, entries)
            })
            .collect()
    }

    #[test]
    fn every_past_position_reads_as_what_applying_up_to_it_made() {
        let total = 1500;
        let mut present = State::default();
        let mut seen = vec![Contents::new()];
        for position in 1..=total {
            let next = record(position, &present);
            present.follows_on(&next).unwrap();
            present.apply(&next);
            if position % 7 != 0 {
                // Some publishes hold several versions.
                present.publish();
            }
            seen.push(contents(&present, position));
        }
        present.publish();
        for (at, expected) in seen.iter().enumerate() {
            assert_eq!(&contents(&present, at as u64), expected, "as of {at}");
        }
        let history = present.history("a");
        assert_eq!(
            history.len() as u64,
            present.head("a").unwrap().definition_version
        );
        for pair in history.windows(2) {
            assert_eq!(
                pair[1].previous_version_id.as_ref(),
                Some(&pair[0].version_id)
            );
            assert_eq!(pair[1].definition_version, pair[0].definition_version + 1);
            assert_eq!(
                pair[1].taught_by,
                format!("teacher-{}@example.com", pair[1].position % 20)
            );
        }
        let id = &history[99].version_id;
        assert_eq!(
            present.by_id(id).map(|v| v.position),
            Some(history[99].position)
        );
        assert_eq!(
            present.by_id(&id.to_uppercase()).map(|v| v.position),
            Some(history[99].position)
        );
        assert!(present.by_id("not-a-uuid").is_none());
        let positions: Vec<u64> = present.versions().iter().map(|v| v.position).collect();
        assert_eq!(positions, (1..=total).collect::<Vec<_>>());
    }

    #[test]
    fn a_copy_of_a_state_never_sees_what_is_applied_after_it() {
        let mut present = State::default();
        for position in 1..=300 {
            let next = record(position, &present);
            present.apply(&next);
            present.publish();
        }
        let copy = present.clone();
        let before = contents(&copy, copy.position());
        for position in 301..=600 {
            let next = record(position, &present);
            present.apply(&next);
            present.publish();
        }
        assert_eq!(contents(&copy, copy.position()), before);
        assert_eq!(contents(&present, 300), before);
        assert_eq!(copy.position(), 300);
    }

    #[test]
    fn ids_other_than_uuids_are_found_as_written() {
        let mut state = State::default();
        let mut next = record(1, &state);
        next.version_id = "version-one".to_owned();
        state.apply(&next);
        state.publish();
        assert_eq!(state.by_id("version-one").map(|v| v.position), Some(1));
        assert!(state.by_id("VERSION-ONE").is_none());
    }
}
