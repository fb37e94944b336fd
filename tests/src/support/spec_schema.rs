//! The JSON Schema the spec publishes (`spec/learnables-v1.json`), compiled
//! with `jsonschema`, and checks of values against its definitions.

use serde_json::{Value, json};

const SPEC: &str = include_str!("../../../spec/learnables-v1.json");

/// The spec, parsed.
pub fn spec() -> Value {
    serde_json::from_str(SPEC).expect("the spec is JSON")
}

/// A validator for `schema`, resolving `#/$defs/...` against the spec.
pub fn validator(schema: Value) -> jsonschema::Validator {
    let mut schema = schema;
    let spec = spec();
    schema["$schema"] = spec["$schema"].clone();
    schema["$defs"] = spec["$defs"].clone();
    jsonschema::validator_for(&schema).expect("the spec's schema compiles")
}

/// A validator for the spec's definition `name` (`LearnableDescriptor`,
/// `LessonField`, `TeachBlock`, `Lesson`, `LessonResult`).
pub fn def(name: &str) -> jsonschema::Validator {
    assert!(
        spec()["$defs"].get(name).is_some(),
        "the spec defines no `{name}`"
    );
    validator(json!({"$ref": format!("#/$defs/{name}")}))
}

/// A validator for the declaration's params (`declaration.params`).
pub fn declaration_params() -> jsonschema::Validator {
    validator(spec()["declaration"]["params"].clone())
}

/// What is wrong with `instance`, one `path: error` line each.
pub fn violations(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|error| format!("{}: {}", error.instance_path(), error))
        .collect()
}

/// Panics, naming every violation, unless `instance` is valid.
pub fn assert_valid(validator: &jsonschema::Validator, instance: &Value) {
    let errors = violations(validator, instance);
    assert!(errors.is_empty(), "{instance}\n{}", errors.join("\n"));
}
