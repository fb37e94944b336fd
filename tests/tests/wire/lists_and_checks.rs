//! List fields and a field's checks (`range`, `length`, `pattern`): what
//! the descriptor says of them, how a lesson's value is read and refused,
//! and how a list is written out and phrased.

use learnables::{FieldBound, Learnable, LessonValue};
use learnables_examples::Desk;
use serde_json::{Value, json};

/// A broker's clearance, with lists and checks.
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
    /// Days open
    days: Option<Vec<u8>>,
    /// Desk lead
    lead: Option<Box<str>>,
    /// Deputies
    deputies: Option<Vec<std::sync::Arc<str>>>,
}

fn value(json: Value) -> LessonValue {
    LessonValue::try_from(json).expect("an object")
}

fn parse(json: Value) -> Result<Clearance, learnables::LessonError> {
    Clearance::from_lesson_value(&value(json))
}

fn refusal(json: Value) -> String {
    let error = parse(json).unwrap_err();
    assert_eq!(error.problems().len(), 1, "{error}");
    error.problems()[0].in_words()
}

#[test]
fn the_descriptor_says_what_a_list_and_each_check_are() {
    let fields = &Clearance::descriptor().lesson_fields;
    let desks = &fields[0];
    assert!(desks.list);
    assert_eq!(desks.kind.as_str(), "choice");
    assert_eq!(
        desks.choices.as_deref(),
        Some(
            &[
                "general".to_owned(),
                "dangerous-goods".into(),
                "cold chain".into()
            ][..]
        )
    );
    assert_eq!((desks.min_length, desks.max_length), (Some(1), Some(3)));
    let amount = &fields[1];
    assert!(!amount.list);
    assert_eq!(amount.value_type.as_deref(), Some("integer"));
    assert_eq!(amount.minimum, Some(FieldBound::Number(100.into())));
    assert_eq!(amount.maximum, Some(FieldBound::Number(1_000_000.into())));
    let approvers = &fields[2];
    assert!(approvers.list);
    assert_eq!(approvers.kind.as_str(), "text");
    assert_eq!(approvers.value_type, None);
    assert_eq!(fields[3].pattern.as_deref(), Some("^[A-Z]{2}$"));
    assert_eq!(fields[4].max_length, Some(200));
    // An integer type's own range, when no `range` narrows it.
    let days = &fields[5];
    assert!(days.list);
    assert_eq!(days.minimum, Some(FieldBound::Number(0.into())));
    assert_eq!(days.maximum, Some(FieldBound::Number(255.into())));
    let wire = serde_json::to_value(amount).unwrap();
    assert_eq!(wire["valueType"], "integer");
    assert_eq!(wire["minimum"], 100);
    assert_eq!(wire["maximum"], 1_000_000);
    assert_eq!(serde_json::to_value(desks).unwrap()["list"], true);
}

#[test]
fn a_list_reads_from_an_array_or_its_text_form() {
    let read = parse(json!({
        "desks": ["general", "cold chain"],
        "amount_eur": "5000",
        "approvers": "kim\n lee \n\n",
        "days": [1, "2"],
    }))
    .unwrap();
    assert_eq!(read.desks, [Desk::General, Desk::Perishables]);
    assert_eq!(read.approvers, ["kim", "lee"]);
    assert_eq!(read.days, Some(vec![1, 2]));
    assert_eq!(read.lead, None);
    let pointers = parse(json!({
        "desks": "general", "amount_eur": "500", "approvers": ["kim"],
        "lead": " lee ", "deputies": ["ann", "bo"],
    }))
    .unwrap();
    assert_eq!(pointers.lead.as_deref(), Some("lee"));
    assert_eq!(
        pointers.deputies,
        Some(vec![
            std::sync::Arc::from("ann"),
            std::sync::Arc::from("bo")
        ])
    );
    assert_eq!(read.amount_eur, 5000);
}

#[test]
fn checks_refuse_in_words_with_the_field_label() {
    let base = || json!({"desks": ["general"], "amount_eur": "5000", "approvers": ["kim"]});
    let with = |key: &str, v: Value| {
        let mut json = base();
        json[key] = v;
        json
    };
    assert_eq!(
        refusal(with("amount_eur", json!("2000000"))),
        "Limit in euros: at most 1,000,000"
    );
    assert_eq!(
        refusal(with("amount_eur", json!(99))),
        "Limit in euros: at least 100"
    );
    assert_eq!(
        refusal(with("desks", json!([]))),
        "Desks the broker may clear at: at least 1 item"
    );
    assert_eq!(
        refusal(with(
            "desks",
            json!(["general", "general", "general", "general"])
        )),
        "Desks the broker may clear at: at most 3 items"
    );
    assert_eq!(
        refusal(with("country", json!("NLD"))),
        "Country: \"NLD\" does not match the pattern ^[A-Z]{2}$"
    );
    assert_eq!(
        refusal(with("note", json!("x".repeat(201)))),
        "Note: at most 200 characters"
    );
    // An item the type refuses is refused as a single value would be.
    assert!(refusal(with("desks", json!(["north"]))).contains("is not one of the choices"));
    assert!(refusal(with("days", json!(["300"]))).contains("a whole number from 0 to 255"));
    assert!(parse(with("country", json!("NL"))).is_ok());
}

#[test]
fn a_list_is_written_as_an_array_and_phrased_in_words() {
    let read = parse(json!({
        "desks": ["general", "cold chain", "dangerous-goods"],
        "amount_eur": 5000,
        "approvers": ["kim"],
    }))
    .unwrap();
    assert_eq!(
        read.to_lesson_value().into_json(),
        json!({
            "desks": ["general", "cold chain", "dangerous-goods"],
            "amount_eur": "5000",
            "approvers": ["kim"],
        })
    );
    assert_eq!(
        read.describes("kim"),
        "kim clears up to 5000 euros at general, cold chain and dangerous-goods"
    );
    let again = Clearance::from_lesson_value(&read.to_lesson_value()).unwrap();
    assert_eq!(again, read);
}

#[test]
fn a_list_as_learned_is_shown_back_in_its_text_form_one_item_a_line() {
    let read = parse(json!({
        "desks": ["general", "cold chain"],
        "amount_eur": 5000,
        "approvers": ["kim", "noor"],
        "days": [1, 5],
    }))
    .unwrap();
    let shown = read.lesson_fields_as_learned();
    let default = |name: &str| {
        shown
            .iter()
            .find(|field| field.name == name)
            .and_then(|field| field.default.clone())
    };
    // The prefill a form starts on, and what a client that knows no lists
    // sends back: one item a line, never the array's JSON text.
    assert_eq!(default("desks").as_deref(), Some("general\ncold chain"));
    assert_eq!(default("approvers").as_deref(), Some("kim\nnoor"));
    assert_eq!(default("days").as_deref(), Some("1\n5"));
    let sent_back = parse(json!({
        "desks": default("desks"), "amount_eur": default("amount_eur"),
        "approvers": default("approvers"), "days": default("days"),
    }))
    .unwrap();
    assert_eq!(
        sent_back, read,
        "the shown-back text reads as the value learned"
    );
}

proptest::proptest! {
    /// A list the parser accepts reads the same from its text form (one
    /// item a line, what a client that knows no lists sends) as from an
    /// array, and back from the value it writes.
    #[test]
    fn a_list_round_trips_through_its_text_form(
        approvers in proptest::collection::vec("[a-z][a-z .-]{0,10}[a-z]", 1..5),
    ) {
        let from_text = parse(json!({
            "desks": ["general"], "amount_eur": "500", "approvers": approvers.join("\n"),
        }))
        .unwrap();
        let from_array = parse(json!({
            "desks": ["general"], "amount_eur": "500", "approvers": approvers,
        }))
        .unwrap();
        proptest::prop_assert_eq!(&from_text, &from_array);
        proptest::prop_assert_eq!(&from_text.approvers, &approvers);
        let again = Clearance::from_lesson_value(&from_text.to_lesson_value()).unwrap();
        proptest::prop_assert_eq!(again, from_text);
    }
}
