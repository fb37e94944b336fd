//! The behaviour every knowledge back end must show, as a macro that
//! writes one `#[test]` per rule for a back end:
//! `backend_suite!(|| Knowledge::in_memory());`

use learnables::{Knowledge, Learnable, Lesson, LessonValue};
use learnables_examples::{ClearanceLimit, RoutingRule};
use serde_json::{Value, json};

/// Knowledge with the example learnables registered.
pub fn registered(knowledge: Knowledge) -> Knowledge {
    knowledge.register::<RoutingRule>().unwrap();
    knowledge.register::<ClearanceLimit>().unwrap();
    knowledge
}

/// A routing-rule lesson for `entry`.
pub fn rule_lesson(entry: &str, desk: &str) -> Lesson {
    lesson(
        "routing_rules",
        entry,
        json!({"chapter": entry, "desk": desk}),
    )
}

/// A lesson with any value.
pub fn lesson(collection: &str, entry: &str, value: Value) -> Lesson {
    Lesson::new(
        collection,
        entry,
        LessonValue::try_from(value).unwrap(),
        "alice@example.com",
    )
}

/// Teaches `lesson` and, when its learnable is reviewed (the example's
/// clearance limits), approves the proposal as a second teacher: the
/// version it makes.
pub fn teach_approved(knowledge: &Knowledge, lesson: &Lesson) -> learnables::LessonResult {
    let result = knowledge.teach(lesson).unwrap();
    let Some(proposal_id) = result.proposal_id.clone() else {
        return result;
    };
    knowledge
        .review(&learnables::Review {
            collection: lesson.collection.clone(),
            entry: lesson.entry.clone(),
            proposal_id,
            decision: learnables::Decision::Approve,
            reviewed_by: "bob@example.com".into(),
            reason: None,
        })
        .unwrap()
}

/// Asserts `history` is one linear history: numbers 1, 2, 3, ... each
/// naming the version before.
pub fn assert_linear(history: &[learnables::knowledge::VersionRecord]) {
    for (index, record) in history.iter().enumerate() {
        assert_eq!(record.definition_version, index as u64 + 1, "{record:?}");
    }
    for pair in history.windows(2) {
        assert_eq!(
            pair[1].previous_version_id.as_ref(),
            Some(&pair[0].version_id)
        );
    }
    if let Some(first) = history.first() {
        assert_eq!(first.previous_version_id, None);
    }
}

/// Asserts `history` is linear and holds exactly the versions `learned`
/// names, as (reason, version id): every lesson learned is one stored
/// version, and nothing else is stored.
pub fn assert_stored_exactly(
    history: &[learnables::knowledge::VersionRecord],
    learned: &std::collections::BTreeSet<(String, String)>,
) {
    assert_linear(history);
    let stored: std::collections::BTreeSet<(String, String)> = history
        .iter()
        .map(|record| {
            (
                record.reason.clone().unwrap_or_default(),
                record.version_id.clone(),
            )
        })
        .collect();
    assert_eq!(&stored, learned, "stored versions against lessons learned");
}

/// Teaches three lessons through one knowledge that `open` gives, then
/// checks that a knowledge `open` gives again holds every version with the
/// same ids and carries the history on: what a durable back end must do.
pub fn assert_reopening_restores_every_version(open: impl Fn() -> Knowledge) {
    let before = {
        let knowledge = registered(open());
        for (entry, desk) in [
            ("84", "general"),
            ("85", "cold chain"),
            ("84", "dangerous-goods"),
        ] {
            knowledge.teach(&rule_lesson(entry, desk)).unwrap();
        }
        knowledge.history("routing_rules")
    };
    let reopened = registered(open());
    assert_eq!(reopened.history("routing_rules"), before);
    let pinned = reopened.pin();
    assert_eq!(
        pinned.get::<RoutingRule>("84").unwrap().desk,
        learnables_examples::Desk::DangerousGoods
    );
    assert_eq!(pinned.position(), 3);
    let next = reopened.teach(&rule_lesson("86", "general")).unwrap();
    assert_eq!(next.definition_version, 4);
    assert_eq!(
        next.previous_version_id.as_ref(),
        Some(&before[2].version_id)
    );
}

/// Writes the suite's tests for the back end that `$make` (a `Fn() -> Knowledge`) opens.
#[macro_export]
macro_rules! backend_suite {
    ($make:expr) => {
        use learnables::{Knowledge, TeachError};
        use learnables_examples::{Desk, RoutingRule};
        use serde_json::json;

        use $crate::support::backend_suite::{lesson, registered, rule_lesson, teach_approved};

        fn knowledge() -> Knowledge {
            registered(($make)())
        }

        #[test]
        fn the_first_lesson_makes_version_one() {
            let knowledge = knowledge();
            let result = knowledge.teach(&rule_lesson("84", "general")).unwrap();
            assert!(result.learned);
            assert_eq!(result.definition_version, 1);
            assert!(result.version_id.is_some());
            assert_eq!(result.previous_version_id, None);
            assert_eq!(result.describes, "Chapter 84 declarations now go to the general desk");
        }

        #[test]
        fn each_lesson_names_the_version_it_replaced() {
            let knowledge = knowledge();
            let first = knowledge.teach(&rule_lesson("84", "general")).unwrap();
            let second = knowledge.teach(&rule_lesson("85", "cold chain")).unwrap();
            let third = knowledge.teach(&rule_lesson("84", "dangerous-goods")).unwrap();
            assert_eq!(second.definition_version, 2);
            assert_eq!(second.previous_version_id, first.version_id);
            assert_eq!(third.definition_version, 3);
            assert_eq!(third.previous_version_id, second.version_id);
            let limit = teach_approved(
                &knowledge,
                &lesson("clearance_limits", "b1", json!({"amountEur": "10"})),
            );
            assert_eq!(limit.definition_version, 1, "each collection has its own history");
        }

        #[test]
        fn the_same_value_again_learns_nothing() {
            let knowledge = knowledge();
            let first = knowledge.teach(&rule_lesson("84", "general")).unwrap();
            let again = knowledge
                .teach(&lesson("routing_rules", "84", json!({"chapter": 84, "desk": "general"})))
                .unwrap();
            assert!(!again.learned);
            assert_eq!(again.definition_version, 1);
            assert_eq!(again.version_id, first.version_id);
            assert_eq!(knowledge.history("routing_rules").len(), 1);
            assert_eq!(knowledge.pin().position(), 1);
        }

        #[test]
        fn a_refused_lesson_changes_nothing_and_uses_no_version_number() {
            let knowledge = knowledge();
            knowledge.teach(&rule_lesson("84", "general")).unwrap();
            let unknown = knowledge
                .teach(&lesson("tariffs", "84", json!({})))
                .unwrap_err();
            assert_eq!(
                unknown.to_string(),
                "this agent cannot be taught `tariffs`; it can be taught: clearance_limits, \
                 routing_rules"
            );
            let invalid = knowledge.teach(&rule_lesson("85", "urgent")).unwrap_err();
            assert!(matches!(&invalid, TeachError::Lesson(error) if error.field() == Some("desk")));
            let mut nobody = rule_lesson("86", "general");
            nobody.taught_by = " ".into();
            assert_eq!(knowledge.teach(&nobody).unwrap_err(), TeachError::NoTeacher);
            let no_entry = rule_lesson("", "general");
            assert_eq!(knowledge.teach(&no_entry).unwrap_err(), TeachError::EmptyEntry);
            assert_eq!(knowledge.pin().position(), 1);
            assert_eq!(knowledge.pin().get::<RoutingRule>("85"), None);
            let next = knowledge.teach(&rule_lesson("85", "general")).unwrap();
            assert_eq!(next.definition_version, 2);
        }

        #[test]
        fn a_pinned_snapshot_never_changes() {
            let knowledge = knowledge();
            knowledge.teach(&rule_lesson("84", "general")).unwrap();
            let pinned = knowledge.pin();
            knowledge.teach(&rule_lesson("84", "cold chain")).unwrap();
            knowledge.teach(&rule_lesson("85", "general")).unwrap();
            assert_eq!(pinned.get::<RoutingRule>("84").unwrap().desk, Desk::General);
            assert_eq!(pinned.get::<RoutingRule>("85"), None);
            assert_eq!(pinned.version("routing_rules").unwrap().definition_version, 1);
            let now = knowledge.pin();
            assert_eq!(now.get::<RoutingRule>("84").unwrap().desk, Desk::Perishables);
            let keys: Vec<_> = now.entries::<RoutingRule>().map(|(key, _)| key.to_owned()).collect();
            assert_eq!(keys, ["84", "85"]);
            assert_eq!(now.version("routing_rules").unwrap().definition_version, 3);
        }

        #[test]
        fn history_records_who_why_when_and_what() {
            let knowledge = knowledge();
            let before = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
            knowledge
                .teach(&rule_lesson("84", "general").with_reason("First rule"))
                .unwrap();
            let mut second = rule_lesson("84", "cold chain");
            second.taught_by = "bob@example.com".into();
            knowledge.teach(&second).unwrap();
            let history = knowledge.history("routing_rules");
            assert_eq!(history.len(), 2);
            assert_eq!(history[0].taught_by, "alice@example.com");
            assert_eq!(history[0].reason.as_deref(), Some("First rule"));
            assert_eq!(history[1].taught_by, "bob@example.com");
            assert_eq!(history[1].entry, "84");
            assert_eq!(history[1].previous_version_id.as_ref(), Some(&history[0].version_id));
            assert_eq!(history[1].describes, "Chapter 84 declarations now go to the cold chain desk");
            assert!(history[0].taught_at() >= before);
            assert!(history[1].taught_at() >= history[0].taught_at());
        }

        #[test]
        fn a_snapshot_as_of_any_past_version() {
            let knowledge = knowledge();
            let first = knowledge.teach(&rule_lesson("84", "general")).unwrap();
            let position = knowledge.pin().position();
            knowledge.teach(&rule_lesson("84", "cold chain")).unwrap();
            knowledge.teach(&rule_lesson("85", "general")).unwrap();
            let past = knowledge.pin_as_of(first.version_id.as_deref().unwrap()).unwrap();
            assert_eq!(past.position(), 1);
            assert_eq!(past.get::<RoutingRule>("84").unwrap().desk, Desk::General);
            assert_eq!(past.get::<RoutingRule>("85"), None);
            assert_eq!(past.version("routing_rules").unwrap().version_id, first.version_id.unwrap());
            let resumed = knowledge.pin_at(position);
            assert_eq!(resumed.get::<RoutingRule>("84").unwrap().desk, Desk::General);
            assert_eq!(knowledge.pin_at(0).version("routing_rules"), None);
            assert!(knowledge.pin_as_of("no-such-version").is_err());
        }

        #[test]
        fn registering_checks_the_type_and_its_descriptor() {
            let knowledge = knowledge();
            knowledge.register::<RoutingRule>().unwrap();
            let taken = knowledge.register::<$crate::support::backend_suite::Impostor>().unwrap_err();
            assert!(taken.to_string().contains("already registered"), "{taken}");
            let invalid = knowledge.register::<$crate::support::backend_suite::Placeholder>().unwrap_err();
            assert_eq!(
                invalid.to_string(),
                "the learnable `placeholders` cannot be registered:\nhow: `how` is a placeholder (`TODO`)"
            );
        }

        #[test]
        fn a_reviewed_lesson_waits_until_two_others_approve() {
            let knowledge = $crate::support::review_suite::with_limits(($make)());
            $crate::support::review_suite::a_reviewed_lesson_waits_until_two_others_approve(&knowledge);
        }

        #[test]
        fn a_stale_or_rejected_proposal_teaches_nothing() {
            let knowledge = $crate::support::review_suite::with_limits(($make)());
            $crate::support::review_suite::a_stale_or_rejected_proposal_teaches_nothing(&knowledge);
        }

        #[test]
        fn reviewers_racing_on_one_proposal_decide_it_once() {
            let knowledge = $crate::support::review_suite::with_limits(($make)());
            $crate::support::review_suite::reviewers_racing_on_one_proposal_decide_it_once(&knowledge);
        }

        #[test]
        fn concurrent_teachers_each_get_exactly_one_version() {
            const THREADS: usize = 8;
            const LESSONS: usize = 25;
            let knowledge = knowledge();
            let handles: Vec<_> = (0..THREADS)
                .map(|thread| {
                    let knowledge = knowledge.clone();
                    std::thread::spawn(move || {
                        (0..LESSONS)
                            .map(|i| {
                                let entry = learnables_examples::Chapter::nth((thread * LESSONS + i) % 96).to_string();
                                let desk = ["general", "cold chain", "dangerous-goods"][i % 3];
                                let mut lesson = rule_lesson(&entry, desk);
                                lesson.taught_by = format!("teacher{thread}@example.com");
                                knowledge.teach(&lesson).unwrap()
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let results: Vec<_> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
            let mut versions: Vec<u64> = results
                .iter()
                .filter(|result| result.learned)
                .map(|result| result.definition_version)
                .collect();
            versions.sort_unstable();
            let learned = versions.len() as u64;
            assert_eq!(versions, (1..=learned).collect::<Vec<_>>(), "no version twice, none skipped");
            let history = knowledge.history("routing_rules");
            assert_eq!(history.len() as u64, learned);
            for pair in history.windows(2) {
                assert_eq!(pair[1].previous_version_id.as_ref(), Some(&pair[0].version_id));
                assert_eq!(pair[1].definition_version, pair[0].definition_version + 1);
            }
            let mut ids: Vec<_> = history.iter().map(|record| record.version_id.clone()).collect();
            ids.sort();
            ids.dedup();
            assert_eq!(ids.len() as u64, learned);
        }

        #[test]
        fn readers_see_whole_versions_while_teachers_write() {
            let knowledge = knowledge();
            let writer = {
                let knowledge = knowledge.clone();
                std::thread::spawn(move || {
                    for i in 0..100 {
                        let desk = if i % 2 == 0 { "general" } else { "cold chain" };
                        knowledge.teach(&rule_lesson("84", desk)).unwrap();
                    }
                })
            };
            let mut last = 0;
            while !writer.is_finished() {
                let pinned = knowledge.pin();
                let version = pinned.version("routing_rules").map_or(0, |v| v.definition_version);
                assert!(version >= last, "versions only move forward");
                last = version;
                if let Some(rule) = pinned.get::<RoutingRule>("84") {
                    let expected = if version % 2 == 1 { Desk::General } else { Desk::Perishables };
                    assert_eq!(rule.desk, expected, "the entry belongs to the pinned version");
                }
            }
            writer.join().unwrap();
            assert_eq!(knowledge.pin().version("routing_rules").unwrap().definition_version, 100);
        }
    };
}

/// A type that claims the routing rules' collection.
#[derive(Learnable, Clone)]
#[learnable(
    collection = "routing_rules",
    entry = "rule",
    teaches = "Something else",
    how = "A different table altogether",
    decided_by = "rules",
    describes = "{x}"
)]
pub struct Impostor {
    /// X
    x: String,
}

/// A hand-written learnable whose descriptor breaks the spec.
#[derive(Clone)]
pub struct Placeholder;

impl Learnable for Placeholder {
    fn descriptor() -> &'static learnables::LearnableDescriptor {
        static DESCRIPTOR: std::sync::OnceLock<learnables::LearnableDescriptor> =
            std::sync::OnceLock::new();
        DESCRIPTOR.get_or_init(|| {
            learnables::LearnableDescriptor::new("placeholders", "p", "What p is", "TODO", "rules")
        })
    }
    fn from_lesson_value(_: &LessonValue) -> Result<Self, learnables::LessonError> {
        Ok(Placeholder)
    }
    fn to_lesson_value(&self) -> LessonValue {
        LessonValue::default()
    }
    fn describes(&self, entry: &str) -> String {
        entry.to_owned()
    }
}
