//! The lesson schema against the learnable's parser, checked by the
//! `jsonschema` crate: every value the parser accepts (in its JSON form)
//! validates, and values it refuses do not.

extern crate learnables_core as learnables;

use learnables_core::{
    Choice, FieldBound, FieldKind, Learnable, LearnableDescriptor, LessonField, LessonValue,
    lesson_schema, strict_lesson_schema,
};
use proptest::prelude::*;
use serde_json::{Value, json};

#[derive(Learnable, Debug, Clone, PartialEq)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter; anything unmatched goes to the general desk",
    decided_by = "rules",
    describes = "Chapter {chapter} declarations now go to the {desk} desk"
)]
struct RoutingRule {
    /// HS chapter
    #[learnable(entry_key)]
    chapter: u8,
    /// Desk
    #[learnable(default = "general")]
    desk: Desk,
    /// Broker
    broker: String,
    /// Note for the broker
    note: Option<String>,
}

#[derive(Choice, Debug, Clone, Copy, PartialEq)]
enum Desk {
    /// Everything without a specialist desk.
    General,
    /// Hazardous materials.
    DangerousGoods,
    #[choice(rename = "cold chain")]
    Perishables,
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .expect("the lesson schema is a valid 2020-12 schema")
}

fn parses(value: &Value) -> bool {
    let value = LessonValue::try_from(value.clone()).unwrap();
    // The entry fills its key, as a lesson's entry does.
    RoutingRule::from_lesson_entry("85", &value).is_ok()
}

fn desk() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!("general")),
        Just(json!("dangerous-goods")),
        Just(json!("cold chain")),
        "[a-z -]{0,12}".prop_map(Value::from),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    (
        proptest::option::of(Just(85u8)),
        proptest::option::of(desk()),
        proptest::option::of("\\PC{0,20}"),
        proptest::option::of(prop_oneof![
            "\\PC{0,20}".prop_map(Value::from),
            Just(Value::Null)
        ]),
    )
        .prop_map(|(chapter, desk, broker, note)| {
            let mut value = serde_json::Map::new();
            if let Some(chapter) = chapter {
                value.insert("chapter".into(), chapter.into());
            }
            if let Some(desk) = desk {
                value.insert("desk".into(), desk);
            }
            if let Some(broker) = broker {
                value.insert("broker".into(), broker.into());
            }
            if let Some(note) = note {
                value.insert("note".into(), note);
            }
            Value::Object(value)
        })
}

proptest! {
    #[test]
    fn what_the_parser_accepts_validates_and_a_refused_choice_does_not(value in value()) {
        let schema = validator(&lesson_schema(RoutingRule::descriptor()));
        let accepted = parses(&value);
        // What the schema lets through, the parser takes.
        prop_assert!(!schema.is_valid(&value) || accepted, "valid but refused: {value}");
        // And, in the JSON form and the choices as listed, what the parser
        // takes validates (it also reads a choice's other spellings).
        let listed = value.get("desk").is_none_or(|desk| {
            ["general", "dangerous-goods", "cold chain"].iter().any(|choice| desk == choice)
        });
        if accepted && listed {
            prop_assert!(schema.is_valid(&value), "accepted but invalid: {value}");
        }
    }

    #[test]
    fn what_the_learnable_writes_validates(chapter in 1u8..=99, broker in "\\PC{1,20}",
                                           note in proptest::option::of("\\PC{1,20}"), at in 0usize..3) {
        let desk = [Desk::General, Desk::DangerousGoods, Desk::Perishables][at];
        let rule = RoutingRule { chapter, desk, broker, note };
        // The learnable writes a form's text ("85"); its JSON form has the
        // number as a number.
        let mut written = rule.to_lesson_value().into_json();
        written["chapter"] = json!(chapter);
        prop_assert!(validator(&lesson_schema(RoutingRule::descriptor())).is_valid(&written));
        let mut strict_value = written.clone();
        strict_value.as_object_mut().unwrap().remove("chapter");
        strict_value.as_object_mut().unwrap().entry("note").or_insert(Value::Null);
        prop_assert!(validator(&strict_lesson_schema(RoutingRule::descriptor())).is_valid(&strict_value));
    }
}

#[test]
fn a_choices_meanings_are_its_titles_and_the_entry_key_is_named() {
    let schema = lesson_schema(RoutingRule::descriptor());
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["x-entryKey"], "chapter");
    assert_eq!(
        schema["properties"]["desk"]["oneOf"],
        json!([
            {"const": "general", "title": "general — Everything without a specialist desk."},
            {"const": "dangerous-goods", "title": "dangerous-goods — Hazardous materials."},
            {"const": "cold chain", "title": "cold chain"},
        ])
    );
    assert_eq!(schema["properties"]["desk"]["default"], "general");
    assert_eq!(schema["required"], json!(["broker"]));
}

#[test]
fn the_strict_variant_requires_every_property_and_reads_null_as_left_out() {
    let schema = strict_lesson_schema(RoutingRule::descriptor());
    let strict = validator(&schema);
    assert_eq!(schema["required"], json!(["desk", "broker", "note"]));
    let given = json!({"desk": "general", "broker": "Kim", "note": null});
    assert!(strict.is_valid(&given));
    assert!(parses(&given));
    assert!(!strict.is_valid(&json!({"desk": "general", "broker": "Kim"})));
    assert!(!strict.is_valid(&json!({"desk": "general", "broker": "Kim", "note": null, "x": 1})));
    assert!(!strict.is_valid(&json!({"desk": "urgent", "broker": "Kim", "note": null})));
    let text = schema.to_string();
    for refused in ["oneOf", "\"default\"", "x-entryKey", "$schema", "format"] {
        assert!(!text.contains(refused), "{refused} in {text}");
    }
}

/// A descriptor with every field check of the contract, as another agent's
/// card might carry it.
fn checked_descriptor() -> LearnableDescriptor {
    let mut amount = LessonField::new("amount", "Limit in euros", FieldKind::TEXT);
    amount.value_type = Some("integer".into());
    amount.minimum = Some(FieldBound::Number(100.into()));
    amount.maximum = Some(FieldBound::Number(1_000_000.into()));
    let mut rate = LessonField::new("rate", "Rate", FieldKind::TEXT).with_help("Optional.");
    rate.value_type = Some("number".into());
    rate.maximum = Some(FieldBound::Number(
        serde_json::Number::from_f64(0.5).unwrap(),
    ));
    let mut urgent = LessonField::new("urgent", "Urgent", FieldKind::CHOICE)
        .with_choices(["yes", "no"])
        .with_default("false");
    urgent.value_type = Some("boolean".into());
    let mut country = LessonField::new("country", "Country", FieldKind::TEXT);
    country.pattern = Some("[A-Z]{2}".into());
    let mut note = LessonField::new("note", "Note", FieldKind::TEXT);
    note.min_length = Some(1);
    note.max_length = Some(5);
    let mut approvers = LessonField::new("approvers", "Approvers", FieldKind::TEXT);
    approvers.list = true;
    approvers.max_length = Some(2);
    approvers.pattern = Some("[a-z]+@example\\.com".into());
    let mut on = LessonField::new("on", "Review date", FieldKind::new("date"));
    on.minimum = Some(FieldBound::Text("2026-01-01".into()));
    let mut descriptor = LearnableDescriptor::new(
        "limits",
        "broker",
        "How much a broker may clear",
        "A fixed amount per broker",
        "rules",
    );
    descriptor.lesson_fields = vec![amount, rate, urgent, country, note, approvers, on];
    descriptor
}

#[test]
fn field_checks_are_schema_keywords() {
    let schema = lesson_schema(&checked_descriptor());
    let valid = validator(&schema);
    let good = json!({"amount": 5000, "rate": 0.25, "urgent": true, "country": "DE",
                      "note": "ok", "approvers": ["ann@example.com"], "on": "2026-03-01"});
    assert!(
        valid.is_valid(&good),
        "{:?}",
        valid
            .iter_errors(&good)
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    );
    let refused = [
        ("amount", json!(2_000_000)),
        ("amount", json!(99)),
        ("amount", json!(5000.5)),
        ("rate", json!(0.75)),
        ("urgent", json!("maybe")),
        ("country", json!("DEU")),
        ("country", json!("xDE")),
        ("note", json!("")),
        ("note", json!("too long")),
        (
            "approvers",
            json!(["a@example.com", "b@example.com", "c@example.com"]),
        ),
        ("approvers", json!(["Ann"])),
        ("on", json!("2026-02-30")),
    ];
    for (field, value) in refused {
        let mut bad = good.clone();
        bad[field] = value.clone();
        assert!(!valid.is_valid(&bad), "{field} = {value} validates");
    }
    assert_eq!(
        schema["properties"]["on"]["description"],
        "A date on or after 2026-01-01."
    );
    assert_eq!(schema["properties"]["urgent"]["default"], false);
    assert_eq!(
        schema["required"],
        json!(["amount", "country", "note", "approvers", "on"])
    );
}

/// A derived learnable with lists and every check of the derive.
#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "broker_clearances",
    entry = "broker",
    teaches = "Which desks a broker may clear at, and up to how much",
    how = "A table per broker, kept by the compliance team",
    decided_by = "rules",
    describes = "{entry} clears up to {amount_eur} euros at {desks}"
)]
struct Clearance {
    /// Desks the broker may clear at
    #[learnable(length(min = 1, max = 3))]
    desks: Vec<Desk>,
    /// Limit in euros
    #[learnable(range(min = 100, max = 1000000))]
    amount_eur: u32,
    /// Who approves
    approvers: Vec<String>,
    /// Country
    #[learnable(pattern = "^[A-Z]{2}$")]
    country: Option<String>,
    /// Note
    #[learnable(length(max = 200))]
    note: Option<String>,
}

#[test]
fn the_derives_checks_accept_and_refuse_as_the_schema_does() {
    let schema = validator(&lesson_schema(Clearance::descriptor()));
    let good = json!({"desks": ["general", "cold chain"], "amount_eur": 5000,
                      "approvers": ["ann@example.com"], "country": "DE", "note": "ok"});
    let parses = |value: &Value| {
        Clearance::from_lesson_value(&LessonValue::try_from(value.clone()).unwrap()).is_ok()
    };
    assert!(parses(&good));
    assert!(schema.is_valid(&good));
    let cases = [
        ("amount_eur", json!(1_000_000), true),
        ("amount_eur", json!(100), true),
        ("amount_eur", json!(2_000_000), false),
        ("amount_eur", json!(99), false),
        ("amount_eur", json!(-5), false),
        ("desks", json!(["general"]), true),
        ("desks", json!([]), false),
        (
            "desks",
            json!(["general", "general", "cold chain", "dangerous-goods"]),
            false,
        ),
        ("desks", json!(["urgent"]), false),
        ("approvers", json!([]), true),
        ("country", json!("DEU"), false),
        ("country", json!("de"), false),
        ("country", Value::Null, true),
        ("note", json!("x".repeat(200)), true),
        ("note", json!("x".repeat(201)), false),
    ];
    for (field, value, accepted) in cases {
        let mut changed = good.clone();
        changed[field] = value.clone();
        assert_eq!(
            parses(&changed),
            accepted,
            "the parser on {field} = {value}"
        );
        assert_eq!(
            schema.is_valid(&changed),
            accepted,
            "the schema on {field} = {value}"
        );
    }
}
