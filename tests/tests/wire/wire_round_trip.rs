//! The wire types read and write exactly the spec's JSON shapes.

use learnables::{
    DeclarationParams, FieldKind, LearnableDescriptor, Lesson, LessonResult, TeachBlock,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Reads `json` as `T` and writes it back: the same JSON, key for key.
fn round_trips<T: Serialize + DeserializeOwned + std::fmt::Debug + PartialEq>(json: Value) -> T {
    let typed: T = serde_json::from_value(json.clone()).expect("reads");
    assert_eq!(serde_json::to_value(&typed).unwrap(), json);
    let again: T = serde_json::from_value(serde_json::to_value(&typed).unwrap()).unwrap();
    assert_eq!(again, typed);
    typed
}

#[test]
fn descriptor_with_every_key() {
    let descriptor: LearnableDescriptor = round_trips(json!({
        "collection": "routing_rules", "entry": "routing rule", "skills": ["a", "b"],
        "teaches": "Which desk", "how": "A table keyed on the chapter", "decidedBy": "hybrid",
        "lessonFields": [
            {"name": "desk", "label": "Desk", "kind": "choice", "choices": ["x", "y"],
             "default": "x", "help": "Pick one"},
            {"name": "when", "label": "When", "kind": "some-future-kind"}
        ]
    }));
    assert_eq!(
        descriptor.lesson_fields[1].kind,
        FieldKind::new("some-future-kind")
    );
}

#[test]
fn descriptor_with_only_required_keys() {
    round_trips::<LearnableDescriptor>(json!({
        "collection": "c", "entry": "e", "teaches": "t", "how": "h h", "decidedBy": "model",
        "lessonFields": []
    }));
}

#[test]
fn a_descriptor_missing_a_required_key_does_not_read() {
    let missing_how = json!({
        "collection": "c", "entry": "e", "teaches": "t", "decidedBy": "model", "lessonFields": []
    });
    let error = serde_json::from_value::<LearnableDescriptor>(missing_how).unwrap_err();
    assert!(error.to_string().contains("missing field `how`"), "{error}");
}

#[test]
fn teach_block_lesson_result_and_params() {
    round_trips::<TeachBlock>(json!({
        "collection": "routing_rules", "entries": ["85"],
        "suggested": {"desk": "general"}, "suggestionLabel": "From similar chapters",
        "lessonFields": [{"name": "desk", "label": "Desk", "kind": "text"}]
    }));
    round_trips::<TeachBlock>(json!({"collection": "routing_rules", "entries": []}));
    round_trips::<Lesson>(json!({
        "collection": "routing_rules", "entry": "85", "value": {"desk": "general"},
        "taughtBy": "alice@example.com", "reason": "New desk"
    }));
    round_trips::<Lesson>(json!({
        "collection": "routing_rules", "entry": "85", "value": {}, "taughtBy": "bob@example.com"
    }));
    round_trips::<LessonResult>(json!({
        "learned": true, "describes": "Chapter 85 goes to general", "definitionVersion": 2,
        "versionId": "v2", "previousVersionId": "v1"
    }));
    round_trips::<LessonResult>(json!({
        "learned": false, "describes": "Nothing new", "definitionVersion": 1
    }));
    round_trips::<DeclarationParams>(json!({"learnables": [], "teachMethod": "m"}));
}
