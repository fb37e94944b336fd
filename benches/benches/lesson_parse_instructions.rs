//! Typed parsing against serde's derive, counted instead of timed: the
//! instructions one parse of the same lesson value costs, as Valgrind's
//! cachegrind counts them (counts do not move with the machine).
//!
//! - owned: `RoutingRule::from_owned_lesson_value` on a value built from a
//!   copy of the input, against `serde_json::from_value` on a `Value` built
//!   from the same copy (each consumes its value);
//! - borrowing: `from_lesson_value(&value)` against
//!   `SerdeRule::deserialize(&value)`;
//! - each with the typed input (the chapter a number) and a form's (every
//!   value a string); for the typed input, ours writes the chapter's
//!   number as text for `Chapter`'s `FromStr` (a field's type is read from
//!   text), where serde's reads it as the `u8` it is, so that pair counts
//!   that round trip against serde;
//! - through an alias: `from_stored_value` of a value written under each
//!   field's earlier name, against the same under today's names.
//!
//! The bench runs itself under cachegrind twice per side (no parses, and
//! `PARSES`) and reports the difference per parse. Without `valgrind` on
//! the `PATH` it says so and measures nothing; in criterion's test mode
//! (`-- --test`, as CI runs it) it parses a few times on each side,
//! uncounted.
//!
//! `cargo bench -p learnables-benches --bench lesson_parse_instructions`

mod cachegrind;
mod serde_twins;

use std::hint::black_box;

use learnables::{Learnable, LessonValue};
use learnables_examples::{Chapter, Desk, RoutingRule};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use serde_twins::{SerdeFormRule, SerdeRule, form_input, typed_input};

const PARSES: u64 = 20_000;

/// `RoutingRule` after a redeploy that renamed each field, the old names
/// kept as aliases.
#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter; anything unmatched goes to the general desk",
    decided_by = "rules",
    describes = "Chapter {hs_chapter} declarations now go to the {office} desk"
)]
struct RenamedRule {
    /// HS chapter
    #[learnable(entry_key, alias = "chapter")]
    hs_chapter: Chapter,
    /// Desk
    #[learnable(default = "general", alias = "desk")]
    office: Desk,
    /// Note for the broker
    #[learnable(alias = "note")]
    remark: Option<String>,
}

/// The sides, each parsing `parses` times.
const SIDES: [&str; 10] = [
    "typed/ours_owned",
    "typed/serde_owned",
    "typed/ours",
    "typed/serde",
    "form/ours_owned",
    "form/serde_owned",
    "form/ours",
    "form/serde",
    "stored/direct",
    "stored/alias",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, side, parses] = args.as_slice()
        && flag == "--child"
    {
        parse(side, parses.parse().expect("a number of parses"));
        return;
    }
    if args.iter().any(|arg| arg == "--test") {
        for side in SIDES {
            parse(side, 10);
        }
        return;
    }
    let mut counted = Vec::new();
    for side in SIDES {
        let args = |parses: u64| vec!["--child".into(), side.into(), parses.to_string()];
        let Some(counts) = cachegrind::per_operation(args, PARSES) else {
            println!(
                "lesson_parse_instructions: valgrind did not run or printed no counts (is it on \
                 the PATH?); nothing measured"
            );
            return;
        };
        counted.push((side, counts.instructions));
    }
    for pair in counted.chunks(2) {
        let [(ours, ours_count), (theirs, their_count)] = pair else {
            continue;
        };
        println!(
            "{ours}: {ours_count:.0} instructions a parse; {theirs}: {their_count:.0}; ratio {:.2}",
            ours_count / their_count
        );
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// Parses `parses` times on `side`, after checking once that both sides
/// of its pair read the same input alike.
fn parse(side: &str, parses: u64) {
    let (group, which) = side.split_once('/').expect("group/side");
    let input = match group {
        "typed" => object(typed_input()),
        "form" | "stored" => object(form_input()),
        other => panic!("no group named {other:?}"),
    };
    let renamed = object(json!({
        "hs_chapter": input["chapter"], "office": input["desk"], "remark": input["note"]
    }));
    let lesson = LessonValue::from(input.clone());
    let value = Value::Object(input.clone());
    let ours = RoutingRule::from_lesson_value(&lesson).expect("ours parses");
    let typed = group == "typed";
    if typed {
        assert_eq!(
            SerdeRule::<Chapter>::deserialize(&value)
                .expect("serde parses")
                .note,
            ours.note
        );
    } else {
        assert_eq!(
            SerdeFormRule::<Chapter>::deserialize(&value)
                .expect("serde parses")
                .chapter,
            ours.chapter
        );
    }
    let stored_direct = LessonValue::from(renamed);
    assert_eq!(
        RenamedRule::from_stored_value(&stored_direct).unwrap(),
        RenamedRule::from_stored_value(&lesson).unwrap()
    );
    for _ in 0..parses {
        match (which, typed) {
            ("ours_owned", _) => {
                let owned = LessonValue::from(black_box(&input).clone());
                drop(black_box(RoutingRule::from_owned_lesson_value(owned)));
            }
            ("serde_owned", true) => {
                let owned = Value::Object(black_box(&input).clone());
                drop(black_box(serde_json::from_value::<SerdeRule<Chapter>>(
                    owned,
                )));
            }
            ("serde_owned", false) => {
                let owned = Value::Object(black_box(&input).clone());
                drop(black_box(serde_json::from_value::<SerdeFormRule<Chapter>>(
                    owned,
                )));
            }
            ("ours", _) => drop(black_box(RoutingRule::from_lesson_value(black_box(
                &lesson,
            )))),
            ("serde", true) => drop(black_box(SerdeRule::<Chapter>::deserialize(black_box(
                &value,
            )))),
            ("serde", false) => {
                drop(black_box(SerdeFormRule::<Chapter>::deserialize(black_box(
                    &value,
                ))));
            }
            ("direct", _) => {
                drop(black_box(RenamedRule::from_stored_value(black_box(
                    &stored_direct,
                ))));
            }
            ("alias", _) => drop(black_box(RenamedRule::from_stored_value(black_box(
                &lesson,
            )))),
            (other, _) => panic!("no side named {other:?}"),
        }
    }
}
