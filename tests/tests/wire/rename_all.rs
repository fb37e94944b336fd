//! `#[learnable(rename_all = "...")]`: the lesson fields' names on the
//! wire, serde's rules, `rename` winning, `alias` still read; and a store
//! written before the type took `rename_all` (snake_case names) read by the
//! type after it, on the embedded store, without an alias per field.

use learnables::{Knowledge, Learnable, Lesson, LessonValue};
use serde_json::{Value, json};

fn value(json: Value) -> LessonValue {
    LessonValue::try_from(json).unwrap()
}

/// The first build: the fields' own snake_case names.
mod before {
    use learnables::Learnable;

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_limits",
        entry = "shop",
        teaches = "Up to how much a shop refunds, and when the limit is reviewed",
        how = "A limit per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry} refunds up to {amount_eur} EUR"
    )]
    pub struct Limit {
        /// Limit in euros
        pub amount_eur: u32,
        /// Review after (days)
        pub review_after: Option<u16>,
        /// Approved by
        pub approved_by: String,
    }
}

/// The next build: camelCase names, one field renamed by hand, one with an
/// alias of its own.
mod after {
    use learnables::Learnable;

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_limits",
        entry = "shop",
        teaches = "Up to how much a shop refunds, and when the limit is reviewed",
        how = "A limit per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry} refunds up to {amount_eur} EUR",
        rename_all = "camelCase"
    )]
    pub struct Limit {
        /// Limit in euros
        pub amount_eur: u32,
        /// Review after (days)
        #[learnable(rename = "reviewDays")]
        pub review_after: Option<u16>,
        /// Approved by
        #[learnable(alias = "approver")]
        pub approved_by: String,
    }
}

#[test]
fn rename_all_names_the_fields_on_the_wire_and_rename_wins() {
    let names: Vec<&str> = after::Limit::descriptor()
        .lesson_fields
        .iter()
        .map(|field| field.name.as_str())
        .collect();
    assert_eq!(names, ["amountEur", "reviewDays", "approvedBy"]);
    let limit = after::Limit {
        amount_eur: 50,
        review_after: Some(30),
        approved_by: "kim".into(),
    };
    assert_eq!(
        limit.to_lesson_value().into_json(),
        json!({"amountEur": "50", "reviewDays": "30", "approvedBy": "kim"})
    );
    // The alias is read, in lessons too.
    let aliased = value(json!({"amountEur": "50", "approver": "kim"}));
    assert_eq!(
        after::Limit::from_lesson_value(&aliased)
            .unwrap()
            .approved_by,
        "kim"
    );
}

#[test]
fn a_lesson_under_the_names_before_rename_all_is_refused_naming_todays() {
    let old = value(json!({"amount_eur": "50", "approved_by": "kim"}));
    let error = after::Limit::from_lesson_value(&old).unwrap_err();
    let words = error.to_string();
    assert!(words.contains("amount_eur"), "{words}");
    assert!(words.contains("amountEur"), "{words}");
}

#[test]
fn a_store_written_before_rename_all_reads_after_it() {
    let dir = tempfile::tempdir().unwrap();
    {
        let knowledge = Knowledge::open(dir.path()).unwrap();
        knowledge.register::<before::Limit>().unwrap();
        for (shop, json) in [
            (
                "north",
                json!({"amount_eur": "50", "review_after": "30", "approved_by": "kim"}),
            ),
            ("south", json!({"amount_eur": "20", "approved_by": "lee"})),
        ] {
            let lesson = Lesson::new("refund_limits", shop, value(json), "alice@example.com");
            assert!(knowledge.teach(&lesson).unwrap().learned);
        }
    }
    let knowledge = Knowledge::open(dir.path()).unwrap();
    knowledge
        .register::<after::Limit>()
        .unwrap_or_else(|error| panic!("refused: {error}"));
    let pin = knowledge.pin();
    assert_eq!(
        pin.get::<after::Limit>("north").unwrap(),
        after::Limit {
            amount_eur: 50,
            review_after: Some(30),
            approved_by: "kim".into(),
        }
    );
    assert_eq!(
        pin.get::<after::Limit>("south").unwrap(),
        after::Limit {
            amount_eur: 20,
            review_after: None,
            approved_by: "lee".into(),
        }
    );
    // New lessons use today's names, and read back as written.
    let lesson = Lesson::new(
        "refund_limits",
        "east",
        value(json!({"amountEur": "5", "approvedBy": "ana"})),
        "alice@example.com",
    );
    assert!(knowledge.teach(&lesson).unwrap().learned);
    assert_eq!(
        knowledge
            .pin()
            .get::<after::Limit>("east")
            .unwrap()
            .amount_eur,
        5
    );
}
