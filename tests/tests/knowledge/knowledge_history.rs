//! One entry's history, typed and field by field, and undoing lessons
//! (revert and retract), on every back end: in memory, the embedded log
//! (reopened from its file) and PostgreSQL (reconnected).
//!
//! PostgreSQL: `DATABASE_URL`, or a throwaway server (see
//! `postgres_harness`); without either its tests fail, unless
//! `LEARNABLES_ALLOW_SKIP=postgres` is set.

use learnables_tests::support::backend_suite;
use learnables_tests::support::postgres as postgres_harness;

use backend_suite::{assert_linear, registered, rule_lesson};
use learnables::knowledge::{TeachError, VersionValue};
use learnables::{Knowledge, Lesson};
use learnables_examples::{Desk, RoutingRule};

/// A back end to test on: a knowledge on it, opened again on the same
/// store by `reopen` (a fresh knowledge for the in-memory one, which keeps
/// nothing).
trait Backend {
    fn open(&self) -> Knowledge;
    /// Whether a knowledge opened again sees what the last one stored.
    fn durable(&self) -> bool;
}

struct InMemory;
impl Backend for InMemory {
    fn open(&self) -> Knowledge {
        Knowledge::in_memory()
    }
    fn durable(&self) -> bool {
        false
    }
}

struct Embedded(tempfile::TempDir);
impl Backend for Embedded {
    fn open(&self) -> Knowledge {
        Knowledge::open(self.0.path()).unwrap()
    }
    fn durable(&self) -> bool {
        true
    }
}

struct Postgres(postgres_harness::TestDatabase);
impl Backend for Postgres {
    fn open(&self) -> Knowledge {
        Knowledge::connect(self.0.url()).unwrap()
    }
    fn durable(&self) -> bool {
        true
    }
}

fn teach(knowledge: &Knowledge, entry: &str, desk: &str, by: &str, why: &str) -> String {
    let lesson: Lesson = rule_lesson(entry, desk);
    let lesson = Lesson::new(lesson.collection, lesson.entry, lesson.value, by).with_reason(why);
    knowledge.teach(&lesson).unwrap().version_id.unwrap()
}

fn desk(knowledge: &Knowledge, entry: &str) -> Option<Desk> {
    knowledge
        .pin()
        .get::<RoutingRule>(entry)
        .map(|rule| rule.desk)
}

fn history_is_newest_first_typed_with_changes_by_label(backend: &dyn Backend) {
    let knowledge = registered(backend.open());
    let first = teach(&knowledge, "84", "general", "alice@example.com", "new");
    teach(
        &knowledge,
        "85",
        "general",
        "alice@example.com",
        "other entry",
    );
    let second = teach(
        &knowledge,
        "84",
        "dangerous-goods",
        "bob@example.com",
        "batteries",
    );
    let history = knowledge.pin().entry_history::<RoutingRule>("84");
    let ids: Vec<&str> = history
        .iter()
        .map(|v| v.record.version_id.as_str())
        .collect();
    assert_eq!(ids, [second.as_str(), first.as_str()], "newest first");
    assert_eq!(history[0].record.taught_by, "bob@example.com");
    assert_eq!(history[0].record.reason.as_deref(), Some("batteries"));
    assert_eq!(history[0].record.definition_version, 3);
    assert_eq!(history[1].record.definition_version, 1);
    match &history[0].value {
        VersionValue::Taught(rule) => assert_eq!(rule.desk, Desk::DangerousGoods),
        other => panic!("{other:?}"),
    }
    let changes = history[0].changes_from(history.get(1));
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].label, "Desk");
    assert_eq!(changes[0].before.as_deref(), Some("general"));
    assert_eq!(changes[0].after.as_deref(), Some("dangerous-goods"));
    // The first version changed every field it has a value for.
    let first_changes = history[1].changes_from(None);
    assert!(first_changes.iter().all(|change| change.before.is_none()));
    assert!(first_changes.iter().any(|change| change.label == "Desk"));
    // A pin taken before the second lesson has only the first.
    let old = knowledge.pin_at(1);
    assert_eq!(old.entry_history::<RoutingRule>("84").len(), 1);
    assert!(
        knowledge
            .pin()
            .entry_history::<RoutingRule>("99")
            .is_empty()
    );
    if backend.durable() {
        drop(knowledge);
        let again = registered(backend.open());
        assert_eq!(again.pin().entry_history::<RoutingRule>("84"), history);
    }
}

fn revert_teaches_the_earlier_value_again_as_a_new_version(backend: &dyn Backend) {
    let knowledge = registered(backend.open());
    let first = teach(&knowledge, "84", "general", "alice@example.com", "new");
    teach(
        &knowledge,
        "84",
        "dangerous-goods",
        "alice@example.com",
        "oops",
    );
    let reverted = knowledge
        .revert(
            "routing_rules",
            "84",
            &first,
            "bob@example.com",
            Some("wrong desk"),
        )
        .unwrap();
    assert!(reverted.learned);
    assert_eq!(reverted.definition_version, 3);
    assert!(
        reverted.describes.starts_with("Reverted to version 1: "),
        "{}",
        reverted.describes
    );
    assert_eq!(desk(&knowledge, "84"), Some(Desk::General));
    let again = knowledge
        .revert("routing_rules", "84", &first, "bob@example.com", None)
        .unwrap();
    assert!(!again.learned, "the entry holds that value already");
    assert_eq!(again.version_id, reverted.version_id);
    let history = knowledge.history("routing_rules");
    assert_eq!(history.len(), 3);
    assert_linear(&history);
    assert_eq!(history[2].reason.as_deref(), Some("wrong desk"));
    assert_eq!(history[2].taught_by, "bob@example.com");
    assert_eq!(history[2].value, history[0].value);
    // A version of another entry, or none at all, is refused.
    let other = teach(&knowledge, "85", "general", "alice@example.com", "other");
    for id in [other.as_str(), "no-such-version"] {
        let error = knowledge
            .revert("routing_rules", "84", id, "bob@example.com", None)
            .unwrap_err();
        assert!(
            matches!(error, TeachError::UnknownVersion { .. }),
            "{error:?}"
        );
    }
    assert_eq!(
        knowledge.history("routing_rules").len(),
        4,
        "nothing stored"
    );
    if backend.durable() {
        drop(knowledge);
        let again = registered(backend.open());
        assert_eq!(desk(&again, "84"), Some(Desk::General));
        assert_eq!(again.history("routing_rules"), {
            let mut all = history.clone();
            all.extend(again.history("routing_rules").into_iter().skip(3));
            all
        });
    }
}

fn retract_makes_the_entry_absent_from_then_on(backend: &dyn Backend) {
    let knowledge = registered(backend.open());
    teach(&knowledge, "84", "general", "alice@example.com", "new");
    let before = knowledge.pin();
    let retracted = knowledge
        .retract(
            "routing_rules",
            "84",
            "bob@example.com",
            Some("no such rule"),
        )
        .unwrap();
    assert!(retracted.learned);
    assert_eq!(retracted.describes, "The routing rule 84 is retracted");
    let after = knowledge.pin();
    assert_eq!(after.get::<RoutingRule>("84"), None);
    assert_eq!(after.entry_keys("routing_rules").count(), 0);
    assert_eq!(after.entry_record("routing_rules", "84"), None);
    assert!(
        before.get::<RoutingRule>("84").is_some(),
        "earlier pins still see it"
    );
    let retraction = after.retraction("routing_rules", "84").unwrap();
    assert_eq!(retraction.taught_by, "bob@example.com");
    assert_eq!(retraction.reason.as_deref(), Some("no such rule"));
    assert!(retraction.retracted);
    let history = after.entry_history::<RoutingRule>("84");
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].value, VersionValue::Retracted);
    let changes = history[0].changes_from(history.get(1));
    assert!(changes.iter().all(|change| change.after.is_none()));
    assert!(changes.iter().any(|change| change.label == "Desk"));
    // Retracting again learns nothing; an entry never taught is refused.
    let again = knowledge
        .retract("routing_rules", "84", "bob@example.com", None)
        .unwrap();
    assert!(!again.learned);
    assert_eq!(again.version_id, retracted.version_id);
    let error = knowledge
        .retract("routing_rules", "99", "bob@example.com", None)
        .unwrap_err();
    assert!(
        matches!(error, TeachError::UnknownEntry { .. }),
        "{error:?}"
    );
    if backend.durable() {
        drop((knowledge, before, after));
        let reopened = registered(backend.open());
        assert_eq!(
            desk(&reopened, "84"),
            None,
            "the retraction survives reopening"
        );
        assert!(reopened.pin().retraction("routing_rules", "84").is_some());
        assert!(reopened.pin_at(1).get::<RoutingRule>("84").is_some());
        teach(
            &reopened,
            "84",
            "dangerous-goods",
            "carol@example.com",
            "back",
        );
        assert_eq!(desk(&reopened, "84"), Some(Desk::DangerousGoods));
        assert_eq!(reopened.pin().retraction("routing_rules", "84"), None);
    }
}

fn a_retracted_entry_is_taught_again_by_a_later_lesson(backend: &dyn Backend) {
    let knowledge = registered(backend.open());
    teach(&knowledge, "84", "general", "alice@example.com", "new");
    knowledge
        .retract("routing_rules", "84", "bob@example.com", None)
        .unwrap();
    teach(
        &knowledge,
        "84",
        "general",
        "carol@example.com",
        "it exists",
    );
    assert_eq!(desk(&knowledge, "84"), Some(Desk::General));
    let history = knowledge.pin().entry_history::<RoutingRule>("84");
    assert_eq!(history.len(), 3);
    assert_eq!(history[1].value, VersionValue::Retracted);
    // Reverting to the retraction retracts again.
    let retraction = history[1].record.version_id.clone();
    let reverted = knowledge
        .revert("routing_rules", "84", &retraction, "bob@example.com", None)
        .unwrap();
    assert!(reverted.learned);
    assert_eq!(desk(&knowledge, "84"), None);
}

macro_rules! on_every_backend {
    ($($rule:ident),* $(,)?) => {
        mod in_memory {
            $( #[test] fn $rule() { super::$rule(&super::InMemory); } )*
        }
        mod embedded {
            $( #[test] fn $rule() {
                super::$rule(&super::Embedded(tempfile::tempdir().unwrap()));
            } )*
        }
        mod postgres {
            $( #[test] fn $rule() {
                if let Some(database) = super::postgres_harness::fresh_database() {
                    super::$rule(&super::Postgres(database));
                }
            } )*
        }
    };
}

on_every_backend!(
    history_is_newest_first_typed_with_changes_by_label,
    revert_teaches_the_earlier_value_again_as_a_new_version,
    retract_makes_the_entry_absent_from_then_on,
    a_retracted_entry_is_taught_again_by_a_later_lesson,
);

#[test]
fn postgres_marks_a_retraction_in_its_own_column() {
    let Some(database) = postgres_harness::fresh_database() else {
        return;
    };
    let knowledge = registered(Knowledge::connect(database.url()).unwrap());
    teach(&knowledge, "84", "general", "alice@example.com", "new");
    knowledge
        .retract("routing_rules", "84", "bob@example.com", None)
        .unwrap();
    let rows: Vec<(i64, bool)> = database
        .client()
        .query(
            "SELECT position, retracted FROM learnables_versions ORDER BY position",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    assert_eq!(rows, [(1, false), (2, true)]);
}

#[test]
fn postgres_migrates_a_table_of_versions_written_before_retractions() {
    let Some(database) = postgres_harness::fresh_database() else {
        return;
    };
    {
        let knowledge = registered(Knowledge::connect(database.url()).unwrap());
        teach(&knowledge, "84", "general", "alice@example.com", "new");
        knowledge
            .retract("routing_rules", "84", "bob@example.com", None)
            .unwrap();
    }
    // The schema as version 2 left it: no retracted column.
    database
        .client()
        .batch_execute(
            "ALTER TABLE learnables_versions DROP COLUMN retracted;
             DROP TABLE learnables_reviews;
             DELETE FROM learnables_schema WHERE version >= 3;",
        )
        .unwrap();
    let knowledge = registered(Knowledge::connect(database.url()).unwrap());
    assert_eq!(desk(&knowledge, "84"), None);
    let rows: Vec<bool> = database
        .client()
        .query(
            "SELECT retracted FROM learnables_versions ORDER BY position",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(rows, [false, true], "the column is filled from each record");
}
