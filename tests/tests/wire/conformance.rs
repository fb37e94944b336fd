//! Everything the examples produce is valid against the JSON Schema the spec
//! publishes (`spec/learnables-v1.json`), checked by `support::spec_schema`,
//! whose own keywords are checked here too.

use learnables_tests::support::spec_schema;

use learnables::{Learnable, Lesson, LessonResult, LessonValue, TeachBlock};
use learnables_examples::{ClearanceLimit, RoutingRule, customs_declaration};
use serde_json::json;
use spec_schema::{assert_valid, def, spec};

#[test]
fn every_example_descriptor_matches_the_schema() {
    let validator = def("LearnableDescriptor");
    for descriptor in [RoutingRule::descriptor(), ClearanceLimit::descriptor()] {
        assert_valid(&validator, &serde_json::to_value(descriptor).unwrap());
    }
}

#[test]
fn the_example_declaration_matches_the_schema() {
    let validator = spec_schema::declaration_params();
    let extension = serde_json::to_value(customs_declaration().agent_extension()).unwrap();
    assert_eq!(extension["uri"], spec()["uri"]);
    assert_eq!(extension["required"], spec()["required"]);
    assert_valid(&validator, &extension["params"]);
}

#[test]
fn lessons_results_and_teach_blocks_match_the_schema() {
    let rule = RoutingRule {
        chapter: learnables_examples::Chapter::try_from(85).unwrap(),
        desk: learnables_examples::Desk::General,
        note: None,
    };
    let lesson = Lesson::new(
        "routing_rules",
        "85",
        rule.to_lesson_value(),
        "alice@example.com",
    )
    .with_reason("A new chapter");
    assert_valid(&def("Lesson"), &serde_json::to_value(&lesson).unwrap());
    let result = LessonResult::new(true, rule.describes("85"), 1).with_version_id("v1");
    assert_valid(
        &def("LessonResult"),
        &serde_json::to_value(&result).unwrap(),
    );
    let mut block = TeachBlock::new("routing_rules", ["85"]);
    block.lesson_fields = Some(RoutingRule::descriptor().lesson_fields.clone());
    assert_valid(&def("TeachBlock"), &serde_json::to_value(&block).unwrap());
}

#[test]
fn the_schema_check_itself_rejects_a_broken_descriptor() {
    let validator = def("LearnableDescriptor");
    let mut broken = serde_json::to_value(RoutingRule::descriptor()).unwrap();
    broken["how"] = json!("");
    broken["lessonFields"][0]
        .as_object_mut()
        .unwrap()
        .remove("label");
    assert_eq!(validator.iter_errors(&broken).count(), 2);
    let not_a_lesson = json!({"collection": "c", "entry": "e", "value": [], "taughtBy": "x"});
    assert!(!def("Lesson").is_valid(&not_a_lesson));
    assert!(LessonValue::try_from(json!([])).is_err());
}

#[test]
fn the_schema_checker_enforces_each_keyword_the_spec_uses() {
    let check = |schema: serde_json::Value, instance: serde_json::Value| {
        spec_schema::violations(&spec_schema::validator(schema), &instance)
    };
    assert!(check(json!({"type": "string"}), json!("a")).is_empty());
    assert_eq!(check(json!({"type": "string"}), json!(1)).len(), 1);
    assert!(check(json!({"type": "integer"}), json!(3.0)).is_empty());
    assert_eq!(check(json!({"type": "integer"}), json!(3.5)).len(), 1);
    assert!(check(json!({"type": ["string", "null"]}), json!(null)).is_empty());
    let object = json!({"type": "object", "required": ["a"],
                        "properties": {"a": {"type": "boolean"}},
                        "additionalProperties": false});
    assert!(check(object.clone(), json!({"a": true})).is_empty());
    assert_eq!(
        check(object.clone(), json!({"b": 1})),
        [
            ": \"a\" is a required property",
            "/b: no value is allowed here"
        ]
    );
    assert_eq!(check(object, json!({"a": "yes"})).len(), 1);
    let list = json!({"type": "array", "items": {"type": "string", "minLength": 2}});
    assert_eq!(
        check(list.clone(), json!(["éé", "é"])),
        ["/1: \"é\" is shorter than 2 characters"]
    );
    assert!(check(list, json!([])).is_empty());
    let reference = json!({"$ref": "#/$defs/Lesson/properties/entry"});
    assert_eq!(check(reference, json!(85)).len(), 1);
    let not = json!({"not": {"required": ["value"]}});
    assert!(check(not.clone(), json!({"entry": "85"})).is_empty());
    assert_eq!(check(not, json!({"value": {}})).len(), 1);
    // A keyword the checker does not implement is refused, not skipped.
    for schema in [
        json!({"pattern": "^a"}),
        json!({"properties": {"a": {"enum": [1]}}}),
    ] {
        let refused = std::panic::catch_unwind(|| spec_schema::validator(schema.clone()));
        assert!(refused.is_err(), "{schema}");
    }
}
