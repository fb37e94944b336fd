//! Writing a derived value out, into a lesson value and into a phrasing,
//! through `&dyn Display`: one non-generic function each for every derived
//! type; and the compile-time check of a choice field's default.

use std::fmt::{Display, Write as _};

use serde_json::{Map, Value};

use crate::wire::LessonValue;

/// A field's value as `&dyn Display`: the one piece of code each field type
/// adds for writing.
pub fn as_display<T: Display>(value: &T) -> &dyn Display {
    value
}

/// A field's value as the writers see it.
pub enum Shown<'a> {
    /// An absent optional field.
    Absent,
    /// One value.
    One(&'a dyn Display),
    /// A list field's items.
    List(Vec<&'a dyn Display>),
}

/// The lesson value of a derived value: each field's name and its text (a
/// list's, an array of texts), an absent optional field left out.
pub fn lesson_value(fields: &[(&'static str, Shown<'_>)]) -> LessonValue {
    let mut map = Map::with_capacity(fields.len());
    for (name, value) in fields {
        let value = match value {
            Shown::Absent => continue,
            Shown::One(value) => Value::String(value.to_string()),
            Shown::List(items) => Value::Array(
                items
                    .iter()
                    .map(|item| Value::String(item.to_string()))
                    .collect(),
            ),
        };
        map.insert((*name).to_owned(), value);
    }
    LessonValue::from(map)
}

/// A list's items in words: "general", "general and cold chain",
/// "general, cold chain and dangerous goods".
fn in_words(items: &[&dyn Display], out: &mut String) {
    let mut item_text = String::new();
    for (at, item) in items.iter().enumerate() {
        if at > 0 {
            out.push_str(if at + 1 == items.len() { " and " } else { ", " });
        }
        item_text.clear();
        // Writing to a String cannot fail.
        let _ = write!(item_text, "{item}");
        out.push_str(&crate::untrusted::escaped(&item_text));
    }
}

/// A piece of a `describes` template.
pub enum Piece<'a> {
    /// Literal text.
    Text(&'static str),
    /// The entry's key.
    Entry,
    /// A field's value (a list's items joined in words); nothing for an
    /// absent optional field.
    Value(Shown<'a>),
    /// A part written only when every field in it has a value
    /// (`[ (deputy: {deputy})]` in a template).
    Part(Vec<Piece<'a>>),
}

/// The phrasing of a `describes` template for `entry`. The entry and the
/// values come from a teacher and the sentence goes to people (the teacher,
/// a resumed task's history, logs): each is written as
/// [`Untrusted`](crate::untrusted::Untrusted) escapes it, so that no
/// control, bidi or invisible character reaches them raw.
pub fn phrase(pieces: &[Piece<'_>], entry: &str) -> String {
    let mut out = String::with_capacity(64);
    write_pieces(pieces, entry, &mut out);
    out
}

/// Whether every value in `pieces` is there (a list with at least one item).
fn complete(pieces: &[Piece<'_>]) -> bool {
    pieces.iter().all(|piece| match piece {
        Piece::Text(_) | Piece::Entry => true,
        Piece::Value(Shown::Absent) => false,
        Piece::Value(Shown::List(items)) => !items.is_empty(),
        Piece::Value(Shown::One(_)) => true,
        Piece::Part(_) => true,
    })
}

fn write_pieces(pieces: &[Piece<'_>], entry: &str, out: &mut String) {
    let mut value_text = String::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Entry => out.push_str(&crate::untrusted::escaped(entry)),
            // Writing to a String cannot fail.
            Piece::Value(Shown::One(value)) => {
                value_text.clear();
                let _ = write!(value_text, "{value}");
                out.push_str(&crate::untrusted::escaped(&value_text));
            }
            Piece::Value(Shown::Absent) => {}
            Piece::Value(Shown::List(items)) => in_words(items, out),
            Piece::Part(part) => {
                if complete(part) {
                    write_pieces(part, entry, out);
                }
            }
        }
    }
}

/// The choice a field's `default` reads as, the way a lesson's value
/// reads (one of `choices`, or an alias of one), at compile time: `None`
/// when it reads as none. A field without choices (a text field) takes its
/// default as written.
pub const fn choice_default(
    choices: Option<&'static [&'static str]>,
    aliases: &'static [(&'static str, &'static str)],
    default: &'static str,
) -> Option<&'static str> {
    let Some(choices) = choices else {
        return Some(default);
    };
    let mut index = 0;
    while index < choices.len() {
        if bytes_equal(choices[index].as_bytes(), default.as_bytes()) {
            return Some(choices[index]);
        }
        index += 1;
    }
    let mut index = 0;
    while index < aliases.len() {
        if bytes_equal(aliases[index].0.as_bytes(), default.as_bytes()) {
            return Some(aliases[index].1);
        }
        index += 1;
    }
    None
}

/// The `default` the descriptor shows: the choice a choice field's default
/// reads as (`yes` for a `bool`'s `true`), any other as written.
pub const fn shown_default(
    choices: Option<&'static [&'static str]>,
    aliases: &'static [(&'static str, &'static str)],
    default: &'static str,
) -> &'static str {
    match choice_default(choices, aliases, default) {
        Some(choice) => choice,
        None => default,
    }
}

/// Met by a field type `T` when its `default` reads as one of its choices
/// (`HOLDS`, computed by [`choice_default`] at compile time): a trait, so
/// that a default outside the list is an ordinary error at the `default`
/// attribute rather than a failed constant evaluation.
#[diagnostic::on_unimplemented(
    message = "this `default` is not one of the choices of `{Self}`",
    label = "not a choice of `{Self}`: write one of `{Self}::CHOICES`, as a lesson would send it",
    note = "a default is read as a lesson's value is: one of the type's choices or of its \
            aliases (`yes`, `no`, `true` or `false` for a `bool`); a derived enum's choice is a \
            variant's name in kebab-case, unless `rename_all` or the variant's `rename` says \
            otherwise"
)]
pub trait DefaultIsAChoice<const HOLDS: bool> {
    /// Named by the check.
    const HOLDS: () = ();
}

impl<T: ?Sized> DefaultIsAChoice<true> for T {}

const fn bytes_equal(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut index = 0;
    while index < a.len() {
        if a[index] != b[index] {
            return false;
        }
        index += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_reads_as_a_choice_or_an_alias_of_one() {
        const CHOICES: Option<&[&str]> = Some(&["general", "cold chain"]);
        assert_eq!(
            choice_default(CHOICES, &[], "cold chain"),
            Some("cold chain")
        );
        assert_eq!(choice_default(CHOICES, &[], "gen"), None);
        assert_eq!(
            choice_default(CHOICES, &[("main", "general")], "main"),
            Some("general")
        );
        assert_eq!(choice_default(None, &[], "anything"), Some("anything"));
        assert_eq!(
            shown_default(Some(&["yes", "no"]), &[("true", "yes")], "true"),
            "yes"
        );
        assert_eq!(shown_default(Some(&["yes", "no"]), &[], "maybe"), "maybe");
    }

    #[test]
    fn phrases_and_lesson_values_leave_absent_fields_out() {
        let pieces = [
            Piece::Text("Chapter "),
            Piece::Value(Shown::One(&85)),
            Piece::Text(" for "),
            Piece::Entry,
            Piece::Value(Shown::Absent),
        ];
        assert_eq!(phrase(&pieces, "85"), "Chapter 85 for 85");
        let hostile = [
            Piece::Text("Say "),
            Piece::Value(Shown::One(&"\u{202e}olleh\x1b[2J")),
            Piece::Text(" in "),
            Piece::Entry,
        ];
        assert_eq!(
            phrase(&hostile, "a\u{0}b"),
            r"Say \u{202e}olleh\u{1b}[2J in a\u{0}b"
        );
        let value = lesson_value(&[
            ("chapter", Shown::One(&85)),
            ("note", Shown::Absent),
            ("desks", Shown::List(vec![&"general", &"cold chain"])),
        ]);
        assert_eq!(
            value.into_json(),
            serde_json::json!({"chapter": "85", "desks": ["general", "cold chain"]})
        );
    }

    #[test]
    fn lists_are_joined_in_words_and_parts_need_their_values() {
        let desks = |items: Vec<&'static dyn Display>| {
            phrase(
                &[Piece::Text("Goes to "), Piece::Value(Shown::List(items))],
                "",
            )
        };
        assert_eq!(desks(vec![&"general"]), "Goes to general");
        assert_eq!(
            desks(vec![&"general", &"cold chain"]),
            "Goes to general and cold chain"
        );
        assert_eq!(
            desks(vec![&"general", &"cold chain", &"dangerous goods"]),
            "Goes to general, cold chain and dangerous goods"
        );
        let deputy = |value: Shown<'static>| {
            phrase(
                &[
                    Piece::Entry,
                    Piece::Text(" approves"),
                    Piece::Part(vec![
                        Piece::Text(" (deputy: "),
                        Piece::Value(value),
                        Piece::Text(")"),
                    ]),
                ],
                "kim",
            )
        };
        assert_eq!(deputy(Shown::One(&"lee")), "kim approves (deputy: lee)");
        assert_eq!(deputy(Shown::Absent), "kim approves");
    }
}
