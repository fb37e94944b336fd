//! A learnable's form as an MCP elicitation (feature `mcp`): the
//! `requestedSchema` of an `elicitation/create` request built from the
//! learnable's lesson fields, and the person's answer read back as its lesson
//! value, every problem named by field in words.
//!
//! The elicitation is MCP's counterpart of a teach block: the server asks
//! the *person* (never the model) for a flat form, and the answer is the
//! lesson. The mapping ([`requested_schema`]):
//!
//! - each lesson field is a string property: its label the `title`, its help
//!   the `description`, its default the `default`;
//! - a `choice` field is a single select, `oneOf` of `{const, title}`: the
//!   choice as sent, titled with what it means where the learnable says;
//! - a `date` field has `format: date`;
//! - a field the lesson may leave out (an `Option`, or one with a default)
//!   is not `required`;
//! - the field that is the entry's key is not asked: the entry fills it.
//!
//! Titles, descriptions and a text field's default are escaped and bounded
//! ([`crate::untrusted`]): a descriptor may come from another agent's card.
//! Choices (and a choice field's default) are kept exactly, since the
//! answer sends them back.
//!
//! ```
//! use learnables::{Learnable, mcp};
//!
//! #[derive(Learnable, Debug)]
//! #[learnable(collection = "routing_rules", entry = "routing rule",
//!             teaches = "Which desk handles a declaration",
//!             how = "A table keyed on the HS chapter", decided_by = "rules",
//!             describes = "Chapter {chapter} goes to the {desk} desk")]
//! struct RoutingRule {
//!     /// HS chapter
//!     #[learnable(entry_key)]
//!     chapter: u8,
//!     /// Desk
//!     desk: String,
//!     /// Note for the broker
//!     note: Option<String>,
//! }
//!
//! let schema = serde_json::to_value(mcp::requested_schema(RoutingRule::descriptor())).unwrap();
//! assert_eq!(schema["properties"]["desk"]["title"], "Desk");
//! assert!(schema["properties"].get("chapter").is_none()); // the entry fills it
//! assert_eq!(schema["required"], serde_json::json!(["desk"]));
//!
//! let answer = serde_json::json!({"desk": "cold chain", "note": ""});
//! let rule: RoutingRule = mcp::read_answer("85", Some(&answer)).unwrap();
//! assert_eq!((rule.chapter, rule.desk.as_str(), rule.note), (85, "cold chain", None));
//! ```

use std::collections::BTreeMap;

use rmcp::model::ElicitationSchema;
use serde_json::{Map, Value, json};

use crate::shared::shortened;
use crate::untrusted::Untrusted;
use crate::{Learnable, LearnableDescriptor, LessonError, LessonField, LessonProblem, LessonValue};

/// What the derive appends to the help of a field a lesson may leave out
/// (the spec's lesson fields have no other way to say it).
const OPTIONAL: &str = "Optional.";

/// The most characters of one title or description in a form.
const MAX_TEXT_CHARS: usize = 1024;

/// The elicitation `requestedSchema` of `descriptor`'s lesson fields, with
/// each field's default as its `default` (see the [module](self) for the
/// mapping). `T::descriptor()` gives a derived learnable's.
///
/// ```
/// use learnables::{FieldKind, LearnableDescriptor, LessonField, mcp};
/// let mut descriptor = LearnableDescriptor::new(
///     "reviews", "review", "When compliance looks again", "A date per broker", "rules");
/// descriptor.lesson_fields.push(LessonField::new("on", "Review date", FieldKind::new("date")));
/// let schema = serde_json::to_value(mcp::requested_schema(&descriptor)).unwrap();
/// assert_eq!(
///     schema,
///     serde_json::json!({"type": "object", "required": ["on"], "properties": {
///         "on": {"type": "string", "title": "Review date", "format": "date"}}})
/// );
/// ```
pub fn requested_schema(descriptor: &LearnableDescriptor) -> ElicitationSchema {
    requested_schema_with(descriptor, &BTreeMap::new())
}

/// As [`requested_schema`], each field's `default` replaced by `prefill`'s
/// value for it where it has one: a teach block's suggestion, or what the
/// person answered before the agent refused it. A prefill that is not one of
/// a choice field's choices is left out.
///
/// ```
/// use std::collections::BTreeMap;
/// use learnables::{FieldKind, LearnableDescriptor, LessonField, mcp};
/// let mut descriptor = LearnableDescriptor::new(
///     "limits", "limit", "How much a broker may clear", "A fixed amount per broker", "rules");
/// descriptor.lesson_fields.push(LessonField::new("amount", "Amount in euros", FieldKind::TEXT));
/// let prefill = BTreeMap::from([("amount".to_owned(), "5000".to_owned())]);
/// let schema = serde_json::to_value(mcp::requested_schema_with(&descriptor, &prefill)).unwrap();
/// assert_eq!(schema["properties"]["amount"]["default"], "5000");
/// ```
pub fn requested_schema_with(
    descriptor: &LearnableDescriptor,
    prefill: &BTreeMap<String, String>,
) -> ElicitationSchema {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in descriptor.lesson_fields.iter().filter(|f| !f.entry_key) {
        let fits = |value: &&String| !field.kind.is_choice() || choices(field).contains(value);
        let default = prefill
            .get(&field.name)
            .filter(fits)
            .or(field.default.as_ref().filter(fits));
        properties.insert(field.name.clone(), property(field, default));
        if !optional(field) {
            required.push(Value::from(field.name.as_str()));
        }
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    // Every property is a string, a single select or a date: shapes the
    // schema type takes, so it always reads.
    serde_json::from_value(schema).unwrap_or_else(|_| ElicitationSchema::new(BTreeMap::new()))
}

/// One field's property.
fn property(field: &LessonField, default: Option<&String>) -> Value {
    let mut property = json!({"type": "string", "title": text(&field.label)});
    // What the field's checks ask, said before the person answers (the
    // pattern has no place in an elicitation schema: the agent checks it).
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
        return multi_select(field, property);
    }
    if !field.list {
        limits(field, &mut property);
    }
    if matches!(property["type"].as_str(), Some("integer" | "number")) {
        // A number's default is a number: the text the descriptor holds, read.
        if let Some(default) =
            default.and_then(|d| serde_json::from_str::<serde_json::Number>(d.trim()).ok())
        {
            property["default"] = Value::Number(default);
        }
        return property;
    }
    if field.kind.is_choice() {
        let said = field.choice_descriptions.as_deref().unwrap_or_default();
        let one_of: Vec<Value> = choices(field)
            .iter()
            .enumerate()
            .map(|(at, choice)| {
                let title = match said.get(at).cloned().flatten() {
                    Some(meaning) => format!("{} — {}", text(choice), text(&meaning)),
                    None => text(choice),
                };
                json!({"const": choice, "title": title})
            })
            .collect();
        property["oneOf"] = Value::Array(one_of);
    } else if field.kind.as_str() == "date" {
        property["format"] = Value::from("date");
    }
    if let Some(default) = default {
        // A choice's default is one of its choices, sent back exactly; a
        // text's is shown in the input and sent as shown, so escaped.
        property["default"] = if field.kind.is_choice() {
            Value::from(default.as_str())
        } else {
            Value::from(text(default))
        };
    }
    property
}

/// A list of choices: MCP's multi-select (an array of the choices), with
/// its counts.
fn multi_select(field: &LessonField, mut property: Value) -> Value {
    let any_of: Vec<Value> = choices(field)
        .iter()
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
    property
}

/// A number's type and bounds, a text's lengths: the keys an elicitation
/// schema has for a field's checks (a bound it cannot hold is left out;
/// the agent still checks it).
fn limits(field: &LessonField, property: &mut Value) {
    let bound = |bound: &Option<crate::FieldBound>| match bound {
        Some(crate::FieldBound::Number(number)) => Some(number.clone()),
        _ => None,
    };
    match field.value_type.as_deref() {
        Some(kind @ ("integer" | "number")) => {
            property["type"] = Value::from(kind);
            for (key, number) in [
                ("minimum", bound(&field.minimum)),
                ("maximum", bound(&field.maximum)),
            ] {
                let fits = number
                    .as_ref()
                    .is_some_and(|number| kind == "number" || number.as_i64().is_some());
                if let (true, Some(number)) = (fits, number) {
                    property[key] = Value::Number(number);
                }
            }
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

/// Outside text for a form: escaped and bounded.
fn text(text: &str) -> String {
    Untrusted::new(text).max_chars(MAX_TEXT_CHARS).to_string()
}

/// A field's choices (none for a field without).
fn choices(field: &LessonField) -> &[String] {
    field.choices.as_deref().unwrap_or_default()
}

/// Whether a lesson may leave `field` out: a field the derive marked
/// optional, or one with a default.
fn optional(field: &LessonField) -> bool {
    field.default.is_some()
        || field
            .help
            .as_deref()
            .is_some_and(|help| help.trim_end().ends_with(OPTIONAL))
}

/// The lesson value of an elicitation's `content` for `entry` of
/// `descriptor`: each answered field as the text a form sends, an empty
/// answer left out, the entry's key field filled from `entry`. Refused, with
/// every problem by field: a key that is no field of the form, a value that
/// is not text (an array, an object), a choice that is not one of the
/// field's. The agent's own parser still judges the value (types, rules
/// across fields).
///
/// ```
/// use learnables::{FieldKind, LearnableDescriptor, LessonField, mcp};
/// let mut descriptor = LearnableDescriptor::new(
///     "routing_rules", "routing rule", "Which desk handles a declaration",
///     "A table keyed on the HS chapter", "rules");
/// descriptor.lesson_fields.push(
///     LessonField::new("desk", "Desk", FieldKind::CHOICE).with_choices(["general", "cold chain"]));
/// let error = mcp::lesson_value(&descriptor, "85", Some(&serde_json::json!({"desk": "cold"})))
///     .unwrap_err();
/// assert_eq!(error.field(), Some("desk"));
/// assert_eq!(
///     error.to_string(),
///     "`desk` (Desk): \"cold\" is not one of the choices: general, cold chain"
/// );
/// ```
pub fn lesson_value(
    descriptor: &LearnableDescriptor,
    entry: &str,
    content: Option<&Value>,
) -> Result<LessonValue, LessonError> {
    let empty = Map::new();
    let mut value = Map::new();
    let mut problems = Vec::new();
    let content = match content {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(content)) => content,
        Some(other) => {
            problems.push(LessonProblem::WrongType {
                field: String::new(),
                label: "the form".to_owned(),
                found: kind_of(other),
            });
            &empty
        }
    };
    for (key, answer) in content {
        let Some(field) = descriptor.lesson_fields.iter().find(|f| &f.name == key) else {
            problems.push(LessonProblem::UnknownField {
                field: text(key),
                known: descriptor
                    .lesson_fields
                    .iter()
                    .filter(|f| !f.entry_key)
                    .map(|f| f.name.clone())
                    .collect(),
            });
            continue;
        };
        // A list: an array of items (a multi-select's answer), each as a
        // single value is read; a text is its text form, read by the agent.
        if field.list
            && let Value::Array(items) = answer
        {
            match list_answer(field, items) {
                Ok(items) if items.is_empty() => {}
                Ok(items) => {
                    value.insert(field.name.clone(), Value::Array(items));
                }
                Err(problem) => problems.push(problem),
            }
            continue;
        }
        let answered = match answer {
            Value::Null => continue,
            // A choice is sent back exactly as the learnable wrote it.
            Value::String(answered) if choices(field).contains(answered) => answered.clone(),
            Value::String(answered) => answered.trim().to_owned(),
            Value::Number(number) => number.to_string(),
            Value::Bool(flag) => flag.to_string(),
            other => {
                problems.push(LessonProblem::WrongType {
                    field: field.name.clone(),
                    label: field.label.clone(),
                    found: kind_of(other),
                });
                continue;
            }
        };
        if answered.is_empty() {
            continue;
        }
        if field.kind.is_choice() && !choices(field).contains(&answered) {
            problems.push(LessonProblem::NotAChoice {
                field: field.name.clone(),
                label: field.label.clone(),
                value: shortened(&answered),
                choices: choices(field).to_vec(),
            });
            continue;
        }
        value.insert(field.name.clone(), Value::String(answered));
    }
    if let Some(key) = descriptor.lesson_fields.iter().find(|f| f.entry_key) {
        value
            .entry(key.name.clone())
            .or_insert_with(|| Value::String(entry.to_owned()));
    }
    match LessonError::from_problems(problems) {
        Some(error) => Err(error),
        None => Ok(LessonValue::from(value)),
    }
}

/// The items of a list field's answer: each a text (a choice one of the
/// field's), blank ones left out.
fn list_answer(field: &LessonField, items: &[Value]) -> Result<Vec<Value>, LessonProblem> {
    let mut read = Vec::with_capacity(items.len());
    for item in items {
        let item = match item {
            Value::String(item) if choices(field).contains(item) => item.clone(),
            Value::String(item) => item.trim().to_owned(),
            Value::Number(number) => number.to_string(),
            Value::Bool(flag) => flag.to_string(),
            other => {
                return Err(LessonProblem::WrongType {
                    field: field.name.clone(),
                    label: field.label.clone(),
                    found: kind_of(other),
                });
            }
        };
        if item.is_empty() {
            continue;
        }
        if field.kind.is_choice() && !choices(field).contains(&item) {
            return Err(LessonProblem::NotAChoice {
                field: field.name.clone(),
                label: field.label.clone(),
                value: shortened(&item),
                choices: choices(field).to_vec(),
            });
        }
        read.push(Value::String(item));
    }
    Ok(read)
}

/// The person's answer to `T`'s form ([`requested_schema`]) for `entry`,
/// read as `T`: [`lesson_value`], then `T`'s own parser
/// ([`Learnable::from_lesson_entry`]). Every problem is named by field, in
/// words a teacher understands ([`LessonError`]).
///
/// ```
/// use learnables::{Learnable, mcp};
/// #[derive(Learnable, Debug)]
/// #[learnable(collection = "limits", entry = "broker", teaches = "How much a broker may clear",
///             how = "A fixed amount per broker, set by compliance", decided_by = "rules",
///             describes = "{entry} may clear up to {amount}")]
/// struct Limit {
///     /// Amount in euros
///     amount: u32,
/// }
/// let error = mcp::read_answer::<Limit>("b-7", Some(&serde_json::json!({"amount": "lots"})))
///     .unwrap_err();
/// assert!(error.to_string().starts_with("`amount` (Amount in euros): \"lots\" is not accepted"));
/// ```
pub fn read_answer<T: Learnable>(entry: &str, content: Option<&Value>) -> Result<T, LessonError> {
    let value = lesson_value(T::descriptor(), entry, content)?;
    T::from_lesson_entry(entry, &value)
}

/// A JSON value's type, in words.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a true/false value",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FieldKind;

    #[test]
    fn a_list_of_choices_is_a_multi_select_and_checks_are_the_schemas_keys() {
        let mut descriptor = LearnableDescriptor::new(
            "clearances",
            "broker",
            "Which desks a broker may clear at",
            "A table per broker",
            "rules",
        );
        let mut desks = LessonField::new("desks", "Desks", FieldKind::CHOICE)
            .with_choices(["general", "cold chain"]);
        desks.list = true;
        desks.min_length = Some(1);
        let mut amount = LessonField::new("amount", "Limit in euros", FieldKind::TEXT);
        amount.value_type = Some("integer".into());
        amount.minimum = Some(crate::FieldBound::Number(100.into()));
        amount.maximum = Some(crate::FieldBound::Number(1_000_000.into()));
        amount.default = Some("5000".into());
        let mut note = LessonField::new("note", "Note", FieldKind::TEXT);
        note.max_length = Some(200);
        let mut approvers = LessonField::new("approvers", "Approvers", FieldKind::TEXT);
        approvers.list = true;
        descriptor.lesson_fields = vec![desks, amount, note, approvers];
        let schema = serde_json::to_value(requested_schema(&descriptor)).unwrap();
        let properties = &schema["properties"];
        assert_eq!(properties["desks"]["type"], "array");
        assert_eq!(
            properties["desks"]["items"]["anyOf"][1]["const"],
            "cold chain"
        );
        assert_eq!(properties["desks"]["minItems"], 1);
        assert_eq!(properties["amount"]["type"], "integer");
        assert_eq!(properties["amount"]["minimum"], 100);
        assert_eq!(properties["amount"]["maximum"], 1_000_000);
        assert_eq!(properties["amount"]["default"], 5000);
        assert_eq!(
            properties["amount"]["description"],
            "At least 100, at most 1,000,000."
        );
        assert_eq!(properties["note"]["maxLength"], 200);
        assert_eq!(properties["approvers"]["type"], "string");
        assert_eq!(properties["approvers"]["description"], "One a line.");
        let value = lesson_value(
            &descriptor,
            "kim",
            Some(&json!({"desks": ["general", "cold chain"], "amount": 5000})),
        )
        .unwrap();
        assert_eq!(
            value.into_json(),
            json!({"desks": ["general", "cold chain"], "amount": "5000"})
        );
        let refused =
            lesson_value(&descriptor, "kim", Some(&json!({"desks": ["north"]}))).unwrap_err();
        assert!(matches!(
            refused.problems()[0],
            LessonProblem::NotAChoice { .. }
        ));
    }

    fn descriptor() -> LearnableDescriptor {
        let mut descriptor = LearnableDescriptor::new(
            "routing_rules",
            "routing rule",
            "Which desk handles a declaration",
            "A table keyed on the HS chapter",
            "rules",
        );
        let mut desk = LessonField::new("desk", "Desk", FieldKind::CHOICE)
            .with_choices(["general", "cold chain"])
            .with_help("Where it goes\x1b[31m");
        desk.choice_descriptions = Some(vec![None, Some("Goods that must stay cold.".into())]);
        descriptor.lesson_fields = vec![
            LessonField::new("chapter", "HS chapter", FieldKind::TEXT).with_entry_key(),
            desk,
            LessonField::new("since", "Since", FieldKind::new("date")).with_help("Optional."),
        ];
        descriptor
    }

    #[test]
    fn the_schema_is_flat_titled_and_asks_no_entry_key() {
        let schema = serde_json::to_value(requested_schema(&descriptor())).unwrap();
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "desk": {"type": "string", "title": "Desk",
                             "description": "Where it goes\\u{1b}[31m",
                             "oneOf": [{"const": "general", "title": "general"},
                                       {"const": "cold chain",
                                        "title": "cold chain — Goods that must stay cold."}]},
                    "since": {"type": "string", "title": "Since", "description": "Optional.",
                              "format": "date"}
                },
                "required": ["desk"]
            })
        );
    }

    #[test]
    fn a_prefill_replaces_the_default_unless_it_is_no_choice() {
        let mut descriptor = descriptor();
        descriptor.lesson_fields[1].default = Some("general".into());
        let prefill = BTreeMap::from([("desk".to_owned(), "cold chain".to_owned())]);
        let schema = serde_json::to_value(requested_schema_with(&descriptor, &prefill)).unwrap();
        assert_eq!(schema["properties"]["desk"]["default"], "cold chain");
        let wrong = BTreeMap::from([("desk".to_owned(), "attic".to_owned())]);
        let schema = serde_json::to_value(requested_schema_with(&descriptor, &wrong)).unwrap();
        assert_eq!(schema["properties"]["desk"]["default"], "general");
        // With a default, the field may be left out.
        assert!(schema.get("required").is_none());
    }

    #[test]
    fn an_answer_is_read_field_by_field() {
        let value = lesson_value(
            &descriptor(),
            "85",
            Some(&json!({"desk": " cold chain ", "since": ""})),
        )
        .unwrap();
        assert_eq!(
            value.into_json(),
            json!({"chapter": "85", "desk": "cold chain"})
        );
        let error = lesson_value(
            &descriptor(),
            "85",
            Some(&json!({"desk": "attic", "since": ["x"], "colour": "red"})),
        )
        .unwrap_err();
        let said = error.to_string();
        assert_eq!(error.problems().len(), 3, "{said}");
        assert!(said.contains("`desk` (Desk)"), "{said}");
        assert!(said.contains("`since` (Since)"), "{said}");
        assert!(said.contains("colour"), "{said}");
    }

    #[test]
    fn a_choice_is_taken_exactly_as_the_learnable_wrote_it() {
        let mut descriptor = descriptor();
        descriptor.lesson_fields[1].choices = Some(vec!["general".into(), " cold\r\n".into()]);
        let value = lesson_value(&descriptor, "85", Some(&json!({"desk": " cold\r\n"}))).unwrap();
        assert_eq!(value.into_json()["desk"], " cold\r\n");
        let value = lesson_value(&descriptor, "85", Some(&json!({"desk": " general "}))).unwrap();
        assert_eq!(value.into_json()["desk"], "general");
    }

    #[test]
    fn no_content_is_an_empty_answer_and_a_non_object_is_refused() {
        let value = lesson_value(&descriptor(), "85", None).unwrap();
        assert_eq!(value.into_json(), json!({"chapter": "85"}));
        assert!(lesson_value(&descriptor(), "85", Some(&json!("desk"))).is_err());
    }
}
