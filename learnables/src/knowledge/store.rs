//! [`Store`]: what every state of one knowledge shares, appended to as
//! versions are published: every version once, compact, in position order;
//! each collection's versions; the position of every version by id; the
//! teachers' names.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, PoisonError};

use super::append_log::{AppendLog, PositionLog};
use super::change::Change;
use super::id_index::IdIndex;
use super::text_blocks::TextBlocks;

/// What every state of one knowledge shares, appended to as versions are
/// published.
#[derive(Default)]
pub(crate) struct Store {
    /// Every published version: position `p` at index `p - 1`.
    pub(super) log: AppendLog<Change>,
    /// Every collection by number: its name and its versions' positions.
    pub(super) collections: AppendLog<CollectionLog, 16>,
    /// The position of every published version, by id.
    pub(super) ids: IdIndex,
    /// Every teacher's name, by number.
    pub(super) teachers: AppendLog<Box<str>, 64>,
    /// Every teacher's number, by name.
    pub(super) teacher_numbers: Mutex<HashMap<Box<str>, u32>>,
    /// The texts of every version, kept many to an allocation.
    pub(super) texts: TextBlocks,
    pub(crate) hasher: foldhash::fast::RandomState,
}

/// How many of the first teachers [`Store::teacher_number`] looks through
/// before it takes the lock on the map of every teacher.
const TEACHERS_SEARCHED: usize = 8;

/// A collection's name and the positions of its versions, oldest first.
pub(super) struct CollectionLog {
    pub(super) name: Arc<str>,
    pub(super) versions: PositionLog,
}

impl Store {
    /// The published version at `position`.
    pub(crate) fn change(&self, position: u64) -> Option<&Change> {
        let index = usize::try_from(position.checked_sub(1)?).ok()?;
        self.log.get(index)
    }

    /// The entry of the published version at `position` ("" for none).
    pub(crate) fn key_at(&self, position: u64) -> &str {
        self.change(position).map_or("", Change::entry)
    }

    /// The number of the teacher `name`, given it if new.
    pub(super) fn teacher_number(&self, name: &str) -> u32 {
        // Teachers are few: the first ones are found without taking the
        // lock, which every lesson would otherwise take.
        let first = self.teachers.len().min(TEACHERS_SEARCHED);
        if let Some(number) = (0..first).find(|number| {
            self.teachers
                .get(*number)
                .is_some_and(|known| **known == *name)
        }) {
            return u32::try_from(number).unwrap_or(u32::MAX);
        }
        let mut numbers = self
            .teacher_numbers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(number) = numbers.get(name) {
            return *number;
        }
        let number = self.teachers.push(name.into()).unwrap_or_default();
        let number = u32::try_from(number).unwrap_or(u32::MAX);
        numbers.insert(name.into(), number);
        number
    }

    pub(super) fn teacher(&self, number: u32) -> &str {
        self.teachers.get(number as usize).map_or("", |name| name)
    }

    pub(super) fn published(&self) -> u64 {
        self.log.len() as u64
    }

    /// The position of version `number` (1 for the first) of collection
    /// `collection`, once published.
    pub(super) fn version_position(&self, collection: u32, number: u64) -> Option<u64> {
        let versions = &self.collections.get(collection as usize)?.versions;
        versions.get(usize::try_from(number.checked_sub(1)?).ok()?)
    }
}

/// The key the id index hashes and compares: a UUID by its value (in any
/// spelling), any other id by its text.
pub(super) fn id_hash(store: &Store, id: &str) -> u64 {
    match uuid::Uuid::parse_str(id) {
        Ok(uuid) => store.hasher.hash_one(uuid.as_u128()),
        Err(_) => store.hasher.hash_one(id),
    }
}

pub(super) fn same_id(stored: &str, id: &str) -> bool {
    stored == id
        || matches!(
            (uuid::Uuid::parse_str(stored), uuid::Uuid::parse_str(id)),
            (Ok(a), Ok(b)) if a == b
        )
}
