//! The history of one entry: every version of it a snapshot holds, newest
//! first, each with its record and its value read as the learnable's type
//! ([`Snapshot::entry_history`](crate::Snapshot::entry_history)), and what
//! each changed from the one before.

use crate::Learnable;
use crate::LessonError;
use crate::VersionRecord;
use crate::change_between::{FieldChange, field_changes};
use crate::version::Version;

/// One version of one entry: its record (id, definition version, teacher,
/// time, reason) and its value as `T`.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryVersion<T> {
    /// The version's record.
    pub record: VersionRecord,
    /// The entry's value from this version on.
    pub value: VersionValue<T>,
}

/// An entry's value in one of its versions.
#[derive(Debug, Clone, PartialEq)]
pub enum VersionValue<T> {
    /// The value, read as the learnable's type.
    Taught(T),
    /// The stored value does not read as the learnable's type, and why.
    Unreadable(LessonError),
    /// The version retracted the entry: it is absent from it on.
    Retracted,
}

impl<T: Learnable> VersionValue<T> {
    /// The lesson fields with the value's parts as their defaults, as the
    /// form shows them; `None` when the entry is absent (retracted) or its
    /// value does not read.
    pub fn fields(&self) -> Option<Vec<crate::LessonField>> {
        match self {
            VersionValue::Taught(value) => Some(value.lesson_fields_as_learned()),
            VersionValue::Unreadable(_) | VersionValue::Retracted => None,
        }
    }
}

impl<T: Learnable> EntryVersion<T> {
    /// What this version changed from `earlier` (the version before it,
    /// `None` for the entry's first), field by field, by label, with the
    /// values as the form shows them. A value that does not read shows no
    /// field values.
    pub fn changes_from(&self, earlier: Option<&EntryVersion<T>>) -> Vec<FieldChange> {
        let before = earlier.and_then(|earlier| earlier.value.fields());
        field_changes(before.as_deref(), self.value.fields().as_deref())
    }
}

/// The history of one entry from its `versions`, newest first, each
/// value read as `T`.
pub(crate) fn typed_history<'a, T: Learnable>(
    versions: impl Iterator<Item = &'a Version>,
) -> Vec<EntryVersion<T>> {
    versions
        .map(|change| EntryVersion {
            record: change.to_record(),
            value: if change.retracted {
                VersionValue::Retracted
            } else {
                match T::from_stored_value(&change.value()) {
                    Ok(value) => VersionValue::Taught(value),
                    Err(error) => VersionValue::Unreadable(error),
                }
            },
        })
        .collect()
}
