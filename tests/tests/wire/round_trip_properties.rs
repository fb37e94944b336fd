//! Property tests: wire types, descriptors and lesson values round-trip for
//! any content, and a derived type's lesson value parses back to the same
//! value.

use learnables::{
    FieldKind, Learnable, LearnableDescriptor, Lesson, LessonField, LessonResult, LessonValue,
    TeachBlock,
};
use learnables_examples::{ClearanceLimit, Desk, RoutingRule};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

fn round_trips<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) {
    let json = serde_json::to_string(value).unwrap();
    let back: T = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, value);
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,12}",
        any::<String>(),
        Just("\u{202e}\u{200b}\0".to_owned()),
    ]
}

fn kind() -> impl Strategy<Value = FieldKind> {
    prop_oneof![
        Just(FieldKind::TEXT),
        Just(FieldKind::CHOICE),
        text().prop_map(FieldKind::new),
    ]
}

fn field() -> impl Strategy<Value = LessonField> {
    (
        text(),
        text(),
        kind(),
        proptest::option::of(proptest::collection::vec(text(), 0..4)),
        proptest::option::of(text()),
        proptest::option::of(text()),
    )
        .prop_map(|(name, label, kind, choices, default, help)| {
            let mut field = LessonField::new(name, label, kind);
            field.choices = choices;
            field.default = default;
            field.help = help;
            field
        })
}

fn descriptor() -> impl Strategy<Value = LearnableDescriptor> {
    (
        (text(), text(), text(), text(), text()),
        proptest::option::of(proptest::collection::vec(text(), 0..3)),
        proptest::collection::vec(field(), 0..4),
    )
        .prop_map(
            |((collection, entry, teaches, how, decided_by), skills, lesson_fields)| {
                let mut descriptor =
                    LearnableDescriptor::new(collection, entry, teaches, how, decided_by);
                descriptor.skills = skills;
                descriptor.lesson_fields = lesson_fields;
                descriptor
            },
        )
}

fn json_scalar() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        text().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<bool>().prop_map(serde_json::Value::from),
        Just(serde_json::Value::Null),
    ]
}

fn lesson_value() -> impl Strategy<Value = LessonValue> {
    proptest::collection::btree_map(text(), json_scalar(), 0..5)
        .prop_map(|map| LessonValue::from(map.into_iter().collect::<serde_json::Map<_, _>>()))
}

fn desk() -> impl Strategy<Value = Desk> {
    prop_oneof![
        Just(Desk::General),
        Just(Desk::DangerousGoods),
        Just(Desk::Perishables)
    ]
}

proptest! {
    #[test]
    fn descriptors_round_trip_and_validation_never_panics(descriptor in descriptor()) {
        round_trips(&descriptor);
        let _ = descriptor.validate().map_err(|violations| violations.to_string());
    }

    #[test]
    fn lessons_results_and_blocks_round_trip(
        value in lesson_value(),
        (collection, entry, taught_by) in (text(), text(), text()),
        reason in proptest::option::of(text()),
        learned in any::<bool>(),
        version in any::<u64>(),
        fields in proptest::option::of(proptest::collection::vec(field(), 0..3)),
    ) {
        let mut lesson = Lesson::new(collection.clone(), entry.clone(), value.clone(), taught_by);
        lesson.reason = reason;
        round_trips(&lesson);
        let result = LessonResult::new(learned, entry.clone(), version).with_version_id(collection.clone());
        round_trips(&result);
        let mut block = TeachBlock::new(collection, [entry]);
        block.lesson_fields = fields;
        if let serde_json::Value::Object(map) = value.into_json() {
            block.suggested = Some(map);
        }
        round_trips(&block);
    }

    #[test]
    fn any_lesson_value_parses_or_is_refused_without_panicking(value in lesson_value()) {
        if let Err(error) = RoutingRule::from_lesson_value(&value) {
            prop_assert!(!error.problems().is_empty());
            let _ = error.to_string();
        }
        let _ = ClearanceLimit::from_lesson_value(&value).map_err(|error| error.to_string());
    }

    #[test]
    fn a_derived_value_round_trips_through_its_lesson_value(
        chapter in (0..learnables_examples::Chapter::COUNT).prop_map(learnables_examples::Chapter::nth),
        desk in desk(),
        note in proptest::option::of(any::<String>()),
        amount in any::<u32>(),
        review in proptest::option::of(
            (1..3_652_059_i32).prop_map(|day| chrono::NaiveDate::from_num_days_from_ce_opt(day).unwrap()),
        ),
    ) {
        let rule = RoutingRule { chapter, desk, note };
        // A blank note is no note: an empty text for an optional field is
        // absent, as a person means it; and a text is read trimmed.
        let meant = RoutingRule {
            note: rule
                .note
                .clone()
                .map(|note| note.trim().to_owned())
                .filter(|note| !note.is_empty()),
            ..rule.clone()
        };
        prop_assert_eq!(RoutingRule::from_lesson_value(&rule.to_lesson_value()).unwrap(), meant);
        // A valid limit: above the threshold, it names a review date.
        let review = review.or_else(|| {
            (amount > learnables_examples::REVIEW_REQUIRED_ABOVE_EUR)
                .then(|| chrono::NaiveDate::from_ymd_opt(2027, 1, 31).unwrap())
        });
        let limit = ClearanceLimit { amount_eur: amount, review_after: review };
        prop_assert_eq!(ClearanceLimit::from_lesson_value(&limit.to_lesson_value()).unwrap(), limit);
    }
}
