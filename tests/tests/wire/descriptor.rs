//! The descriptors `#[derive(Learnable)]` generates: exactly the spec's JSON.

use learnables::{Choice, FieldKind, Learnable, LearnableDescriptor, LessonValue};
use learnables_examples::{ClearanceLimit, RoutingRule};
use serde_json::json;

#[test]
fn routing_rule_compiles_to_the_exact_spec_json() {
    assert_eq!(
        serde_json::to_value(RoutingRule::descriptor()).unwrap(),
        json!({
            "collection": "routing_rules",
            "entry": "routing rule",
            "skills": ["route-declaration"],
            "teaches": "Which desk handles a declaration",
            "how": "A table keyed on the HS chapter; anything unmatched goes to the general desk",
            "decidedBy": "rules",
            "lessonFields": [
                {"name": "chapter", "label": "HS chapter", "kind": "text",
                 "help": "Two-digit chapter of the Harmonized System.", "entryKey": true},
                {"name": "desk", "label": "Desk", "kind": "choice",
                 "choices": ["general", "dangerous-goods", "cold chain"], "default": "general",
                 "choiceDescriptions": ["Everything without a specialist desk.",
                                        "Hazardous materials.", "Goods that must stay cold."]},
                {"name": "note", "label": "Note for the broker", "kind": "text", "help": "Optional."}
            ]
        })
    );
}

#[test]
fn the_descriptor_is_built_once() {
    assert!(std::ptr::eq(
        RoutingRule::descriptor(),
        RoutingRule::descriptor()
    ));
}

#[test]
fn rename_kind_and_describes_with_reach_the_descriptor_and_phrasing() {
    let descriptor = ClearanceLimit::descriptor();
    assert_eq!(descriptor.lesson_fields[0].name, "amountEur");
    assert_eq!(descriptor.lesson_fields[1].kind, FieldKind::new("date"));
    let limit = ClearanceLimit {
        amount_eur: 9000,
        review_after: Some("2027-01-31".parse().unwrap()),
    };
    assert_eq!(
        limit.describes("broker-3"),
        "broker-3 may now clear up to EUR 9000 alone, until a review on 2027-01-31"
    );
    let value =
        LessonValue::try_from(json!({"amountEur": "9000", "review_after": "2027-01-31"})).unwrap();
    assert_eq!(ClearanceLimit::from_lesson_value(&value).unwrap(), limit);
}

#[derive(Choice, Debug, Clone, Copy, PartialEq)]
#[choice(rename_all = "SCREAMING_SNAKE_CASE")]
enum Priority {
    Low,
    VeryHigh,
    #[choice(rename = "critical!")]
    Critical,
}

/// Not a lesson field's doc: the struct's own.
#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "tickets",
    entry = "ticket",
    teaches = "How urgent a ticket is",
    how = "A model reads the ticket and a human confirms",
    decided_by = "hybrid",
    describes = "{entry} is {priority}"
)]
struct Ticket {
    /**
     * Priority
     *
     * How soon someone must look.
     */
    priority: Priority,
    /// Ignored label
    ///
    /// Doc help.
    #[learnable(label = "Kind of ticket", help = "Explicit help.")]
    r#type: String,
    /// Owner
    ///
    /// First line of help,
    /// second line.
    ///
    /// Second paragraph.
    owner: Option<String>,
    #[learnable(skip)]
    cache: Vec<u8>,
}

#[test]
fn doc_comments_labels_help_raw_names_and_skip() {
    let fields = &Ticket::descriptor().lesson_fields;
    let names: Vec<_> = fields.iter().map(|field| field.name.as_str()).collect();
    assert_eq!(names, ["priority", "type", "owner"]);
    assert_eq!(fields[0].label, "Priority");
    assert_eq!(
        fields[0].help.as_deref(),
        Some("How soon someone must look.")
    );
    assert_eq!(
        fields[0].choices.as_deref(),
        Some(
            &[
                "LOW".to_owned(),
                "VERY_HIGH".to_owned(),
                "critical!".to_owned()
            ][..]
        )
    );
    assert_eq!(fields[1].label, "Kind of ticket");
    assert_eq!(fields[1].help.as_deref(), Some("Explicit help."));
    assert_eq!(
        fields[2].help.as_deref(),
        Some("First line of help,\nsecond line.\n\nSecond paragraph. Optional."),
        "an optional field's help says so"
    );
    let value = LessonValue::try_from(json!({"priority": "VERY_HIGH", "type": "bug"})).unwrap();
    let ticket = Ticket::from_lesson_value(&value).unwrap();
    assert_eq!(
        ticket,
        Ticket {
            priority: Priority::VeryHigh,
            r#type: "bug".into(),
            owner: None,
            cache: Vec::new()
        }
    );
    assert_eq!(ticket.describes("T-1"), "T-1 is VERY_HIGH");
}

#[test]
fn every_derived_descriptor_passes_runtime_validation() {
    for descriptor in [
        RoutingRule::descriptor(),
        ClearanceLimit::descriptor(),
        Ticket::descriptor(),
    ] {
        assert_eq!(descriptor.validate(), Ok(()), "{}", descriptor.collection);
    }
}

#[test]
fn a_descriptor_read_from_another_agent_is_validated_with_the_same_rules() {
    let received: LearnableDescriptor = serde_json::from_value(json!({
        "collection": "rates", "entry": "rate", "teaches": "Which rate applies",
        "how": "TODO: write this", "decidedBy": "model",
        "lessonFields": [
            {"name": "rate", "label": "", "kind": "choice"},
            {"name": "when", "label": "When", "kind": "timestamp"}
        ]
    }))
    .unwrap();
    let violations = received.validate().unwrap_err();
    let lines: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "how: `how` is a placeholder (`TODO`)",
            "lessonFields[0].label: the label is empty; it needs at least one character",
            "lessonFields[0].choices: a `choice` field must list its choices",
        ]
    );
    assert_eq!(
        received.lesson_fields[1].kind.rendering(),
        learnables::Rendering::Text
    );
}

/// A type the derive cannot parse a default of at compile time.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Percent(u8);

impl std::str::FromStr for Percent {
    type Err = String;
    fn from_str(text: &str) -> Result<Percent, String> {
        match text.strip_suffix('%').map(str::parse::<u8>) {
            Some(Ok(value)) if value <= 100 => Ok(Percent(value)),
            _ => Err(format!("{text:?} is not a percentage such as \"4%\"")),
        }
    }
}

impl std::fmt::Display for Percent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}%", self.0)
    }
}

macro_rules! rate_with_default {
    ($name:ident, $collection:literal, $default:literal) => {
        #[derive(Learnable, Debug)]
        #[learnable(collection = $collection, entry = "rate", teaches = "Which duty rate applies",
                                    how = "A table kept by the tariff team", decided_by = "rules",
                                    describes = "{entry}: {rate}")]
        struct $name {
            /// Rate
            #[learnable(default = $default)]
            rate: Percent,
        }
    };
}

rate_with_default!(GoodRate, "good_rates", "4%");
rate_with_default!(RateForDeclaration, "rates_a", "four percent");
rate_with_default!(RateForKnowledge, "rates_b", "four percent");
rate_with_default!(RateForValidation, "rates_c", "150%");

#[test]
fn a_parsable_default_of_another_type_is_accepted_at_first_use() {
    assert_eq!(
        GoodRate::descriptor().lesson_fields[0].default.as_deref(),
        Some("4%")
    );
}

#[test]
#[should_panic(
    expected = "#[derive(Learnable)] on `RateForDeclaration`: the default \"four percent\" of the field `rate` is not a value of its type"
)]
fn an_unparsable_default_of_another_type_is_refused_by_declaration_learnable() {
    let _ = learnables::Declaration::new().learnable::<RateForDeclaration>();
}

#[test]
#[should_panic(
    expected = "#[derive(Learnable)] on `RateForKnowledge`: the default \"four percent\" of the field `rate` is not a value of its type"
)]
fn an_unparsable_default_of_another_type_is_refused_by_knowledge_register() {
    let _ = learnables::Knowledge::in_memory().register::<RateForKnowledge>();
}

#[test]
#[should_panic(
    expected = "#[derive(Learnable)] on `RateForValidation`: the default \"150%\" of the field `rate` is not a value of its type"
)]
fn an_unparsable_default_of_another_type_is_refused_by_validation() {
    let _ = RateForValidation::descriptor().validate();
}
