//! [`Published`]: what every published state of one knowledge shares, in
//! plain maps behind a lock: every version in position order, each
//! collection's versions, and every version by id. The writer appends to
//! it as it publishes; a state reads it up to its own position. Kept once
//! rather than in each state, so that a state pinned for a long task costs
//! only what its lessons changed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::version::Version;

/// The published versions of one knowledge.
#[derive(Default)]
pub(crate) struct Published {
    index: Mutex<Index>,
}

#[derive(Default)]
struct Index {
    /// Position `p` at index `p - 1`.
    log: Vec<Arc<Version>>,
    /// Each collection's versions, oldest first (collections are few).
    collections: Vec<(Arc<str>, Vec<Arc<Version>>)>,
    /// Every version by its id ([`IdKey`]), hashed as the state's maps are.
    ids: HashMap<IdKey, Arc<Version>, foldhash::fast::RandomState>,
}

impl Published {
    fn index(&self) -> MutexGuard<'_, Index> {
        // Appends finish or do nothing: a panic elsewhere leaves it whole.
        self.index.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends `versions`, the next in position order; those it holds
    /// already are skipped. For the writer, as it publishes.
    pub(crate) fn append(&self, versions: &[Arc<Version>]) {
        let mut index = self.index();
        // Room for them all at once: a store opening appends every version
        // it holds, and growing the map of ids step by step hashed each id
        // again at every step.
        index.log.reserve(versions.len());
        index.ids.reserve(versions.len());
        for version in versions {
            if version.position != index.log.len() as u64 + 1 {
                continue;
            }
            index.log.push(version.clone());
            match index.collection_mut(&version.collection) {
                Some(versions) => versions.push(version.clone()),
                None => {
                    let collection = (version.collection.clone(), vec![version.clone()]);
                    index.collections.push(collection);
                }
            }
            let id = IdKey::of(&version.version_id, || version.version_id.clone());
            index.ids.insert(id, version.clone());
        }
    }

    /// The version whose id is `version_id` (in any spelling of a UUID),
    /// if it is at `at` or before.
    pub(crate) fn by_id(&self, version_id: &str, at: u64) -> Option<Arc<Version>> {
        let index = self.index();
        let found = index
            .ids
            .get(&IdKey::of(version_id, || Arc::from(version_id)))?;
        (found.position <= at).then(|| found.clone())
    }

    /// Every version up to position `at`, in position order.
    pub(crate) fn versions(&self, at: u64) -> Vec<Arc<Version>> {
        let index = self.index();
        let end = usize::try_from(at).map_or(index.log.len(), |at| at.min(index.log.len()));
        index.log[..end].to_vec()
    }

    /// The versions of `collection` up to position `at`, oldest first.
    pub(crate) fn collection_versions(&self, collection: &str, at: u64) -> Vec<Arc<Version>> {
        let index = self.index();
        let Some(versions) = index.collection(collection) else {
            return Vec::new();
        };
        let end = versions.partition_point(|version| version.position <= at);
        versions[..end].to_vec()
    }

    /// The latest version of `collection` at position `at`.
    pub(crate) fn head(&self, collection: &str, at: u64) -> Option<Arc<Version>> {
        let index = self.index();
        let versions = index.collection(collection)?;
        let end = versions.partition_point(|version| version.position <= at);
        versions.get(end.checked_sub(1)?).cloned()
    }
}

impl Index {
    fn collection(&self, name: &str) -> Option<&Vec<Arc<Version>>> {
        let found = self.collections.iter().find(|(known, _)| **known == *name);
        found.map(|(_, versions)| versions)
    }

    /// The versions of `name`, a collection's name as its versions share
    /// it: compared by address first, as every version of a collection
    /// holds the same text (its bytes compared for each of 1,000,000
    /// versions were a twentieth of opening a store, `knowledge_open`).
    fn collection_mut(&mut self, name: &Arc<str>) -> Option<&mut Vec<Arc<Version>>> {
        let found = self
            .collections
            .iter_mut()
            .find(|(known, _)| Arc::ptr_eq(known, name) || **known == **name);
        found.map(|(_, versions)| versions)
    }
}

/// The key of a version id: a UUID as its 128 bits (whichever way it was
/// spelled), any other id as it is. A UUID's bits hash and compare without
/// reading the id's text.
#[derive(PartialEq, Eq, Hash)]
enum IdKey {
    Uuid(u128),
    Other(Arc<str>),
}

impl IdKey {
    /// The key of `id`; `text` gives it as shared text, for an id that is
    /// not a UUID.
    fn of(id: &str, text: impl FnOnce() -> Arc<str>) -> IdKey {
        match uuid::Uuid::parse_str(id) {
            Ok(uuid) => IdKey::Uuid(uuid.as_u128()),
            Err(_) => IdKey::Other(text()),
        }
    }
}
