//! The knowledge at one position. Every version is kept once, compact, in
//! an append-only log that all states of a knowledge share ([`Store`]); a
//! state is a position in it, with each collection's latest version and
//! index of entries. A snapshot is one reference count; a state of the past
//! is the same log read at an earlier position: each entry's versions are
//! chained, so the version an entry had at any position is a few steps
//! back from its latest.

use std::sync::Arc;

use super::VersionRecord;
use super::append_log::PositionLog;
use super::change::{Change, EntryLink, Names, value_json};
use super::entry_index::EntryIndex;
use super::same_text::same_bytes;
use super::store::{CollectionLog, Store, id_hash, same_id};
use super::unpublished::Unpublished;
use super::version_record::RecordView;

/// One collection as a state sees it.
#[derive(Clone)]
pub(crate) struct CollectionState {
    pub(crate) name: Arc<str>,
    /// Its number in the store.
    number: u32,
    /// The position of its latest version.
    head: u64,
    /// How many versions it has (`definitionVersion` of the latest).
    version: u64,
    entries: EntryIndex,
}

/// All collections at one position.
#[derive(Clone, Default)]
pub(crate) struct State {
    store: Arc<Store>,
    /// How many versions the knowledge has (the position of the latest).
    pub(crate) position: u64,
    /// The collections with at least one version.
    pub(crate) collections: Vec<CollectionState>,
    /// Versions applied after the store's, not published yet (none in a
    /// published state, so that a pin stays small).
    tail: Option<Box<Unpublished>>,
}

impl State {
    pub(crate) fn collection(&self, name: &str) -> Option<&CollectionState> {
        self.collections.get(self.collection_index(name)?)
    }

    /// Where the collection `name` is among this state's.
    fn collection_index(&self, name: &str) -> Option<usize> {
        self.collections
            .iter()
            .position(|collection| same_bytes(collection.name.as_bytes(), name.as_bytes()))
    }

    /// The version at `position`, published or in the tail.
    pub(crate) fn change(&self, position: u64) -> Option<&Change> {
        let tail = self.tail.as_deref().map_or(&[][..], Unpublished::changes);
        match tail.first() {
            Some(first) if position >= first.position => {
                tail.get(usize::try_from(position - first.position).ok()?)
            }
            _ => self.store.change(position),
        }
    }

    /// The latest version of `collection`.
    pub(crate) fn head(&self, collection: &str) -> Option<&Change> {
        self.change(self.collection(collection)?.head)
    }

    /// The version that gave `key` of `collection` its value at this
    /// state's position: `None` when the entry is absent, never taught or
    /// retracted.
    pub(crate) fn entry(&self, collection: &str, key: &str) -> Option<&Change> {
        self.latest(collection, key)
            .filter(|change| !change.is_retracted())
    }

    /// The latest version of `key` of `collection` at this state's
    /// position, a retraction included.
    pub(crate) fn latest(&self, collection: &str, key: &str) -> Option<&Change> {
        self.latest_in(self.collection(collection)?, key)
    }

    /// The version before `change` of its entry, if any.
    pub(crate) fn entry_previous(&self, change: &Change) -> Option<&Change> {
        let previous = change.link().previous;
        (previous != 0).then(|| self.change(previous)).flatten()
    }

    /// [`State::latest`] of a collection of this state.
    fn latest_in(&self, collection: &CollectionState, key: &str) -> Option<&Change> {
        if let Some(tail) = &self.tail
            && let Some(position) = tail.latest(&self.store, collection.number, key)
        {
            return tail.change(position);
        }
        let latest = collection.entries.latest(&self.store, key)?;
        if latest.position <= self.position {
            return Some(latest);
        }
        self.change(self.at_or_before(latest.position, self.position)?)
    }

    /// The entries of `collection` at this state's position (of a published
    /// state), in no order.
    pub(crate) fn entries<'a>(
        &'a self,
        collection: &'a CollectionState,
    ) -> impl Iterator<Item = &'a Change> + 'a {
        collection
            .entries
            .positions()
            .filter_map(|latest| self.change(self.at_or_before(latest, self.position)?))
            .filter(|change| !change.is_retracted())
    }

    /// The position of the version of the entry whose version is at
    /// `latest` that was its latest at `position`: back along the entry's
    /// chain, in a number of steps logarithmic in the versions skipped.
    fn at_or_before(&self, latest: u64, position: u64) -> Option<u64> {
        let mut at = latest;
        while at > position {
            let link = self.change(at)?.link();
            at = if link.jump > position {
                link.jump
            } else {
                link.previous
            };
        }
        (at != 0).then_some(at)
    }

    /// The link of a new version of the entry whose latest version is at
    /// `previous` (0 for a new entry): the jump pointers of an applicative
    /// random-access stack (Myers, 1983).
    fn link_after(&self, previous: u64) -> EntryLink {
        let link_at = |position: u64| {
            self.change(position)
                .filter(|_| position != 0)
                .map_or(EntryLink::default(), |change| change.link())
        };
        if previous == 0 {
            return EntryLink {
                previous: 0,
                jump: 0,
                depth: 1,
            };
        }
        let parent = link_at(previous);
        let jumped = link_at(parent.jump);
        let jumped_twice = link_at(jumped.jump);
        let jump = if parent.depth.wrapping_sub(jumped.depth)
            == jumped.depth.wrapping_sub(jumped_twice.depth)
        {
            jumped.jump
        } else {
            previous
        };
        EntryLink {
            previous,
            jump,
            depth: parent.depth.saturating_add(1),
        }
    }

    /// The record of a version of this state, made once and kept.
    pub(crate) fn record<'a>(&'a self, change: &'a Change) -> &'a VersionRecord {
        change.record(|| self.names(change))
    }

    /// A copy of the record of a version of this state, made without
    /// keeping it (for reading many old versions once).
    pub(crate) fn record_copy(&self, change: &Change) -> VersionRecord {
        match change.kept_record() {
            Some(kept) => kept.clone(),
            None => change.to_record(self.names(change)),
        }
    }

    /// The name of `change`'s collection.
    pub(crate) fn collection_name(&self, change: &Change) -> &str {
        match self.store.collections.get(change.collection as usize) {
            Some(published) => &published.name,
            None => self
                .collections
                .iter()
                .find(|collection| collection.number == change.collection)
                .map_or("", |collection| &collection.name),
        }
    }

    /// Who taught `change`.
    pub(crate) fn teacher_name(&self, change: &Change) -> &str {
        self.store.teacher(change.teacher)
    }

    /// What `change` needs to make its full record.
    fn names(&self, change: &Change) -> Names {
        Names {
            collection: self.collection_name(change).to_owned(),
            taught_by: self.teacher_name(change).to_owned(),
            previous_version_id: self.previous_version_id(change),
        }
    }

    /// The id of the version of `change`'s collection before it.
    pub(crate) fn previous_version_id(&self, change: &Change) -> Option<String> {
        let number = change
            .definition_version
            .checked_sub(1)
            .filter(|n| *n > 0)?;
        let position = self
            .store
            .version_position(change.collection, number)
            .or_else(|| {
                self.tail
                    .as_deref()?
                    .changes()
                    .iter()
                    .find(|t| t.collection == change.collection && t.definition_version == number)
                    .map(|t| t.position)
            })?;
        Some(self.change(position)?.version_id().to_owned())
    }

    /// Makes room for `additional` records to be applied.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.tail.get_or_insert_default().reserve(additional);
    }

    /// Applies the next record; [`State::follows_on`] has checked it.
    pub(crate) fn apply(&mut self, record: &VersionRecord) {
        self.apply_written(record.view(), value_json(&record.value).as_deref());
    }

    /// [`State::apply`] of a record whose value is already written as
    /// `value_json` ([`value_json`] of its value): for a version taught in
    /// this process, whose value was written to compare it with the
    /// entry's, so that it is written once.
    pub(crate) fn apply_written(&mut self, record: RecordView<'_>, value_json: Option<&str>) {
        let index = match self.collection_index(record.collection) {
            Some(index) => index,
            None => {
                let number = self
                    .collections
                    .iter()
                    .map(|c| c.number + 1)
                    .max()
                    .unwrap_or(0)
                    .max(u32::try_from(self.store.collections.len()).unwrap_or(u32::MAX));
                self.collections.push(CollectionState {
                    name: Arc::from(record.collection),
                    number,
                    head: 0,
                    version: 0,
                    entries: EntryIndex::default(),
                });
                self.collections.len() - 1
            }
        };
        let number = self.collections[index].number;
        let previous = self
            .latest_in(&self.collections[index], record.entry)
            .map_or(0, |change| change.position);
        let link = self.link_after(previous);
        let position = record.position;
        let definition_version = record.definition_version;
        let teacher = self.store.teacher_number(record.taught_by);
        let change = Change::new(record, number, teacher, link, value_json, &self.store.texts);
        self.tail.get_or_insert_default().push(&self.store, change);
        let collection = &mut self.collections[index];
        collection.head = position;
        collection.version = definition_version;
        self.position = position;
    }

    /// Appends the tail to the store, where pins of this state read it.
    /// For the writer only (it holds the knowledge's writer lock); versions
    /// the store already has (published from a copy of this state) are
    /// only indexed.
    pub(crate) fn publish(&mut self) {
        let store = self.store.clone();
        let Some(tail) = self.tail.take() else {
            return;
        };
        let count = tail.changes().len();
        // The versions each collection's index is to take, by collection.
        let mut indexed: Vec<Vec<u64>> = vec![Vec::new(); self.collections.len()];
        for change in tail.into_changes() {
            let position = change.position;
            let number = change.collection;
            let Some(index) = self.collections.iter().position(|c| c.number == number) else {
                continue;
            };
            // Indexed only once the store holds it: appended here, or
            // published already from a copy of this state.
            let held = if position == store.published() + 1 {
                if number as usize >= store.collections.len() {
                    let name = self.collections[index].name.clone();
                    let _ = store.collections.push(CollectionLog {
                        name,
                        versions: PositionLog::default(),
                    });
                }
                if let Some(collection) = store.collections.get(number as usize) {
                    collection.versions.push(position);
                }
                let hash = id_hash(&store, change.version_id());
                if store.log.push(change).is_err() {
                    continue;
                }
                store.ids.insert(hash, position);
                store.change(position)
            } else {
                store
                    .change(position)
                    .filter(|published| published.is_entry(change.entry()))
            };
            if held.is_some() {
                indexed[index].push(position);
            }
        }
        for (collection, positions) in self.collections.iter_mut().zip(indexed) {
            collection.entries.set_all(&store, &positions);
            collection.entries.settle(&store, count);
        }
    }

    /// Whether `record` is the next version: the next position, and the
    /// next version of its collection, naming the current head.
    pub(crate) fn follows_on(&self, record: &VersionRecord) -> Result<(), String> {
        self.follows_on_view(record.view())
    }

    /// [`State::follows_on`] of a borrowed record.
    pub(crate) fn follows_on_view(&self, record: RecordView<'_>) -> Result<(), String> {
        if record.position != self.position + 1 {
            return Err(format!(
                "version {} is at position {}, but the knowledge is at position {}",
                record.version_id, record.position, self.position
            ));
        }
        let head = self.head(record.collection);
        let head_version = head.map_or(0, |head| head.definition_version);
        let head_id = head.map(Change::version_id);
        if record.definition_version != head_version + 1 || record.previous_version_id != head_id {
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

    /// The knowledge as it was at `position` (of a published state): each
    /// collection's latest version then, found by a binary search of its
    /// versions; entries are read back along their chains. Costs a few
    /// steps per collection whatever the size and age of the knowledge.
    pub(crate) fn as_of(&self, position: u64) -> State {
        let position = position.min(self.position);
        let collections = self
            .collections
            .iter()
            .filter_map(|collection| {
                let versions = &self
                    .store
                    .collections
                    .get(collection.number as usize)?
                    .versions;
                let known = usize::try_from(collection.version).unwrap_or(usize::MAX);
                let (mut low, mut high) = (0, known.min(versions.len()));
                while low < high {
                    let middle = low + (high - low) / 2;
                    if versions.get(middle).is_some_and(|at| at <= position) {
                        low = middle + 1;
                    } else {
                        high = middle;
                    }
                }
                let head = versions.get(low.checked_sub(1)?)?;
                Some(CollectionState {
                    head,
                    version: low as u64,
                    ..collection.clone()
                })
            })
            .collect();
        State {
            store: self.store.clone(),
            position,
            collections,
            tail: None,
        }
    }

    /// Every version of `collection` (of a published state), oldest first:
    /// each entry's latest and every earlier one a pin may reach.
    pub(crate) fn versions<'a>(&'a self, collection: &str) -> impl Iterator<Item = &'a Change> {
        let (number, count) = self
            .collection(collection)
            .map_or((0, 0), |state| (state.number, state.version));
        (1..=count)
            .filter_map(move |version| self.change(self.store.version_position(number, version)?))
    }

    /// The records of `collection`, oldest first.
    pub(crate) fn history(&self, collection: &str) -> Vec<VersionRecord> {
        let mut previous: Option<String> = None;
        self.versions(collection)
            .map(|change| {
                let record = change.to_record(Names {
                    collection: collection.to_owned(),
                    taught_by: self.store.teacher(change.teacher).to_owned(),
                    previous_version_id: previous.take(),
                });
                previous = Some(record.version_id.clone());
                record
            })
            .collect()
    }

    /// The position of the version `version_id`, through the index of ids.
    pub(crate) fn position_of(&self, version_id: &str) -> Option<u64> {
        self.store
            .ids
            .find(id_hash(&self.store, version_id), |at| {
                self.store
                    .change(at)
                    .is_some_and(|change| same_id(change.version_id(), version_id))
            })
            .filter(|at| *at <= self.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LessonValue;
    use crate::knowledge::unpublished::TAIL_SEARCHED;

    /// The next record after `state`: collection "b" every third position,
    /// "a" otherwise; entry "0" changes at every fifth position, the others
    /// in turn among 17.
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
            previous_version_id: head.map(|h| h.version_id().to_owned()),
            entry: entry.to_string(),
            value: LessonValue::try_from(serde_json::json!({"n": position})).unwrap(),
            taught_by: "alice@example.com".to_owned(),
            reason: position
                .is_multiple_of(2)
                .then(|| format!("reason {position}")),
            describes: String::new(),
            taught_at_ms: position,
            retracted: false,
        }
    }

    /// A collection as compared: its name, head, version and entries'
    /// positions and values.
    type Contents = (
        String,
        Option<VersionRecord>,
        u64,
        Vec<(String, u64, LessonValue)>,
    );

    /// What a state holds, to compare two.
    fn contents(state: &State) -> Vec<Contents> {
        let mut all: Vec<Contents> = state
            .collections
            .iter()
            .map(|collection| {
                let mut entries: Vec<(String, u64, LessonValue)> = state
                    .entries(collection)
                    .map(|change| (change.entry().to_owned(), change.position, change.value()))
                    .collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                for (key, position, _) in &entries {
                    let found = state.entry(&collection.name, key).map(|c| c.position);
                    assert_eq!(found, Some(*position));
                }
                let head = state
                    .head(&collection.name)
                    .map(|head| state.record(head).clone());
                (
                    collection.name.to_string(),
                    head,
                    collection.version,
                    entries,
                )
            })
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    #[test]
    fn a_large_publish_folds_its_keys_into_the_flat_table_and_a_small_one_leaves_it() {
        let new_key = |position: u64, state: &State| VersionRecord {
            entry: format!("key-{position}"),
            collection: "a".to_owned(),
            definition_version: position,
            previous_version_id: state.head("a").map(|h| h.version_id().to_owned()),
            ..record(position, state)
        };
        let mut state = State::default();
        for position in 1..=1000 {
            let next = new_key(position, &state);
            state.apply(&next);
        }
        state.publish();
        let recent = |state: &State| state.collection("a").unwrap().entries.recent_len();
        assert_eq!(recent(&state), 0);
        for position in 1001..=1010 {
            let next = new_key(position, &state);
            state.apply(&next);
            state.publish();
        }
        assert_eq!(recent(&state), 10);
        for position in 1..=1010 {
            let found = state.entry("a", &format!("key-{position}"));
            assert_eq!(found.map(|change| change.position), Some(position));
        }
        assert!(state.entry("a", "key-1011").is_none());
    }

    #[test]
    fn every_past_position_is_what_applying_up_to_it_made() {
        let total = 1500;
        let mut present = State::default();
        let mut built = vec![(State::default(), Vec::new())];
        for position in 1..=total {
            let next = record(position, &present);
            present.follows_on(&next).unwrap();
            present.apply(&next);
            if position % 7 != 0 {
                // Some states publish several versions at once.
                present.publish();
            }
            if position % 7 != 6 {
                let mut published = present.clone();
                published.publish();
                let seen = contents(&published);
                built.push((published, seen));
            }
        }
        present.publish();
        for (state, seen) in &built {
            // A state never sees what was published after it.
            assert_eq!(&contents(state), seen, "at {}", state.position);
            let past = present.as_of(state.position);
            assert_eq!(past.position, state.position);
            assert_eq!(&contents(&past), seen, "as of {}", state.position);
            // A past state carries on as if it were the present then.
            let next = record(past.position + 1, &past);
            assert!(past.follows_on(&next).is_ok());
        }
        assert_eq!(present.as_of(total + 5).position, total);
        let history = present.history("a");
        assert_eq!(
            history.len() as u64,
            present.collection("a").unwrap().version
        );
        for pair in history.windows(2) {
            assert_eq!(
                pair[1].previous_version_id.as_ref(),
                Some(&pair[0].version_id)
            );
            assert_eq!(pair[1].definition_version, pair[0].definition_version + 1);
        }
        let id = &history[99].version_id;
        let position = history[99].position;
        assert_eq!(present.position_of(id), Some(position));
        assert_eq!(present.position_of(&id.to_uppercase()), Some(position));
        assert_eq!(present.as_of(position - 1).position_of(id), None);
        assert_eq!(present.position_of("not-a-uuid"), None);
    }

    #[test]
    fn every_teacher_keeps_their_name_however_many_there_are() {
        let mut state = State::default();
        let teacher = |position: u64| format!("teacher-{}@example.com", position % 20);
        for position in 1..=60 {
            let mut next = record(position, &state);
            next.taught_by = teacher(position);
            state.apply(&next);
            if position % 3 == 0 {
                state.publish();
            }
        }
        state.publish();
        let taught_by: Vec<(u64, String)> = ["a", "b"]
            .into_iter()
            .flat_map(|collection| state.history(collection))
            .map(|record| (record.position, record.taught_by))
            .collect();
        assert_eq!(taught_by.len(), 60);
        for (position, name) in taught_by {
            assert_eq!(name, teacher(position), "at {position}");
        }
    }

    #[test]
    fn a_tail_of_any_length_finds_each_entrys_latest_version() {
        // Around the length where the tail starts to index its entries.
        for length in 0..=3 * TAIL_SEARCHED as u64 {
            let mut state = State::default();
            let mut latest = std::collections::BTreeMap::new();
            for position in 1..=length {
                let mut next = record(position, &state);
                // Entries repeat within a short tail; the first is never
                // changed again.
                next.entry = match position {
                    1 => "first".to_owned(),
                    _ => (position % 4).to_string(),
                };
                latest.insert((next.collection.clone(), next.entry.clone()), position);
                state.apply(&next);
            }
            let found = |state: &State| {
                latest
                    .keys()
                    .map(|(collection, entry)| state.entry(collection, entry).map(|c| c.position))
                    .collect::<Vec<_>>()
            };
            let expected: Vec<_> = latest.values().map(|position| Some(*position)).collect();
            assert_eq!(found(&state), expected, "a tail of {length}");
            assert_eq!(state.entry("a", "no such entry").map(|c| c.position), None);
            state.publish();
            assert_eq!(found(&state), expected, "published, {length}");
        }
    }

    #[test]
    fn an_entry_changed_many_times_is_read_at_any_position_in_few_steps() {
        let mut state = State::default();
        for position in 1..=5000 {
            let next = record(position, &state);
            state.apply(&next);
        }
        state.publish();
        let entry = |at: u64| state.as_of(at).entry("a", "0").map(|c| c.position);
        assert_eq!(entry(4), None);
        assert_eq!(entry(5), Some(5));
        assert_eq!(entry(9), Some(5));
        // Entry "0" of "a" changes at multiples of 5 that are not of 3.
        for at in [11, 777, 2999, 3001, 4999, 5000] {
            let expected = (1..=at).rev().find(|p| p % 5 == 0 && p % 3 != 0);
            assert_eq!(entry(at), expected, "at {at}");
        }
        let mut steps = 0;
        let mut at = state.entry("a", "0").unwrap().position;
        while at > 20 {
            let link = state.change(at).unwrap().link();
            at = if link.jump > 20 {
                link.jump
            } else {
                link.previous
            };
            steps += 1;
        }
        assert!(steps < 40, "{steps} steps back through 667 versions");
    }
}

#[cfg(test)]
mod concurrency_tests {
    use super::*;
    use crate::LessonValue;
    use arc_swap::ArcSwap;

    /// The entry the version at `position` changes: a new entry at every
    /// third position (so that the index is rebuilt as it grows), one of 7
    /// otherwise.
    fn key(position: u64) -> String {
        if position.is_multiple_of(3) {
            format!("new-{position}")
        } else {
            format!("k{}", position % 7)
        }
    }

    fn record(position: u64, state: &State) -> VersionRecord {
        let head = state.head("c");
        VersionRecord {
            position,
            collection: "c".to_owned(),
            definition_version: head.map_or(0, |h| h.definition_version) + 1,
            version_id: uuid::Uuid::now_v7().to_string(),
            previous_version_id: head.map(|h| h.version_id().to_owned()),
            entry: key(position),
            value: LessonValue::try_from(serde_json::json!({"n": position})).unwrap(),
            taught_by: "alice@example.com".to_owned(),
            reason: None,
            describes: String::new(),
            taught_at_ms: 0,
            retracted: false,
        }
    }

    #[test]
    fn readers_pinning_while_versions_are_published_see_exactly_their_position() {
        let total = 6000;
        let current = Arc::new(ArcSwap::from_pointee(State::default()));
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (current, done) = (current.clone(), done.clone());
                std::thread::spawn(move || {
                    let mut checked = 0;
                    while !done.load(std::sync::atomic::Ordering::Acquire) || checked == 0 {
                        let state = current.load_full();
                        let at = state.position;
                        for probe in [at, at.saturating_sub(1), at / 2, 1] {
                            let key = key(probe.max(1));
                            let expected = (1..=at).rev().find(|p| self::key(*p) == key);
                            let found = state.entry("c", &key).map(|change| change.position);
                            assert_eq!(found, expected, "{key} at {at}");
                        }
                        assert_eq!(state.collection("c").map_or(0, |c| c.version), at);
                        checked += 1;
                    }
                })
            })
            .collect();
        let mut state = State::default();
        for position in 1..=total {
            let next = record(position, &state);
            state.apply(&next);
            if position % 3 != 1 {
                state.publish();
                current.store(Arc::new(state.clone()));
            }
        }
        done.store(true, std::sync::atomic::Ordering::Release);
        for reader in readers {
            reader.join().unwrap();
        }
    }
}
