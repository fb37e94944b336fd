//! The JSON Schema the spec publishes (`spec/learnables-v1.json`), and
//! checks of values against its definitions.
//!
//! The spec's schema uses eight keywords: `type`, `properties`,
//! `required`, `additionalProperties`, `items`, `minLength`, `$ref` (a
//! pointer into the spec) and `not` (in the tests' own shapes). This
//! checker implements exactly those, by JSON Schema 2020-12, and refuses
//! to check with a schema that uses any other keyword but annotations: a
//! spec that grows a keyword fails every check until the checker learns it,
//! rather than passing values it never checked.

use serde_json::{Map, Value, json};

const SPEC: &str = include_str!("../../../spec/learnables-v1.json");

/// Keywords that say nothing about validity.
const ANNOTATIONS: [&str; 8] = [
    "$schema",
    "$id",
    "$defs",
    "$comment",
    "title",
    "description",
    "examples",
    "default",
];

/// The spec, parsed.
pub fn spec() -> Value {
    serde_json::from_str(SPEC).expect("the spec is JSON")
}

/// One way an instance breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Where in the instance, as a JSON pointer (`""` for the whole).
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

/// A schema, checked to use only the keywords this checker implements,
/// with its `$ref`s resolved against the spec.
#[derive(Debug, Clone)]
pub struct Validator {
    schema: Value,
    spec: Value,
}

impl Validator {
    /// Every violation of `instance`, in document order.
    pub fn iter_errors(&self, instance: &Value) -> std::vec::IntoIter<Violation> {
        let mut found = Vec::new();
        self.check(&self.schema, instance, "", &mut found);
        found.into_iter()
    }

    /// Whether `instance` breaks nothing.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.iter_errors(instance).next().is_none()
    }

    fn check(&self, schema: &Value, instance: &Value, path: &str, found: &mut Vec<Violation>) {
        let mut note = |path: &str, message: String| {
            found.push(Violation {
                path: path.to_owned(),
                message,
            })
        };
        let schema = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return note(path, "no value is allowed here".into()),
            Value::Object(schema) => schema,
            other => panic!("not a schema: {other}"),
        };
        if let Some(reference) = schema.get("$ref") {
            let target = self.resolve(reference);
            self.check(target, instance, path, found);
        }
        if let Some(kinds) = schema.get("type") {
            let kinds: Vec<&str> = match kinds {
                Value::String(kind) => vec![kind],
                Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect(),
                other => panic!("not a type: {other}"),
            };
            if !kinds.iter().any(|kind| is_of_type(instance, kind)) {
                let message = format!("{instance} is not of type {}", kinds.join(" or "));
                found.push(Violation {
                    path: path.to_owned(),
                    message,
                });
                return;
            }
        }
        if let (Some(least), Value::String(text)) = (schema.get("minLength"), instance) {
            let least = least.as_u64().expect("minLength is a count");
            if (text.chars().count() as u64) < least {
                found.push(Violation {
                    path: path.to_owned(),
                    message: format!("{instance} is shorter than {least} characters"),
                });
            }
        }
        if let Some(forbidden) = schema.get("not")
            && self.valid_against(forbidden, instance)
        {
            found.push(Violation {
                path: path.to_owned(),
                message: format!("{instance} must not be valid against {forbidden}"),
            });
        }
        if let Value::Object(members) = instance {
            self.check_object(schema, members, path, found);
        }
        if let (Some(items), Value::Array(elements)) = (schema.get("items"), instance) {
            for (index, element) in elements.iter().enumerate() {
                self.check(items, element, &format!("{path}/{index}"), found);
            }
        }
    }

    fn check_object(
        &self,
        schema: &Map<String, Value>,
        members: &Map<String, Value>,
        path: &str,
        found: &mut Vec<Violation>,
    ) {
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !members.contains_key(name) {
                found.push(Violation {
                    path: path.to_owned(),
                    message: format!("\"{name}\" is a required property"),
                });
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (name, value) in members {
            let at = format!("{path}/{}", pointer_escaped(name));
            match properties.and_then(|properties| properties.get(name)) {
                Some(property) => self.check(property, value, &at, found),
                None => {
                    if let Some(additional) = schema.get("additionalProperties") {
                        self.check(additional, value, &at, found);
                    }
                }
            }
        }
    }

    fn valid_against(&self, schema: &Value, instance: &Value) -> bool {
        let mut found = Vec::new();
        self.check(schema, instance, "", &mut found);
        found.is_empty()
    }

    /// The schema `#/a/b` points at in the spec.
    fn resolve(&self, reference: &Value) -> &Value {
        let reference = reference.as_str().expect("a $ref is a string");
        let pointer = reference
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("only pointers into the spec are resolved: {reference}"));
        self.spec
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{reference} points at nothing in the spec"))
    }
}

fn is_of_type(instance: &Value, kind: &str) -> bool {
    match kind {
        "object" => instance.is_object(),
        "array" => instance.is_array(),
        "string" => instance.is_string(),
        "boolean" => instance.is_boolean(),
        "null" => instance.is_null(),
        "number" => instance.is_number(),
        "integer" => {
            instance.is_i64()
                || instance.is_u64()
                || instance
                    .as_f64()
                    .is_some_and(|number| number.fract() == 0.0)
        }
        other => panic!("not a JSON Schema type: {other}"),
    }
}

/// `name` as a JSON pointer's segment (RFC 6901).
fn pointer_escaped(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Panics unless every keyword of `schema` (and of the schemas in it) is
/// one this checker implements or an annotation, and every `$ref` and
/// `type` means something.
fn assert_checkable(schema: &Value, spec: &Value, at: &str) {
    let Value::Object(schema) = schema else {
        assert!(schema.is_boolean(), "{at}: not a schema: {schema}");
        return;
    };
    for (keyword, value) in schema {
        let here = format!("{at}/{keyword}");
        match keyword.as_str() {
            "properties" => {
                for (name, property) in value.as_object().expect("properties is an object") {
                    assert_checkable(property, spec, &format!("{here}/{name}"));
                }
            }
            "items" | "additionalProperties" | "not" => assert_checkable(value, spec, &here),
            "$ref" => {
                let reference = value.as_str().expect("a $ref is a string");
                let target = reference
                    .strip_prefix('#')
                    .and_then(|pointer| spec.pointer(pointer));
                assert!(target.is_some(), "{here}: {reference} points at nothing");
            }
            "type" => {
                let kinds = value
                    .as_array()
                    .cloned()
                    .unwrap_or_else(|| vec![value.clone()]);
                for kind in kinds {
                    let kind = kind.as_str().expect("a type is named");
                    let _ = is_of_type(&Value::Null, kind);
                }
            }
            "required" => assert!(
                value
                    .as_array()
                    .is_some_and(|names| names.iter().all(Value::is_string)),
                "{here}: not a list of names"
            ),
            "minLength" => assert!(value.is_u64(), "{here}: not a count"),
            keyword if ANNOTATIONS.contains(&keyword) => {}
            keyword => panic!("{here}: the checker does not implement `{keyword}`"),
        }
    }
}

/// A validator for `schema`, resolving `#/...` against the spec, after
/// checking that the spec's definitions and `schema` use only keywords this
/// checker implements.
pub fn validator(schema: Value) -> Validator {
    let spec = spec();
    for (name, definition) in spec["$defs"].as_object().expect("the spec has $defs") {
        assert_checkable(definition, &spec, &format!("#/$defs/{name}"));
    }
    assert_checkable(
        &spec["declaration"]["params"],
        &spec,
        "#/declaration/params",
    );
    assert_checkable(&schema, &spec, "#");
    Validator { schema, spec }
}

/// A validator for the spec's definition `name` (`LearnableDescriptor`,
/// `LessonField`, `TeachBlock`, `Lesson`, `LessonResult`).
pub fn def(name: &str) -> Validator {
    assert!(
        spec()["$defs"].get(name).is_some(),
        "the spec defines no `{name}`"
    );
    validator(json!({"$ref": format!("#/$defs/{name}")}))
}

/// A validator for the declaration's params (`declaration.params`).
pub fn declaration_params() -> Validator {
    validator(spec()["declaration"]["params"].clone())
}

/// What is wrong with `instance`, one `path: error` line each.
pub fn violations(validator: &Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|violation| format!("{}: {}", violation.path, violation.message))
        .collect()
}

/// Panics, naming every violation, unless `instance` is valid.
pub fn assert_valid(validator: &Validator, instance: &Value) {
    let errors = violations(validator, instance);
    assert!(errors.is_empty(), "{instance}\n{}", errors.join("\n"));
}
