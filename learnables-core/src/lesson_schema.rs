//! The JSON Schema (2020-12) of a learnable's lesson value, from its
//! descriptor alone (ours, or one read from another agent's card): what a
//! model's tool call, a form or any client can be checked against before
//! the learnable's parser judges the value.
//!
//! Each lesson field is a property:
//!
//! - its label the `title`, its help the `description` (both escaped and
//!   bounded: a descriptor may come from another agent's card);
//! - its form the `type`: `string` for text and dates (`format: date`),
//!   `integer`, `number` or `boolean` by its `valueType`; a list field an
//!   `array` of its items (`minItems`/`maxItems` from its lengths);
//! - choices as `enum`, or, where the learnable says what they mean, as
//!   `oneOf` of `{const, title}` (the choice, and what it means);
//! - the field checks: `minimum`, `maximum`, `minLength`, `maxLength` and
//!   `pattern` (anchored: the whole value must match); a required text
//!   without a pattern, `pattern: "\\S"` (a blank text is none); a date's
//!   bounds are said in its `description`, since JSON Schema bounds no text;
//! - `required` unless a lesson may leave it out (an optional field, one
//!   with a default, the entry's key, which the entry fills); an optional
//!   field also takes `null`; the entry's key is named (`x-entryKey`) and
//!   said in its description.
//!
//! The schema is of the value's JSON form: a number as a JSON number, a
//! boolean as `true`/`false`, a list as an array. The parser also reads a
//! form's text (`"85"` for 85, one item a line for a list) and a choice's
//! earlier names; those are not offered here. Within the JSON form, a value
//! the parser accepts validates, and one a field check refuses does not
//! (rules across fields, which only the learnable knows, excepted).
//!
//! A flat form's property (MCP's elicitation, where a person answers) is
//! made here too, from the same pieces (`form_property`), so the form and
//! the schema never disagree on a field's type, bounds or choices.
//!
//! [`strict_lesson_schema`] is the same for a function-calling API's strict
//! mode: every property required, an optional one nullable, no property
//! beyond them, choices as `enum` with their meanings in the description,
//! no keyword strict modes refuse (`oneOf`, `default`, `format`, ours), and
//! the entry's key left out (the tool names the entry).
//!
//! ```
//! # extern crate learnables_core as learnables;
//! use learnables::{FieldKind, LearnableDescriptor, LessonField, lesson_schema};
//! let mut descriptor = LearnableDescriptor::new(
//!     "routing_rules", "routing rule", "Which desk handles a declaration",
//!     "A table keyed on the HS chapter", "rules");
//! descriptor.lesson_fields.push(
//!     LessonField::new("chapter", "HS chapter", FieldKind::TEXT).with_entry_key());
//! descriptor.lesson_fields.push(
//!     LessonField::new("desk", "Desk", FieldKind::CHOICE).with_choices(["general", "cold chain"]));
//! let schema = lesson_schema(&descriptor);
//! assert_eq!(schema["properties"]["desk"]["enum"], serde_json::json!(["general", "cold chain"]));
//! assert_eq!(schema["required"], serde_json::json!(["desk"]));
//! assert_eq!(schema["x-entryKey"], "chapter");
//! assert_eq!(schema["additionalProperties"], false);
//! ```

use serde_json::{Map, Value, json};

use crate::untrusted::Untrusted;
use crate::wire::{FieldBound, LearnableDescriptor, LessonField};

/// The 2020-12 dialect's URI, the schema's `$schema`.
pub const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// What the derive appends to the help of a field a lesson may leave out
/// (the spec's lesson fields have no other way to say it).
const OPTIONAL: &str = "Optional.";

/// The most characters of one title or description.
const MAX_TEXT_CHARS: usize = 1024;

/// The JSON Schema (2020-12) of `descriptor`'s lesson value: each field's
/// kind and `valueType` as its type, its checks as the schema's keywords.
pub fn lesson_schema(descriptor: &LearnableDescriptor) -> Value {
    object_schema(descriptor, Flavor::Full)
}

/// [`lesson_schema`] for a function-calling API's strict mode: every
/// property required, an optional one nullable (`null` is what a lesson
/// leaving it out says), `additionalProperties: false`, only the keywords
/// strict modes take; the entry's key is left out.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{FieldKind, LearnableDescriptor, LessonField, strict_lesson_schema};
/// let mut descriptor = LearnableDescriptor::new(
///     "routing_rules", "routing rule", "Which desk handles a declaration",
///     "A table keyed on the HS chapter", "rules");
/// descriptor.lesson_fields.push(
///     LessonField::new("note", "Note", FieldKind::TEXT).with_help("Optional."));
/// let schema = strict_lesson_schema(&descriptor);
/// assert_eq!(schema["properties"]["note"]["type"], serde_json::json!(["string", "null"]));
/// assert_eq!(schema["required"], serde_json::json!(["note"]));
/// ```
pub fn strict_lesson_schema(descriptor: &LearnableDescriptor) -> Value {
    object_schema(descriptor, Flavor::Strict)
}

/// Which schema a property is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    /// The whole 2020-12 schema.
    Full,
    /// A strict function-calling schema.
    Strict,
}

fn object_schema(descriptor: &LearnableDescriptor, flavor: Flavor) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in &descriptor.lesson_fields {
        if flavor == Flavor::Strict && field.entry_key {
            continue;
        }
        let mut property = field_schema(field, flavor);
        if field.entry_key {
            let said = format!(
                "The {}'s key: the entry fills it when the value leaves it out, and a value that \
                 gives it must name the same entry.",
                text(&descriptor.entry)
            );
            append_description(&mut property, &said);
        }
        properties.insert(field.name.clone(), property);
        if flavor == Flavor::Strict || !may_be_left_out(field) {
            required.push(Value::from(field.name.as_str()));
        }
    }
    let mut schema = Map::new();
    if flavor == Flavor::Full {
        schema.insert("$schema".into(), SCHEMA_DIALECT.into());
        schema.insert(
            "title".into(),
            format!("A lesson on a {}", text(&descriptor.entry)).into(),
        );
    }
    schema.insert("description".into(), text(&descriptor.teaches).into());
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), Value::Array(required));
    schema.insert("additionalProperties".into(), false.into());
    if flavor == Flavor::Full
        && let Some(key) = descriptor
            .lesson_fields
            .iter()
            .find(|field| field.entry_key)
    {
        schema.insert("x-entryKey".into(), key.name.as_str().into());
    }
    Value::Object(schema)
}

/// One field's schema.
fn field_schema(field: &LessonField, flavor: Flavor) -> Value {
    // An optional field reads `null` as left out, in either schema.
    let nullable = is_optional(field);
    let mut item = item_schema(field, flavor);
    let mut property = if field.list {
        let mut list = json!({"type": "array"});
        if let Value::Object(item) = &mut item {
            item.remove("title");
            item.remove("description");
        }
        list["items"] = item;
        if let Some(least) = field.min_length {
            list["minItems"] = least.into();
        }
        if let Some(most) = field.max_length {
            list["maxItems"] = most.into();
        }
        list
    } else {
        item
    };
    property["title"] = text(&field.label).into();
    let mut description = field.help.as_deref().map(text).unwrap_or_default();
    if field.kind.as_str() == "date" {
        let bound = |bound: &Option<FieldBound>| match bound {
            Some(FieldBound::Text(date)) => Some(text(date)),
            Some(FieldBound::Number(number)) => Some(number.to_string()),
            None => None,
        };
        let said = match (bound(&field.minimum), bound(&field.maximum)) {
            (Some(first), Some(last)) => format!("A date from {first} to {last}."),
            (Some(first), None) => format!("A date on or after {first}."),
            (None, Some(last)) => format!("A date on or before {last}."),
            (None, None) => String::new(),
        };
        description = joined(&description, &said);
    }
    if flavor == Flavor::Strict && field.kind.is_choice() {
        description = joined(&description, &choice_meanings(field));
    }
    if !description.is_empty() {
        property["description"] = description.into();
    }
    if flavor == Flavor::Full
        && let Some(default) = &field.default
    {
        property["default"] = typed_default(field, default);
    }
    if nullable {
        make_nullable(&mut property);
    }
    property
}

/// The schema of one value of the field (of one item, for a list).
fn item_schema(field: &LessonField, flavor: Flavor) -> Value {
    let mut schema = Map::new();
    let value_type = field.value_type.as_deref();
    match value_type {
        Some(kind @ ("integer" | "number")) => {
            schema.insert("type".into(), kind.into());
            for (key, number) in number_bounds(field, kind, false) {
                schema.insert(key.into(), Value::Number(number));
            }
        }
        Some("boolean") => {
            schema.insert("type".into(), "boolean".into());
        }
        _ => {
            schema.insert("type".into(), "string".into());
            if field.kind.is_choice() {
                let choices = field.choices.clone().unwrap_or_default();
                let said = field.choice_descriptions.as_deref().unwrap_or_default();
                let described = said.iter().any(Option::is_some);
                if flavor == Flavor::Full && described {
                    schema.insert("oneOf".into(), Value::Array(choice_one_of(field)));
                } else {
                    schema.insert("enum".into(), choices.into());
                }
            } else {
                if field.kind.as_str() == "date" && flavor == Flavor::Full {
                    schema.insert("format".into(), "date".into());
                }
                if !field.list {
                    if let Some(least) = field.min_length {
                        schema.insert("minLength".into(), least.into());
                    }
                    if let Some(most) = field.max_length {
                        schema.insert("maxLength".into(), most.into());
                    }
                }
                if let Some(pattern) = &field.pattern {
                    schema.insert("pattern".into(), format!("^(?:{pattern})$").into());
                } else if !field.list && !may_be_left_out(field) {
                    // The parser reads a blank text as none, which a
                    // required field refuses.
                    schema.insert("pattern".into(), "\\S".into());
                }
            }
        }
    }
    Value::Object(schema)
}

/// A choice field's choices as `oneOf` of `{const, title}`: each choice
/// as sent, titled with what it means where the learnable says.
fn choice_one_of(field: &LessonField) -> Vec<Value> {
    let said = field.choice_descriptions.as_deref().unwrap_or_default();
    field
        .choices
        .iter()
        .flatten()
        .enumerate()
        .map(|(at, choice)| {
            let title = match said.get(at).cloned().flatten() {
                Some(meaning) => format!("{} — {}", text(choice), text(&meaning)),
                None => text(choice),
            };
            json!({"const": choice, "title": title})
        })
        .collect()
}

/// A number field's `minimum` and `maximum` a schema of `kind` holds (an
/// integer's bound a whole number).
/// A form takes an integer's bound as a signed 64-bit number only
/// (`signed_only`): a bound past it is left out, and the agent still
/// checks it.
fn number_bounds(
    field: &LessonField,
    kind: &str,
    signed_only: bool,
) -> Vec<(&'static str, serde_json::Number)> {
    [("minimum", &field.minimum), ("maximum", &field.maximum)]
        .into_iter()
        .filter_map(|(key, bound)| match bound {
            Some(FieldBound::Number(number))
                if kind == "number"
                    || number.as_i64().is_some()
                    || (!signed_only && number.as_u64().is_some()) =>
            {
                Some((key, number.clone()))
            }
            _ => None,
        })
        .collect()
}

/// One lesson field as a flat form's property (MCP's elicitation
/// `requestedSchema`, where a person answers): what the lesson schema says
/// of it, in the shapes a form takes. A string, its label the `title`, its
/// help and its checks in words the `description`; a number field an
/// `integer` or `number` with its bounds; a text its lengths; a choice a
/// single select (`oneOf` of `{const, title}`), a list of choices a
/// multi-select; a date `format: date`; `default` the given one (a
/// number's as a number, a text's escaped). The pattern is said in words
/// only: the agent checks it.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{FieldBound, FieldKind, LessonField};
/// let mut amount = LessonField::new("amount", "Amount", FieldKind::TEXT);
/// amount.value_type = Some("integer".into());
/// amount.maximum = Some(FieldBound::Number(1000.into()));
/// let property = learnables::__shared::form_property(&amount, Some("500"));
/// assert_eq!(property["type"], "integer");
/// assert_eq!(property["maximum"], 1000);
/// assert_eq!(property["default"], 500);
/// ```
pub fn form_property(field: &LessonField, default: Option<&str>) -> Value {
    let mut property = json!({"type": "string", "title": text(&field.label)});
    let said: Vec<String> = [
        field.help.as_deref().map(text),
        (field.list && !field.kind.is_choice()).then(|| "One a line.".to_owned()),
        crate::field_check::in_words(field).map(|words| text(&words)),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !said.is_empty() {
        property["description"] = Value::from(said.join(" "));
    }
    if field.list && field.kind.is_choice() {
        let any_of: Vec<Value> = field
            .choices
            .iter()
            .flatten()
            .map(|choice| json!({"const": choice, "title": text(choice)}))
            .collect();
        property["type"] = Value::from("array");
        property["items"] = json!({"anyOf": any_of});
        if let Some(least) = field.min_length {
            property["minItems"] = Value::from(least);
        }
        if let Some(most) = field.max_length {
            property["maxItems"] = Value::from(most);
        }
        return property;
    }
    if !field.list {
        match field.value_type.as_deref() {
            Some(kind @ ("integer" | "number")) => {
                property["type"] = Value::from(kind);
                for (key, number) in number_bounds(field, kind, true) {
                    property[key] = Value::Number(number);
                }
                // A number's default is a number: the text the descriptor holds, read.
                if let Some(default) =
                    default.and_then(|d| serde_json::from_str::<serde_json::Number>(d.trim()).ok())
                {
                    property["default"] = Value::Number(default);
                }
                return property;
            }
            _ => {
                for (key, count) in [
                    ("minLength", field.min_length),
                    ("maxLength", field.max_length),
                ] {
                    if let Some(count) = count.and_then(|count| u32::try_from(count).ok()) {
                        property[key] = Value::from(count);
                    }
                }
            }
        }
    }
    if field.kind.is_choice() {
        property["oneOf"] = Value::Array(choice_one_of(field));
    } else if field.kind.as_str() == "date" {
        property["format"] = Value::from("date");
    }
    if let Some(default) = default {
        // A choice's default is one of its choices, sent back exactly; a
        // text's is shown in the input and sent as shown, so escaped.
        property["default"] = if field.kind.is_choice() {
            Value::from(default)
        } else {
            Value::from(text(default))
        };
    }
    property
}

/// A field's default in its JSON form: a number or a boolean as such.
fn typed_default(field: &LessonField, default: &str) -> Value {
    let typed = match field.value_type.as_deref() {
        Some("integer" | "number" | "boolean") => serde_json::from_str::<Value>(default.trim())
            .ok()
            .filter(|value| value.is_number() || value.is_boolean()),
        _ => None,
    };
    let one = typed.unwrap_or_else(|| Value::from(default));
    if field.list {
        Value::Array(
            default
                .split(crate::wire::LIST_SEPARATOR)
                .filter(|item| !item.trim().is_empty())
                .map(Value::from)
                .collect(),
        )
    } else {
        one
    }
}

/// `null` added to a property's values.
fn make_nullable(property: &mut Value) {
    if let Some(kind) = property.get("type").and_then(Value::as_str) {
        property["type"] = json!([kind, "null"]);
    }
    if let Some(Value::Array(choices)) = property.get_mut("enum") {
        choices.push(Value::Null);
    }
}

/// What a choice field's choices mean, in words, for a schema that lists
/// them as a bare `enum`.
fn choice_meanings(field: &LessonField) -> String {
    let said = field.choice_descriptions.as_deref().unwrap_or_default();
    let meanings: Vec<String> = field
        .choices
        .iter()
        .flatten()
        .zip(said.iter().chain(std::iter::repeat(&None)))
        .filter_map(|(choice, meaning)| {
            meaning
                .as_deref()
                .map(|meaning| format!("{:?}: {}", text(choice), text(meaning)))
        })
        .collect();
    if meanings.is_empty() {
        String::new()
    } else {
        format!("Choices: {}.", meanings.join("; "))
    }
}

fn append_description(property: &mut Value, said: &str) {
    let before = property
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    property["description"] = joined(before, said).into();
}

fn joined(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_owned(),
        (_, true) => first.to_owned(),
        _ => format!("{first} {second}"),
    }
}

/// Outside text for a schema: escaped and bounded.
fn text(text: &str) -> String {
    Untrusted::new(text).max_chars(MAX_TEXT_CHARS).to_string()
}

/// Whether the field's type may be absent (an `Option`): the derive ends
/// its help with "Optional.". Such a field also reads `null` as absent.
pub fn is_optional(field: &LessonField) -> bool {
    field
        .help
        .as_deref()
        .is_some_and(|help| help.trim_end().ends_with(OPTIONAL))
}

/// Whether a lesson may leave `field` out: an optional field, one with a
/// default, or the entry's key, which the entry fills.
pub fn may_be_left_out(field: &LessonField) -> bool {
    field.default.is_some() || field.entry_key || is_optional(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FieldKind;

    fn descriptor() -> LearnableDescriptor {
        LearnableDescriptor::new("c", "thing", "What", "A table", "rules")
    }

    #[test]
    fn a_list_of_choices_is_an_array_of_them_bounded_in_items() {
        let mut field =
            LessonField::new("desks", "Desks", FieldKind::CHOICE).with_choices(["a", "b"]);
        field.list = true;
        field.min_length = Some(1);
        field.max_length = Some(2);
        let schema = field_schema(&field, Flavor::Full);
        assert_eq!(
            schema,
            json!({"type": "array", "items": {"type": "string", "enum": ["a", "b"]},
                   "minItems": 1, "maxItems": 2, "title": "Desks"})
        );
    }

    #[test]
    fn a_teachers_text_reaches_the_schema_escaped() {
        let mut descriptor = descriptor();
        descriptor
            .lesson_fields
            .push(LessonField::new("x", "Label\x1b[2J", FieldKind::TEXT).with_help("a\nb"));
        let schema = lesson_schema(&descriptor);
        assert_eq!(schema["properties"]["x"]["title"], r"Label\u{1b}[2J");
        assert_eq!(schema["properties"]["x"]["description"], r"a\nb");
    }

    #[test]
    fn strict_leaves_out_the_entry_key_and_what_strict_modes_refuse() {
        let mut descriptor = descriptor();
        descriptor
            .lesson_fields
            .push(LessonField::new("k", "Key", FieldKind::TEXT).with_entry_key());
        let mut on =
            LessonField::new("on", "On", FieldKind::new("date")).with_default("2026-01-01");
        on.minimum = Some(FieldBound::Text("2026-01-01".into()));
        descriptor.lesson_fields.push(on);
        let mut desk = LessonField::new("desk", "Desk", FieldKind::CHOICE).with_choices(["a", "b"]);
        desk.choice_descriptions = Some(vec![Some("first".into()), None]);
        descriptor.lesson_fields.push(desk);
        let strict = strict_lesson_schema(&descriptor);
        assert!(strict["properties"].get("k").is_none());
        assert_eq!(strict["required"], json!(["on", "desk"]));
        assert_eq!(
            strict["properties"]["on"],
            json!({"type": "string", "title": "On", "description": "A date on or after 2026-01-01."})
        );
        assert_eq!(
            strict["properties"]["desk"],
            json!({"type": "string", "enum": ["a", "b"], "title": "Desk",
                   "description": "Choices: \"a\": first."})
        );
        let full = lesson_schema(&descriptor);
        assert_eq!(
            full["properties"]["desk"]["oneOf"],
            json!([{"const": "a", "title": "a — first"}, {"const": "b", "title": "b"}])
        );
        assert_eq!(full["properties"]["on"]["format"], "date");
        assert_eq!(full["required"], json!(["desk"]));
    }
}
