//! Undoing lessons: [`Knowledge::revert`] teaches an entry's earlier value
//! again, [`Knowledge::retract`] makes the entry absent. Both make a new
//! version, like any lesson: history stays linear and immutable, and pins
//! taken before still see the entry as it was.

use super::registry::Absorbed;
use super::version::value_json;
use super::writer::Pending;
use super::{Knowledge, TeachError};
use crate::{LessonResult, LessonValue};

impl Knowledge {
    /// Teaches the entry `entry` of `collection` the value it had in its
    /// version `version_id` again: a new version (or, when the entry holds
    /// that value already, `learned: false` and no new version), whose
    /// `describes` says it reverts, to which version, and what that
    /// version taught. Reverting to a version that retracted the entry
    /// retracts it again. The earlier value is read by the collection's
    /// learnable as a lesson would be, and refused if it no longer reads.
    ///
    /// ```
    /// use learnables::{Knowledge, Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules",
    /// #     describes = "Chapter {entry} goes to the {desk} desk")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>()?;
    /// let teach = |desk: &str| {
    ///     let value = LessonValue::try_from(serde_json::json!({"desk": desk})).unwrap();
    ///     knowledge.teach(&Lesson::new("routing_rules", "84", value, "alice@example.com"))
    /// };
    /// let first = teach("general")?;
    /// teach("perishables")?;
    /// let id = first.version_id.unwrap();
    /// let reverted = knowledge.revert("routing_rules", "84", &id, "bob@example.com", Some("wrong desk"))?;
    /// assert!(reverted.learned);
    /// assert_eq!(reverted.definition_version, 3);
    /// assert_eq!(reverted.describes, "Reverted to version 1: Chapter 84 goes to the general desk");
    /// assert_eq!(knowledge.pin().get::<RoutingRule>("84").unwrap().desk, "general");
    /// // Reverting again learns nothing.
    /// assert!(!knowledge.revert("routing_rules", "84", &id, "bob@example.com", None)?.learned);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn revert(
        &self,
        collection: &str,
        entry: &str,
        version_id: &str,
        taught_by: &str,
        reason: Option<&str>,
    ) -> Result<LessonResult, TeachError> {
        Pending::check_names(collection, entry, taught_by)?;
        let registration = self.registration(collection)?;
        let state = self.current();
        let unknown = || TeachError::UnknownVersion {
            collection: collection.to_owned(),
            entry: entry.to_owned(),
            version_id: version_id.to_owned(),
        };
        let target = state
            .by_id(version_id)
            .filter(|version| *version.entry == *entry)
            .ok_or_else(unknown)?;
        let record = target.to_record();
        if record.collection != collection {
            return Err(unknown());
        }
        let (absorbed, retract) = if record.retracted {
            (retraction(&(registration.descriptor)().entry, entry), true)
        } else {
            ((registration.absorb)(&record.value, entry)?.into(), false)
        };
        let absorbed = Absorbed {
            describes: format!(
                "Reverted to version {}: {}",
                record.definition_version, absorbed.describes
            ),
            ..absorbed
        };
        self.commit_or_propose(Pending::borrowed(
            collection, entry, taught_by, reason, absorbed, retract,
        ))
    }

    /// Retracts the entry `entry` of `collection`: a new version in which
    /// the entry is absent. Pins taken from then on do not see it; pins
    /// taken before still do; its history and show-back show the
    /// retraction with who made it and why; a later lesson teaches it
    /// again. An entry absent already gives `learned: false` and the
    /// version that made it absent; one never taught is refused
    /// ([`TeachError::UnknownEntry`]).
    ///
    /// ```
    /// use learnables::{Knowledge, Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>()?;
    /// let value = LessonValue::try_from(serde_json::json!({"desk": "general"}))?;
    /// knowledge.teach(&Lesson::new("routing_rules", "84", value, "alice@example.com"))?;
    /// let before = knowledge.pin();
    /// let retracted = knowledge.retract("routing_rules", "84", "bob@example.com", Some("no such rule"))?;
    /// assert!(retracted.learned);
    /// assert_eq!(retracted.describes, "The routing rule 84 is retracted");
    /// assert_eq!(knowledge.pin().get::<RoutingRule>("84"), None);
    /// assert!(before.get::<RoutingRule>("84").is_some());
    /// let retraction = knowledge.pin().retraction("routing_rules", "84").unwrap();
    /// assert_eq!(retraction.taught_by, "bob@example.com");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn retract(
        &self,
        collection: &str,
        entry: &str,
        taught_by: &str,
        reason: Option<&str>,
    ) -> Result<LessonResult, TeachError> {
        Pending::check_names(collection, entry, taught_by)?;
        let registration = self.registration(collection)?;
        let absorbed = retraction(&(registration.descriptor)().entry, entry);
        self.commit_or_propose(Pending::borrowed(
            collection, entry, taught_by, reason, absorbed, true,
        ))
    }
}

/// What a retraction of `entry` (an entry of the kind `noun`) stores: no
/// value, and a description saying so.
pub(super) fn retraction(noun: &str, entry: &str) -> Absorbed {
    let value = LessonValue::default();
    Absorbed {
        json: value_json(&value),
        value,
        describes: format!("The {noun} {entry} is retracted"),
    }
}
