//! One rule for what a person types, whichever client sends it (the page,
//! the command and MCP all go through the parser): text and choices
//! trimmed alike; choices matched without regard to case or to the
//! separator between words; an empty required text refused in the words
//! of a missing one; `null` absent; numbers and booleans in JSON read
//! wherever their text is.

use learnables::{Learnable, LessonProblem, LessonValue};
use learnables_examples::Desk;
use serde_json::{Value, json};

/// A note on a desk.
#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "desk_notes",
    entry = "note",
    teaches = "What brokers are told at a desk",
    how = "A note per desk, written by the desk's lead",
    decided_by = "human",
    describes = "{entry} at {desk}: {text}"
)]
struct DeskNote {
    /// Desk
    desk: Desk,
    /// Note
    text: String,
    /// Days kept
    days: Option<u16>,
}

fn parse(json: Value) -> Result<DeskNote, learnables::LessonError> {
    DeskNote::from_lesson_value(&LessonValue::try_from(json).expect("an object"))
}

#[test]
fn text_and_choices_are_trimmed_alike() {
    let note =
        parse(json!({"desk": " general ", "text": "  Call first  ", "days": " 5 "})).unwrap();
    assert_eq!(note.desk, Desk::General);
    assert_eq!(note.text, "Call first");
    assert_eq!(note.days, Some(5));
}

#[test]
fn choices_ignore_case_and_word_separators() {
    for typed in ["General", "GENERAL"] {
        assert_eq!(
            parse(json!({"desk": typed, "text": "x"})).unwrap().desk,
            Desk::General
        );
    }
    for typed in ["Cold Chain", "cold-chain", "COLD_CHAIN", " cold chain "] {
        assert_eq!(
            parse(json!({"desk": typed, "text": "x"})).unwrap().desk,
            Desk::Perishables,
            "{typed:?}"
        );
    }
    for typed in ["Dangerous Goods", "dangerous_goods"] {
        assert_eq!(
            parse(json!({"desk": typed, "text": "x"})).unwrap().desk,
            Desk::DangerousGoods
        );
    }
    assert!(matches!(
        parse(json!({"desk": "cold", "text": "x"}))
            .unwrap_err()
            .problems()[0],
        LessonProblem::NotAChoice { .. }
    ));
}

#[test]
fn an_empty_or_null_required_text_is_missing_in_the_same_words() {
    let missing = parse(json!({"desk": "general"})).unwrap_err();
    for sent in [json!(""), json!("   "), Value::Null] {
        let error = parse(json!({"desk": "general", "text": sent})).unwrap_err();
        assert_eq!(error, missing, "{sent}");
    }
    assert_eq!(missing.problems()[0].in_words(), "Note is needed");
}

#[test]
fn null_is_absent_for_an_optional_field() {
    assert_eq!(
        parse(json!({"desk": "general", "text": "x", "days": null}))
            .unwrap()
            .days,
        None
    );
}

#[test]
fn numbers_and_booleans_in_json_read_as_their_text() {
    let note = parse(json!({"desk": "general", "text": 12, "days": 7})).unwrap();
    assert_eq!((note.text.as_str(), note.days), ("12", Some(7)));
    assert_eq!(
        parse(json!({"desk": "general", "text": true}))
            .unwrap()
            .text,
        "true"
    );
}
