//! [`Unpublished`]: the versions a state has applied and not published
//! yet (its tail), with the latest of each entry they change, found
//! without reading the store.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::change::Change;
use super::store::Store;

/// Versions applied but not published yet.
#[derive(Clone, Default)]
pub(crate) struct Unpublished {
    /// In position order.
    changes: Vec<Change>,
    /// The latest position in `changes` of each entry they change, with
    /// the entry's [`tail_hash`] (kept, so that growing the table reads no
    /// change); the key is the change's there. Empty while the tail is
    /// short enough to search ([`TAIL_SEARCHED`]), as most are (a commit of
    /// one lesson makes a tail of one).
    entries: HashTable<(u64, u64)>,
}

/// The longest tail searched change by change rather than through an index.
pub(crate) const TAIL_SEARCHED: usize = 8;

impl Unpublished {
    /// The changes, in position order.
    pub(crate) fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// The changes, in position order, taken out.
    pub(crate) fn into_changes(self) -> Vec<Change> {
        self.changes
    }

    /// The change at `position`, one of the tail's.
    pub(crate) fn change(&self, position: u64) -> Option<&Change> {
        change_at(&self.changes, position)
    }

    /// The position of the latest change of entry `key` of collection
    /// `collection` in the tail.
    pub(crate) fn latest(&self, store: &Store, collection: u32, key: &str) -> Option<u64> {
        if self.changes.len() <= TAIL_SEARCHED {
            return self
                .changes
                .iter()
                .rev()
                .find(|change| is_change_of(Some(change), collection, key))
                .map(|change| change.position);
        }
        self.entries
            .find(tail_hash(store, collection, key), |(_, at)| {
                is_change_of(self.change(*at), collection, key)
            })
            .map(|(_, at)| *at)
    }

    /// Makes room for `additional` more changes, so that applying many
    /// (a store opening) neither copies the changes nor rehashes the index
    /// as they come.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.changes.reserve(additional);
        if self.changes.len() + additional > TAIL_SEARCHED {
            self.entries.reserve(additional, |(hash, _)| *hash);
        }
    }

    /// Appends `change`, the next version.
    pub(crate) fn push(&mut self, store: &Store, change: Change) {
        self.changes.push(change);
        match self.changes.len() {
            length if length <= TAIL_SEARCHED => {}
            length if length == TAIL_SEARCHED + 1 => {
                for at in 0..length {
                    self.index(store, at);
                }
            }
            length => self.index(store, length - 1),
        }
    }

    /// Makes `changes[at]` its entry's latest in `entries`.
    fn index(&mut self, store: &Store, at: usize) {
        let Unpublished { changes, entries } = self;
        let change = &changes[at];
        let (number, key, position) = (change.collection, change.entry(), change.position);
        let hash = tail_hash(store, number, key);
        let earlier = entries.find_mut(hash, |(_, at)| {
            is_change_of(change_at(changes, *at), number, key)
        });
        match earlier {
            Some((_, latest)) => *latest = position,
            None => {
                entries.insert_unique(hash, (hash, position), |(hash, _)| *hash);
            }
        }
    }
}

/// The change at `position` among `changes`, which are in position order
/// with no gap.
fn change_at(changes: &[Change], position: u64) -> Option<&Change> {
    let first = changes.first()?.position;
    changes.get(usize::try_from(position.checked_sub(first)?).ok()?)
}

/// Whether `change` is one of entry `key` of the collection numbered
/// `collection`.
fn is_change_of(change: Option<&Change>, collection: u32, key: &str) -> bool {
    change.is_some_and(|change| change.collection == collection && change.is_entry(key))
}

/// The hash of entry `key` of the collection numbered `collection`, in a
/// tail's index.
fn tail_hash(store: &Store, collection: u32, key: &str) -> u64 {
    store.hasher.hash_one((collection, key))
}
