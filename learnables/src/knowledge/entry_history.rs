//! The history of one entry: every version of it a snapshot holds, newest
//! first, each with its record and its value read as the learnable's type
//! ([`Snapshot::entry_history`]), and what each changed from the one before.

use super::change_between::{FieldChange, field_changes};
use super::version::Version;
use super::{Snapshot, VersionRecord};
use crate::Learnable;
use crate::LessonError;

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

impl Snapshot {
    /// Every version of the entry `entry` of `T`'s collection this snapshot
    /// holds, newest first: each version's record and its value as `T`,
    /// or why it does not read, or that it retracted the entry. Empty for
    /// an entry never taught.
    ///
    /// ```
    /// use learnables::knowledge::VersionValue;
    /// use learnables::{Knowledge, Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>().unwrap();
    /// for desk in ["general", "perishables"] {
    ///     let value = LessonValue::try_from(serde_json::json!({"desk": desk})).unwrap();
    ///     let lesson = Lesson::new("routing_rules", "84", value, "alice@example.com")
    ///         .with_reason(format!("to {desk}"));
    ///     knowledge.teach(&lesson).unwrap();
    /// }
    /// let history = knowledge.pin().entry_history::<RoutingRule>("84");
    /// assert_eq!(history.len(), 2);
    /// assert_eq!(history[0].record.reason.as_deref(), Some("to perishables"));
    /// assert_eq!(history[0].value, VersionValue::Taught(RoutingRule { desk: "perishables".into() }));
    /// let changes = history[0].changes_from(history.get(1));
    /// assert_eq!(changes[0].label, "Desk");
    /// assert_eq!(changes[0].before.as_deref(), Some("general"));
    /// assert_eq!(changes[0].after.as_deref(), Some("perishables"));
    /// ```
    pub fn entry_history<T>(&self, entry: &str) -> Vec<EntryVersion<T>>
    where
        T: Learnable,
    {
        self.entry_changes(&T::descriptor().collection, entry)
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

    /// The records of every version of an entry this snapshot holds,
    /// newest first, retractions included (`retracted` set): the
    /// untyped [`Snapshot::entry_history`], for carrying.
    pub fn entry_records(
        &self,
        collection: &str,
        entry: &str,
    ) -> impl Iterator<Item = VersionRecord> + '_ {
        self.entry_changes(collection, entry)
            .map(Version::to_record)
    }

    /// The record of the latest version of an entry when that version
    /// retracted it: who retracted it, when and why. `None` when the entry
    /// is present or was never taught.
    pub fn retraction(&self, collection: &str, entry: &str) -> Option<VersionRecord> {
        self.entry_changes(collection, entry)
            .next()
            .filter(|change| change.retracted)
            .map(Version::to_record)
    }

    /// How many versions of an entry this snapshot holds, retractions
    /// included: its latest version's own number (1 after its first
    /// lesson, whatever the collection's version), 0 for an entry never
    /// taught.
    ///
    /// ```
    /// use learnables::{Knowledge, Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>().unwrap();
    /// let teach = |entry: &str, desk: &str| {
    ///     let value = LessonValue::try_from(serde_json::json!({"desk": desk})).unwrap();
    ///     knowledge.teach(&Lesson::new("routing_rules", entry, value, "alice@example.com")).unwrap();
    /// };
    /// teach("84", "general");
    /// teach("85", "electronics");
    /// teach("85", "perishables");
    /// let snapshot = knowledge.pin();
    /// assert_eq!(snapshot.entry_version_count("routing_rules", "85"), 2);
    /// assert_eq!(snapshot.entry_version_count("routing_rules", "84"), 1);
    /// assert_eq!(snapshot.entry_version_count("routing_rules", "62"), 0);
    /// ```
    pub fn entry_version_count(&self, collection: &str, entry: &str) -> u64 {
        self.entry_changes(collection, entry).count() as u64
    }

    /// The versions of an entry, newest first, back along its chain.
    fn entry_changes<'a>(
        &'a self,
        collection: &str,
        entry: &str,
    ) -> impl Iterator<Item = &'a Version> + 'a {
        let latest = self
            .collection(collection)
            .and_then(|c| c.latest(entry, self.position()));
        latest.into_iter().flat_map(Version::and_earlier)
    }
}
