//! Typed parsing of lesson values into a derived type: what is accepted, and
//! the error for every kind of bad answer.

use learnables::{Choice, Learnable, Lesson, LessonProblem, LessonValue};
use learnables_examples::{ClearanceLimit, Desk, RoutingRule};
use serde_json::{Value, json};

fn value(json: Value) -> LessonValue {
    LessonValue::try_from(json).expect("an object")
}

fn parse(json: Value) -> Result<RoutingRule, learnables::LessonError> {
    RoutingRule::from_lesson_value(&value(json))
}

#[test]
fn form_strings_parse_into_typed_fields() {
    let rule =
        parse(json!({"chapter": "84", "desk": "dangerous-goods", "note": "Batteries"})).unwrap();
    assert_eq!(
        rule,
        RoutingRule {
            chapter: learnables_examples::Chapter::try_from(84).unwrap(),
            desk: Desk::DangerousGoods,
            note: Some("Batteries".into())
        }
    );
}

#[test]
fn json_numbers_are_accepted_where_the_type_parses_them() {
    assert_eq!(
        parse(json!({"chapter": 85, "desk": "general"}))
            .unwrap()
            .chapter
            .number(),
        85
    );
}

#[test]
fn a_missing_field_with_a_default_takes_the_default() {
    assert_eq!(parse(json!({"chapter": "1"})).unwrap().desk, Desk::General);
}

#[test]
fn an_optional_field_may_be_absent_or_null() {
    assert_eq!(
        parse(json!({"chapter": "1", "desk": "general"}))
            .unwrap()
            .note,
        None
    );
    assert_eq!(
        parse(json!({"chapter": "1", "desk": "general", "note": null}))
            .unwrap()
            .note,
        None
    );
}

#[test]
fn a_missing_required_field_is_named() {
    let error = parse(json!({"desk": "general"})).unwrap_err();
    assert_eq!(error.field(), Some("chapter"));
    assert_eq!(
        error.to_string(),
        "`chapter` (HS chapter) is missing; it is required"
    );
}

#[test]
fn an_unknown_key_is_refused_with_a_suggestion() {
    let error = parse(json!({"chapter": "1", "desk": "general", "chaptr": "2"})).unwrap_err();
    assert_eq!(error.field(), Some("chaptr"));
    assert_eq!(
        error.to_string(),
        "`chaptr` is not a field of this lesson; the fields are: chapter, desk, note \
         (did you mean `chapter`?)"
    );
}

#[test]
fn a_wrong_json_type_says_what_was_expected() {
    // `null` is absent (a required field is then missing), not a wrong type.
    for (bad, found) in [(json!([84]), "an array"), (json!({"x": 1}), "an object")] {
        let error = parse(json!({"chapter": bad, "desk": "general"})).unwrap_err();
        assert_eq!(error.field(), Some("chapter"));
        assert_eq!(
            error.to_string(),
            format!("`chapter` (HS chapter) must be given as text, not as {found}")
        );
    }
}

#[test]
fn a_value_outside_the_choices_lists_them() {
    let error = parse(json!({"chapter": "1", "desk": "urgent"})).unwrap_err();
    assert_eq!(
        error.problems(),
        [LessonProblem::NotAChoice {
            field: "desk".into(),
            label: "Desk".into(),
            value: "urgent".into(),
            choices: Desk::CHOICES.iter().map(|c| c.to_string()).collect(),
        }]
    );
    assert_eq!(
        error.to_string(),
        "`desk` (Desk): \"urgent\" is not one of the choices: general, dangerous-goods, cold chain"
    );
}

#[test]
fn a_from_str_failure_carries_the_type_s_reason() {
    let error = parse(json!({"chapter": "300", "desk": "general"})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`chapter` (HS chapter): \"300\" is not accepted: there is no HS chapter 300: the \
         chapters are 1 to 97"
    );
}

#[test]
fn every_bad_field_is_reported_not_only_the_first() {
    let error =
        parse(json!({"chapter": "x", "desk": 7, "extra": true, "note": ["a"]})).unwrap_err();
    let fields: Vec<_> = error
        .problems()
        .iter()
        .map(|p| p.field().unwrap())
        .collect();
    let mut sorted = fields.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["chapter", "desk", "extra", "note"]);
    assert!(
        error
            .to_string()
            .starts_with("4 problems in the lesson: 1) ")
    );
}

#[test]
fn a_lesson_for_another_collection_is_refused() {
    let lesson = Lesson::new(
        "clearance_limits",
        "84",
        value(json!({"chapter": "84"})),
        "alice@example.com",
    );
    let error = lesson.parse::<RoutingRule>().unwrap_err();
    assert_eq!(error.field(), None);
    assert_eq!(
        error.to_string(),
        "this lesson is for the collection `clearance_limits`, but it was given to `routing_rules`"
    );
}

#[test]
fn to_lesson_value_round_trips_and_leaves_out_absent_options() {
    let rule = RoutingRule {
        chapter: learnables_examples::Chapter::try_from(85).unwrap(),
        desk: Desk::Perishables,
        note: None,
    };
    let lesson_value = rule.to_lesson_value();
    assert_eq!(
        lesson_value.clone().into_json(),
        json!({"chapter": "85", "desk": "cold chain"})
    );
    assert_eq!(RoutingRule::from_lesson_value(&lesson_value).unwrap(), rule);
}

#[test]
fn describes_renders_choices_as_the_choice_picked() {
    let rule = parse(json!({"chapter": "85", "desk": "cold chain"})).unwrap();
    assert_eq!(
        rule.describes("85"),
        "Chapter 85 declarations now go to the cold chain desk"
    );
}

#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "flags",
    entry = "flag",
    teaches = "Which declarations are urgent",
    how = "Declarations above a value threshold are urgent",
    decided_by = "rules",
    describes = "{{{entry}}}: urgent={urgent}, weight={weight}[, tag={tag}]"
)]
struct Flag {
    /// Urgent
    urgent: bool,
    /// Weight in kg
    weight: f64,
    /// Tag
    tag: Option<String>,
}

#[test]
fn booleans_and_floats_parse_from_json_scalars_and_text() {
    let flag = Flag::from_lesson_value(&value(json!({"urgent": true, "weight": 1.5}))).unwrap();
    assert_eq!(
        flag,
        Flag {
            urgent: true,
            weight: 1.5,
            tag: None
        }
    );
    let from_text =
        Flag::from_lesson_value(&value(json!({"urgent": "false", "weight": "2"}))).unwrap();
    assert!(!from_text.urgent);
    // A bool is a choice of "yes" and "no", and speaks so.
    assert_eq!(from_text.describes("f1"), "{f1}: urgent=no, weight=2");
    let answered =
        Flag::from_lesson_value(&value(json!({"urgent": "yes", "weight": "2"}))).unwrap();
    assert!(answered.urgent);
    assert_eq!(
        answered.to_lesson_value().into_json(),
        json!({"urgent": "yes", "weight": "2"})
    );
    let urgent = &Flag::descriptor().lesson_fields[0];
    assert_eq!(urgent.kind.as_str(), "choice");
    assert_eq!(
        urgent.choices.as_deref(),
        Some(&["yes".to_owned(), "no".to_owned()][..])
    );
}

#[test]
fn values_a_person_means() {
    // An empty text for an optional field is absent, whatever its type.
    let flag = Flag::from_lesson_value(&value(json!({"urgent": "no", "weight": "2", "tag": "  "})))
        .unwrap();
    assert_eq!(flag.tag, None);
    // Not a number for a float, nor an infinity.
    for weight in ["NaN", "inf", "-inf", "1e400"] {
        let error =
            Flag::from_lesson_value(&value(json!({"urgent": "no", "weight": weight}))).unwrap_err();
        assert_eq!(error.field(), Some("weight"), "{weight}");
        assert!(
            error.to_string().contains("not NaN or infinity"),
            "{weight}: {error}"
        );
    }
}

#[test]
fn numbers_too_long_for_the_stack_buffer_still_parse() {
    let flag = Flag::from_lesson_value(&value(json!({"urgent": true, "weight": 1e300}))).unwrap();
    assert_eq!(flag.weight, 1e300);
}

#[test]
fn hostile_values_give_errors_and_never_panic() {
    let long = "9".repeat(100_000);
    let nested = (0..100).fold(json!("x"), |inner, _| json!([inner]));
    let cases = [
        json!({"chapter": long}),
        json!({"chapter": nested}),
        json!({"chapter": "\u{0}", "desk": "\u{202e}lareneg"}),
        json!({"chapter": "-1", "desk": "GENERAL"}),
        json!({"chapter": "8\u{0664}", "desk": " general"}),
        json!({"": "", "\u{feff}chapter": "1"}),
        json!({"chapter": u64::MAX, "desk": i64::MIN}),
        json!({"chapter": -0.0, "desk": 1e-300}),
    ];
    for case in cases {
        let error = parse(case.clone()).expect_err("hostile input must be refused");
        let message = error.to_string();
        assert!(!error.problems().is_empty(), "{case}");
        assert!(message.len() < 2_000, "the message stays short: {message}");
    }
}

#[test]
fn a_lesson_value_must_be_an_object() {
    for (json, found) in [
        (json!([]), "an array"),
        (json!("x"), "a string"),
        (json!(1), "a number"),
        (json!(null), "null"),
    ] {
        let error = LessonValue::try_from(json).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("a lesson value must be a JSON object, not {found}")
        );
    }
    let from_wire: Result<Lesson, _> = serde_json::from_value(json!({
        "collection": "routing_rules", "entry": "1", "value": [1], "taughtBy": "a@example.com"
    }));
    assert!(
        from_wire
            .unwrap_err()
            .to_string()
            .contains("a lesson value must be a JSON object, not an array")
    );
}

#[test]
fn a_lesson_value_does_not_show_its_contents_in_debug_output() {
    let secret = value(json!({"note": "the secret"}));
    assert_eq!(format!("{secret:?}"), "LessonValue(1 keys)");
}

/// Tried as an attacker would: a lesson for entry 85 whose value says
/// chapter 12 must not change chapter 85's routing under chapter 12's name.
#[test]
fn a_lesson_whose_value_contradicts_its_entry_is_refused() {
    let knowledge = learnables::Knowledge::in_memory();
    knowledge.register::<RoutingRule>().unwrap();
    let value = LessonValue::try_from(json!({"chapter": "12", "desk": "dangerous-goods"})).unwrap();
    let error = knowledge
        .teach(&learnables::Lesson::new(
            "routing_rules",
            "85",
            value,
            "alice@example.com",
        ))
        .unwrap_err()
        .to_string();
    assert!(error.contains("`chapter` (HS chapter)"), "{error}");
    assert!(
        error.contains("the value says \"12\" but the lesson's entry is \"85\""),
        "{error}"
    );
    assert!(knowledge.pin().get::<RoutingRule>("85").is_none());
    assert!(knowledge.pin().get::<RoutingRule>("12").is_none());
}

#[test]
fn a_value_that_agrees_with_its_entry_is_learned_and_one_without_the_key_takes_the_entrys() {
    let knowledge = learnables::Knowledge::in_memory();
    knowledge.register::<RoutingRule>().unwrap();
    let lesson = |value: Value| {
        learnables::Lesson::new(
            "routing_rules",
            "85",
            LessonValue::try_from(value).unwrap(),
            "alice@example.com",
        )
    };
    let result = knowledge
        .teach(&lesson(json!({"chapter": "85", "desk": "cold chain"})))
        .unwrap();
    assert_eq!(
        result.describes,
        "Chapter 85 declarations now go to the cold chain desk"
    );
    assert_eq!(
        knowledge
            .pin()
            .get::<RoutingRule>("85")
            .unwrap()
            .chapter
            .number(),
        85
    );
    // Left out, the key is the entry's: the entry is typed once, and the
    // stored value holds it.
    let without_key = knowledge
        .teach(&lesson(json!({"desk": "general"})))
        .unwrap();
    assert!(without_key.learned);
    assert_eq!(
        without_key.describes,
        "Chapter 85 declarations now go to the general desk"
    );
    let stored = knowledge
        .pin()
        .entry_record("routing_rules", "85")
        .unwrap()
        .value
        .clone();
    assert_eq!(stored.into_json()["chapter"], json!("85"));
    // The same chapter written another way agrees with the entry.
    let padded = LessonValue::try_from(json!({"chapter": "07", "desk": "general"})).unwrap();
    assert!(RoutingRule::from_lesson_entry("7", &padded).is_ok());
}

#[test]
fn an_entry_that_is_no_chapter_is_refused() {
    for (entry, reason) in [
        ("77", "HS chapter 77 is reserved and unused"),
        ("0", "there is no HS chapter 0"),
        ("98", "there is no HS chapter 98"),
    ] {
        let value = LessonValue::try_from(json!({"chapter": "85", "desk": "general"})).unwrap();
        let error = RoutingRule::from_lesson_entry(entry, &value)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(&format!(
                "the lesson's entry \"{entry}\" is not a `chapter`"
            )),
            "{error}"
        );
        assert!(error.contains(reason), "{error}");
    }
}

#[test]
fn the_validate_hook_reports_like_a_field_error() {
    let value = LessonValue::try_from(json!({"amountEur": "250000"})).unwrap();
    let error = ClearanceLimit::from_lesson_value(&value).unwrap_err();
    assert_eq!(error.field(), Some("review_after"));
    assert_eq!(
        error.to_string(),
        "`review_after` (Review date): a limit above EUR 100000 needs a review date: give the \
         date compliance looks at it again"
    );
    let dated = LessonValue::try_from(json!({"amountEur": "250000", "review_after": "2027-01-31"}))
        .unwrap();
    assert!(ClearanceLimit::from_lesson_value(&dated).is_ok());
    let not_a_date =
        LessonValue::try_from(json!({"amountEur": "9000", "review_after": "not a date"})).unwrap();
    assert_eq!(
        ClearanceLimit::from_lesson_value(&not_a_date)
            .unwrap_err()
            .field(),
        Some("review_after")
    );
}

/// `from_owned_lesson_value` reads what `from_lesson_value` reads, and
/// refuses what it refuses with the same error: moving a text out of the
/// value changes nothing else.
#[test]
fn an_owned_value_reads_as_a_borrowed_one() {
    fn same<T: Learnable + PartialEq + std::fmt::Debug>(json: Value) {
        let value = value(json);
        let borrowed = T::from_lesson_value(&value).map_err(|error| error.to_string());
        let owned = T::from_owned_lesson_value(value).map_err(|error| error.to_string());
        assert_eq!(owned, borrowed);
    }
    for json in [
        json!({"chapter": 84, "desk": "dangerous-goods", "note": "Lithium batteries"}),
        json!({"chapter": "84", "note": " "}),
        json!({"chapter": "84", "note": null}),
        json!({"chapter": "84", "note": 12}),
        json!({"chapter": "84", "note": ["no"]}),
        json!({"chapter": "77", "desk": "nowhere", "extra": "x"}),
        json!({}),
    ] {
        same::<RoutingRule>(json);
    }
    for json in [
        json!({"urgent": true, "weight": 1.5, "tag": "heavy"}),
        json!({"urgent": "maybe", "weight": "NaN", "tag": ""}),
    ] {
        same::<Flag>(json);
    }
    // A type with `validate` (which quotes the value sent) too.
    for json in [
        json!({"amountEur": "250000"}),
        json!({"amountEur": "250000", "review_after": "2027-01-31"}),
    ] {
        same::<ClearanceLimit>(json);
    }
}

/// Stored before `desk` had its own field: "desk: general" in a note.
fn desk_from_note(
    mut old: serde_json::Map<String, serde_json::Value>,
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    let note = old
        .remove("note")
        .and_then(|note| note.as_str().map(str::to_owned));
    let desk = note
        .as_deref()
        .and_then(|note| note.strip_prefix("desk: "))
        .ok_or("the note names no desk")?;
    old.insert("desk".into(), json!(desk));
    Ok(old)
}

#[derive(learnables::Choice, Debug, Clone, Copy, PartialEq)]
enum Office {
    General,
    #[choice(alias = "perishables", alias = "cold")]
    ColdChain,
}

#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "offices",
    entry = "office rule",
    teaches = "Which office handles a chapter",
    how = "A table keyed on the HS chapter, kept by the desk leads",
    decided_by = "rules",
    describes = "Chapter {entry}: {office}",
    migrate = desk_from_note
)]
struct OfficeRule {
    /// Office
    #[learnable(alias = "desk", alias = "team")]
    office: Office,
    /// Limit in EUR
    limit: Option<u32>,
}

#[test]
fn aliases_read_in_lessons_and_stored_versions_and_removed_fields_only_in_stored_ones() {
    for (key, choice) in [
        ("office", "cold-chain"),
        ("desk", "perishables"),
        ("team", "cold"),
    ] {
        let sent = value(json!({ key: choice }));
        assert_eq!(
            OfficeRule::from_lesson_value(&sent).unwrap().office,
            Office::ColdChain,
            "{key}: {choice}"
        );
        assert_eq!(
            OfficeRule::from_stored_value(&sent).unwrap().office,
            Office::ColdChain
        );
    }
    // Written back under today's names.
    let rule = OfficeRule::from_lesson_value(&value(json!({"desk": "cold"}))).unwrap();
    assert_eq!(
        rule.to_lesson_value().into_json(),
        json!({"office": "cold-chain"})
    );

    // A key the type no longer has: a stored version still reads, a new
    // lesson is refused for it.
    let with_removed = value(json!({"office": "general", "approver": "ana"}));
    assert_eq!(
        OfficeRule::from_stored_value(&with_removed).unwrap().office,
        Office::General
    );
    let refused = OfficeRule::from_lesson_value(&with_removed).unwrap_err();
    assert_eq!(refused.field(), Some("approver"));

    // Under its name and an earlier one at once: refused, naming both.
    let twice = OfficeRule::from_lesson_value(&value(json!({"office": "general", "team": "cold"})))
        .unwrap_err();
    assert_eq!(twice.field(), Some("office"));
    assert!(twice.to_string().contains("given twice"), "{twice}");
}

#[test]
fn a_migration_reads_what_nothing_else_does_and_reports_what_it_cannot() {
    let older = value(json!({"note": "desk: general", "limit": "100"}));
    assert_eq!(
        OfficeRule::from_stored_value(&older).unwrap(),
        OfficeRule {
            office: Office::General,
            limit: Some(100)
        }
    );
    // Lessons are never migrated.
    assert!(OfficeRule::from_lesson_value(&older).is_err());
    // The migration's own refusal is the error.
    let error = OfficeRule::from_stored_value(&value(json!({"note": "?"}))).unwrap_err();
    assert!(
        error.to_string().contains("the note names no desk"),
        "{error}"
    );
    assert_eq!(error.field(), None);
    // What the migration gives must read too.
    let error =
        OfficeRule::from_stored_value(&value(json!({"note": "desk: the moon"}))).unwrap_err();
    assert_eq!(error.field(), Some("office"), "{error}");
}
