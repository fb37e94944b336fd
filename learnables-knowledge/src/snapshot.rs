//! [`Snapshot`]: the knowledge as a task pinned it, and what it reads from it.

use std::sync::Arc;

use crate::Learnable;
use crate::LessonError;
use crate::LessonValue;
use crate::VersionRecord;
use crate::entry_history::{EntryVersion, typed_history};
use crate::registry::Registry;
use crate::state::{Collection, State};
use crate::version::Version;

/// The knowledge as it was when pinned: it never changes, whatever is taught
/// afterwards. A task pins once when it starts and reads only from its pin.
///
/// Pinning costs one reference count; a pin shares everything with the
/// knowledge it was taken from. A pin of the past ([`Knowledge::pin_at`](crate::Knowledge::pin_at))
/// is the same state read as of an earlier position.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables_knowledge::Knowledge;
/// use learnables::{Learnable, Lesson, LessonValue};
/// # #[derive(Learnable, Clone, Debug, PartialEq)]
/// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
/// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
/// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
/// let knowledge = Knowledge::in_memory();
/// knowledge.register::<RoutingRule>().unwrap();
/// let teach = |desk: &str| {
///     let value = LessonValue::try_from(serde_json::json!({"desk": desk})).unwrap();
///     knowledge.teach(&Lesson::new("routing_rules", "84", value, "alice@example.com")).unwrap()
/// };
/// teach("general");
/// let pinned = knowledge.pin();
/// teach("perishables");
/// assert_eq!(pinned.get::<RoutingRule>("84").unwrap().desk, "general");
/// assert_eq!(knowledge.pin().get::<RoutingRule>("84").unwrap().desk, "perishables");
/// ```
#[derive(Clone)]
pub struct Snapshot {
    state: Arc<State>,
    /// The learnables registered when it was pinned: what reads its values.
    pub(crate) registry: Arc<Registry>,
    /// The position it is read at: the state's own, or an earlier one.
    at: u64,
}

/// A collection's version as a snapshot sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectionVersion {
    /// `definitionVersion`: 1 for the first learned version.
    pub definition_version: u64,
    /// `versionId`.
    pub version_id: String,
    /// `previousVersionId`, absent for the first.
    pub previous_version_id: Option<String>,
}

impl Snapshot {
    /// `state` as of its latest version.
    pub(crate) fn of(state: Arc<State>, registry: Arc<Registry>) -> Snapshot {
        let at = state.position();
        Snapshot {
            state,
            registry,
            at,
        }
    }

    /// `state` as of `position` (its latest, if `position` is past it).
    pub(crate) fn of_past(state: Arc<State>, registry: Arc<Registry>, position: u64) -> Snapshot {
        let at = position.min(state.position());
        Snapshot {
            state,
            registry,
            at,
        }
    }

    /// The entry `entry` of `T`'s collection, if it has one that reads as
    /// `T`: `None` both when it is absent and when its stored version no
    /// longer reads (see [`Snapshot::try_get`] to tell them apart).
    pub fn get<T>(&self, entry: &str) -> Option<T>
    where
        T: Learnable + Clone + Send + Sync + 'static,
    {
        self.try_get(entry).ok().flatten()
    }

    /// The entry `entry` of `T`'s collection: `Ok(None)` when the snapshot
    /// has no such entry, `Err` when its stored version does not read as
    /// `T` (through its aliases, defaults and migration), with why.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// # use learnables_knowledge::Knowledge;
    /// # use learnables::{Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// #[derive(Learnable, Clone, Debug, PartialEq)]
    /// #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    ///     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// struct Stricter { #[learnable(label = "Desk")] desk: String, #[learnable(label = "Floor")] floor: u8 }
    ///
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>().unwrap();
    /// let value = LessonValue::try_from(serde_json::json!({"desk": "general"})).unwrap();
    /// knowledge.teach(&Lesson::new("routing_rules", "84", value, "alice@example.com")).unwrap();
    /// let pinned = knowledge.pin();
    /// assert_eq!(pinned.try_get::<RoutingRule>("85"), Ok(None));               // absent
    /// assert!(pinned.try_get::<RoutingRule>("84").unwrap().is_some());          // reads
    /// let error = pinned.try_get::<Stricter>("84").unwrap_err();                // does not read
    /// assert_eq!(error.field(), Some("floor"));
    /// ```
    pub fn try_get<T>(&self, entry: &str) -> Result<Option<T>, LessonError>
    where
        T: Learnable + Clone + Send + Sync + 'static,
    {
        match self.stored(&T::descriptor().collection, entry) {
            Some(stored) => typed::<T>(stored).map(Some),
            None => Ok(None),
        }
    }

    /// The entry `entry` of `T`'s collection as the snapshot keeps it,
    /// shared rather than copied: the value is parsed once, on the first
    /// read of the version, and every later read shares it.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// # use learnables_knowledge::Knowledge;
    /// # use learnables::{Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>().unwrap();
    /// let value = LessonValue::try_from(serde_json::json!({"desk": "general"})).unwrap();
    /// knowledge.teach(&Lesson::new("routing_rules", "84", value, "alice@example.com")).unwrap();
    /// let pinned = knowledge.pin();
    /// let rule: std::sync::Arc<RoutingRule> = pinned.get_arc("84").unwrap();
    /// assert_eq!(rule.desk, "general");
    /// assert!(std::sync::Arc::ptr_eq(&rule, &pinned.get_arc::<RoutingRule>("84").unwrap()));
    /// ```
    pub fn get_arc<T>(&self, entry: &str) -> Option<Arc<T>>
    where
        T: Learnable + Send + Sync + 'static,
    {
        let stored = self.stored(&T::descriptor().collection, entry)?;
        shared::<T>(stored).ok()
    }

    /// The version of `T`'s collection: [`Snapshot::version`] of
    /// `T::descriptor().collection`.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// # use learnables_knowledge::Knowledge;
    /// # use learnables::Learnable;
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// assert_eq!(knowledge.pin().version_of::<RoutingRule>(), None);
    /// ```
    pub fn version_of<T: Learnable>(&self) -> Option<CollectionVersion> {
        self.version(&T::descriptor().collection)
    }

    /// Every entry of `T`'s collection, in key order (keys written as
    /// integers (`9`, `10`, `-3`; no sign `+`, no leading zero) first, by
    /// value, then every other key in text order), each as `T` or, where
    /// its stored version does not read, why: nothing is skipped.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// # use learnables_knowledge::Knowledge;
    /// # use learnables::{Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>().unwrap();
    /// for entry in ["10", "9"] {
    ///     let value = LessonValue::try_from(serde_json::json!({"desk": "general"})).unwrap();
    ///     knowledge.teach(&Lesson::new("routing_rules", entry, value, "alice@example.com")).unwrap();
    /// }
    /// let pinned = knowledge.pin();
    /// let keys: Vec<&str> = pinned.entries::<RoutingRule>().map(|(key, rule)| {
    ///     assert!(rule.is_ok());
    ///     key
    /// }).collect();
    /// assert_eq!(keys, ["9", "10"]);
    /// ```
    pub fn entries<T>(&self) -> impl Iterator<Item = (&str, Result<T, LessonError>)>
    where
        T: Learnable + Clone + Send + Sync + 'static,
    {
        self.present(&T::descriptor().collection)
            .map(|stored| (&*stored.entry, typed::<T>(stored)))
    }

    /// The keys of a collection's entries, in the order of
    /// [`Snapshot::entries`].
    pub fn entry_keys(&self, collection: &str) -> impl Iterator<Item = &str> {
        self.present(collection).map(|stored| &*stored.entry)
    }

    /// An entry's stored lesson value, for carrying (to show it back), not
    /// for reading: only its learnable reads it.
    pub fn lesson_value(&self, collection: &str, entry: &str) -> Option<&LessonValue> {
        self.entry_record(collection, entry)
            .map(|record| &record.value)
    }

    /// The record of the version that gave an entry its value.
    pub fn entry_record(&self, collection: &str, entry: &str) -> Option<&VersionRecord> {
        Some(self.stored(collection, entry)?.record())
    }

    /// A collection's version, `None` before its first lesson.
    pub fn version(&self, collection: &str) -> Option<CollectionVersion> {
        let head = self.state.head_at(collection, self.at)?;
        Some(CollectionVersion {
            definition_version: head.definition_version,
            version_id: head.version_id.to_string(),
            previous_version_id: head.previous_version_id.as_deref().map(str::to_owned),
        })
    }

    /// Every version of the entry `entry` of `T`'s collection this snapshot
    /// holds, newest first: each version's record and its value as `T`,
    /// or why it does not read, or that it retracted the entry. Empty for
    /// an entry never taught.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables_knowledge::{Knowledge, VersionValue};
    /// use learnables::{Learnable, Lesson, LessonValue};
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
        typed_history(self.entry_changes(&T::descriptor().collection, entry))
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
    /// # extern crate learnables_core as learnables;
    /// use learnables_knowledge::Knowledge;
    /// use learnables::{Learnable, Lesson, LessonValue};
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

    /// The position of the latest version the snapshot holds (0 for none):
    /// keep it to pin the same knowledge again after a restart, with
    /// [`Knowledge::pin_at`](crate::Knowledge::pin_at).
    pub fn position(&self) -> u64 {
        self.at
    }

    /// The collection `name` as the snapshot holds it.
    pub(crate) fn collection(&self, name: &str) -> Option<&Collection> {
        self.state.collection(name)
    }

    /// The version that gave an entry its value.
    fn stored(&self, collection: &str, entry: &str) -> Option<&Version> {
        self.collection(collection)?.entry(entry, self.at)
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

    /// A collection's present entries, in key order.
    pub(crate) fn present(&self, collection: &str) -> impl Iterator<Item = &Version> {
        self.collection(collection)
            .into_iter()
            .flat_map(|collection| collection.entries(self.at))
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("position", &self.at)
            .field("collections", &self.state.collections(self.at).count())
            .finish()
    }
}

/// The entry as a shared `T`: the cached typed value when it is a `T`,
/// else read from the stored value (and cached when the cache is empty).
fn shared<T>(stored: &Version) -> Result<Arc<T>, LessonError>
where
    T: Learnable + Send + Sync + 'static,
{
    if let Some(cached) = stored.typed().get() {
        return match cached.clone().downcast::<T>() {
            Ok(value) => Ok(value),
            Err(_) => T::from_stored_value(&stored.value()).map(Arc::new),
        };
    }
    let value: Arc<T> = Arc::new(T::from_stored_value(&stored.value())?);
    let cached = stored.typed().get_or_init(|| value.clone());
    Ok(cached.clone().downcast::<T>().unwrap_or(value))
}

/// The entry as `T`: [`shared`], copied out.
fn typed<T>(stored: &Version) -> Result<T, LessonError>
where
    T: Learnable + Clone + Send + Sync + 'static,
{
    shared::<T>(stored).map(|value| T::clone(&value))
}
