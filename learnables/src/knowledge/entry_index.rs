//! [`EntryIndex`]: a collection's entries by key, each to the position of
//! its latest version. Shared by every state of the knowledge: the writer
//! moves an entry's position forward in place, and a state pinned earlier
//! follows the entry's chain back to the version it holds.

use std::hash::BuildHasher;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use hashbrown::HashTable;
use imbl::GenericHashMap;
use imbl::shared_ptr::DefaultSharedPtr;

use super::change::Change;
use super::store::Store;

/// Keys added since the table was last built: a persistent map, so that a
/// state keeps the keys it knew.
type Recent =
    GenericHashMap<Arc<str>, Arc<AtomicU64>, foldhash::fast::RandomState, DefaultSharedPtr>;

/// A collection's entries. Most keys are in `table` (flat: a lookup probes
/// it once); keys added since it was built are in `recent`, until there are
/// enough of them to build it again.
#[derive(Clone, Default)]
pub(crate) struct EntryIndex {
    /// The latest position of each entry; its key is the key of the
    /// version there.
    table: Arc<HashTable<AtomicU64>>,
    recent: Recent,
}

impl EntryIndex {
    /// `key`'s latest version, as far as this index knows.
    pub(crate) fn latest<'s>(&self, store: &'s Store, key: &str) -> Option<&'s Change> {
        let hash = store.hasher.hash_one(key);
        let mut found = None;
        self.table.find(hash, |slot| {
            found = store
                .change(slot.load(Ordering::Acquire))
                .filter(|change| change.is_entry(key));
            found.is_some()
        });
        if found.is_none() && !self.recent.is_empty() {
            found = self
                .recent
                .get(key)
                .and_then(|slot| store.change(slot.load(Ordering::Acquire)));
        }
        found
    }

    /// Makes `position` (a published version of `key`) `key`'s latest.
    /// For the writer only.
    pub(crate) fn set(&mut self, store: &Store, key: &str, position: u64) {
        let hash = store.hasher.hash_one(key);
        let known = self
            .table
            .find(hash, |slot| {
                store.key_at(slot.load(Ordering::Acquire)) == key
            })
            .or_else(|| self.recent.get(key).map(|slot| &**slot));
        if let Some(slot) = known {
            slot.fetch_max(position, Ordering::Release);
            return;
        }
        self.recent
            .insert(Arc::from(key), Arc::new(AtomicU64::new(position)));
        if self.recent.len() > self.table.len() / 8 + 64 {
            self.rebuild(store);
        }
    }

    /// Makes each of `positions` (published versions, in position order)
    /// its key's latest, as [`EntryIndex::set`] does one by one. When they
    /// are many (at least an eighth of the keys known, as when a store
    /// opens or catches up on much), one flat table of every key is built
    /// at once, sized for them all: built key by key, the table was rebuilt
    /// every time an eighth more keys came, and opening a store of
    /// 1,000,000 lessons spent most of its time there (`knowledge_open`
    /// bench: 3.3–4.2 s of its 6.6–9.6 s).
    pub(crate) fn set_all(&mut self, store: &Store, positions: &[u64]) {
        let known = self.table.len() + self.recent.len();
        if positions.len().saturating_mul(8) < known {
            for position in positions {
                self.set(store, store.key_at(*position), *position);
            }
            return;
        }
        let hash_at = |position: u64| store.hasher.hash_one(store.key_at(position));
        let mut table: HashTable<AtomicU64> = HashTable::with_capacity(known + positions.len());
        for position in self.positions().chain(positions.iter().copied()) {
            let key = store.key_at(position);
            let found = table.find_mut(store.hasher.hash_one(key), |slot| {
                store.key_at(slot.load(Ordering::Relaxed)) == key
            });
            match found {
                Some(slot) => {
                    let latest = slot.get_mut();
                    *latest = position.max(*latest);
                }
                None => {
                    table.insert_unique(hash_at(position), AtomicU64::new(position), |slot| {
                        hash_at(slot.load(Ordering::Relaxed))
                    });
                }
            }
        }
        self.table = Arc::new(table);
        self.recent = Recent::default();
    }

    /// Folds the keys added since the table was built into it when the
    /// versions the writer just published (`added`) number at least an
    /// eighth of the keys the rebuild copies: after a load or a large
    /// catch-up every lookup probes the flat table once, and publishing a
    /// few versions never rebuilds a large table.
    pub(crate) fn settle(&mut self, store: &Store, added: usize) {
        let recent = self.recent.len();
        if recent > 0 && added.saturating_mul(8) >= self.table.len() + recent {
            self.rebuild(store);
        }
    }

    /// How many keys are outside the flat table.
    #[cfg(test)]
    pub(crate) fn recent_len(&self) -> usize {
        self.recent.len()
    }

    /// Every key's latest position, in no order.
    pub(crate) fn positions(&self) -> impl Iterator<Item = u64> + '_ {
        self.table
            .iter()
            .chain(self.recent.values().map(|slot| &**slot))
            .map(|slot| slot.load(Ordering::Acquire))
    }

    /// One flat table of every key. States pinned before keep the old one,
    /// which the writer no longer moves forward: it already holds every
    /// version they can see.
    fn rebuild(&mut self, store: &Store) {
        let hash_at = |position: u64| store.hasher.hash_one(store.key_at(position));
        let mut table = HashTable::with_capacity(self.table.len() + self.recent.len());
        for position in self.positions() {
            table.insert_unique(hash_at(position), AtomicU64::new(position), |slot| {
                hash_at(slot.load(Ordering::Relaxed))
            });
        }
        self.table = Arc::new(table);
        self.recent = Recent::default();
    }
}
