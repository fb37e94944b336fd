//! Small pieces of text shared by the renderers.
//!
//! Everything an agent or a file said reaches the screen through [`line()`]
//! or [`paragraph`] ([`learnables::untrusted`]): control characters,
//! escape sequences, bidirectional and invisible characters are shown as
//! escapes, never run.

use learnables::untrusted::Untrusted;
use learnables::{DeclarationParams, LessonField, Rendering, Violations};
use serde_json::Value;

use crate::style::Style;

/// The most of one piece of outside text shown.
pub const MAX_SHOWN_CHARS: usize = 4096;

/// Outside text for one line: escaped (`\n` included) and bounded.
pub fn line(text: &str) -> String {
    Untrusted::new(text).max_chars(MAX_SHOWN_CHARS).to_string()
}

/// Outside text for a paragraph: its lines kept, everything else escaped,
/// and bounded.
pub fn paragraph(text: &str) -> String {
    Untrusted::new(text)
        .multi_line()
        .max_chars(MAX_SHOWN_CHARS)
        .to_string()
}

/// Several pieces of outside text, each for one line, joined by `, `.
pub fn line_list<'a>(texts: impl IntoIterator<Item = &'a String>) -> String {
    texts
        .into_iter()
        .map(|text| line(text))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A lesson value as text: a string as it is, anything else as its JSON
/// (not escaped: it may be sent back; [`paragraph`] it to show it).
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// An entry in a teacher's words: `the routing rule "85"`, the card's noun
/// for the collection's entries and the entry's key, both escaped; never
/// the collection's key.
pub(crate) fn the_entry(noun: &str, entry: &str) -> String {
    format!("the {} \"{}\"", line(noun), line(entry))
}

/// The same, opening a heading: `Routing rule "85"`.
pub(crate) fn entry_heading(noun: &str, entry: &str) -> String {
    let noun = line(noun);
    let mut chars = noun.chars();
    let noun: String = chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    format!("{noun} \"{}\"", line(entry))
}

/// The card's noun for the entries of `collection` ("routing rule"), or
/// "entry" when the card does not declare it.
pub(crate) fn entry_noun<'a>(params: &'a DeclarationParams, collection: &str) -> &'a str {
    params
        .learnables
        .iter()
        .find(|descriptor| descriptor.collection == collection)
        .map_or("entry", |descriptor| descriptor.entry.as_str())
}

/// What is said of a field, naming it once by its label: `description` as
/// it is when it starts with `label` (the agent named the field), else
/// after it. Not escaped: both are outside text, shown through [`line()`].
pub(crate) fn labelled(label: &str, description: &str) -> String {
    if description.starts_with(label) {
        description.to_owned()
    } else {
        format!("{label}: {description}")
    }
}

/// How a field is entered: `text`, `choice: a, b, c`, or an unknown kind
/// with a note that it is entered as text.
pub fn kind_text(field: &LessonField) -> String {
    match field.kind.rendering() {
        Rendering::Choice => format!(
            "choice: {}",
            line_list(field.choices.as_deref().unwrap_or_default())
        ),
        Rendering::Text if field.kind.as_str() == "text" => "text".to_owned(),
        Rendering::Text => format!("{} (entered as text)", line(field.kind.as_str())),
    }
}

/// One line per violation, `path: message`, each indented by `indent`;
/// both escaped, since a message may quote the card.
pub fn violation_lines(violations: &Violations, indent: &str, style: Style) -> String {
    violations
        .iter()
        .map(|violation| {
            format!(
                "{indent}{}: {}\n",
                style.red(&line(&violation.path)),
                line(&violation.message)
            )
        })
        .collect()
}

/// `n thing` or `n things`.
pub fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// `n` as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 22nd.
pub fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Rows of `label  value`, the labels padded to one width.
pub fn table(rows: &[(String, String)], indent: &str, style: Style) -> String {
    let width = rows
        .iter()
        .map(|(label, _)| label.chars().count())
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for (label, value) in rows {
        let pad = " ".repeat(width - label.chars().count());
        let mut lines = value.lines();
        let first = lines.next().unwrap_or_default();
        text.push_str(&format!("{indent}{}{pad}  {first}\n", style.bold(label)));
        for line in lines {
            text.push_str(&format!("{indent}{}  {line}\n", " ".repeat(width)));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use learnables::FieldKind;
    use serde_json::json;

    use super::*;

    #[test]
    fn values_and_kinds() {
        assert_eq!(value_text(&json!("cold chain")), "cold chain");
        assert_eq!(value_text(&json!(85)), "85");
        let desk = LessonField::new("desk", "Desk", FieldKind::CHOICE).with_choices(["a", "b"]);
        assert_eq!(kind_text(&desk), "choice: a, b");
        let date = LessonField::new("when", "When", FieldKind::new("date"));
        assert_eq!(kind_text(&date), "date (entered as text)");
    }

    #[test]
    fn outside_text_is_escaped_on_one_line_or_in_a_paragraph() {
        assert_eq!(line("a\x1b[2Jb\nc"), r"a\u{1b}[2Jb\nc");
        assert_eq!(paragraph("a\x1b[2Jb\nc\rd"), "a\\u{1b}[2Jb\nc\\rd");
        let hostile = "\u{202e}x".repeat(MAX_SHOWN_CHARS);
        assert!(line(&hostile).chars().count() < MAX_SHOWN_CHARS + 40);
        let desk = LessonField::new("desk", "Desk", FieldKind::CHOICE)
            .with_choices(["a\x07", "b\u{9b}31m"]);
        assert_eq!(kind_text(&desk), r"choice: a\u{7}, b\u{9b}31m");
    }

    #[test]
    fn entries_are_named_by_their_noun() {
        assert_eq!(the_entry("routing rule", "85"), "the routing rule \"85\"");
        assert_eq!(entry_heading("routing rule", "85"), "Routing rule \"85\"");
        assert_eq!(entry_heading("élan", "x\x1b"), "Élan \"x\\u{1b}\"");
        assert_eq!(entry_heading("", "x"), " \"x\"");
    }

    #[test]
    fn a_description_names_its_field_once() {
        assert_eq!(
            labelled("Limit in euros", "Limit in euros: \"x\" is not accepted"),
            "Limit in euros: \"x\" is not accepted"
        );
        assert_eq!(
            labelled("Limit in euros", "Limit in euros is needed"),
            "Limit in euros is needed"
        );
        assert_eq!(
            labelled("Limit", "must be a number"),
            "Limit: must be a number"
        );
    }

    #[test]
    fn tables_align_their_values() {
        let rows = [
            ("A".to_owned(), "one".to_owned()),
            ("Longer".to_owned(), "two\nlines".to_owned()),
        ];
        assert_eq!(
            table(&rows, "  ", Style::plain()),
            "  A       one\n  Longer  two\n          lines\n"
        );
        assert_eq!(count(1, "violation"), "1 violation");
        assert_eq!(count(2, "violation"), "2 violations");
    }

    #[test]
    fn a_line_is_escaped() {
        assert_eq!(crate::render::line("a\x1b[2J\nb"), r"a\u{1b}[2J\nb");
    }

    #[test]
    fn a_paragraph_keeps_its_lines() {
        assert_eq!(crate::render::paragraph("a\r\nb"), "a\\r\nb");
    }

    #[test]
    fn line_lists_join_escaped_texts() {
        let choices = ["a".to_owned(), "b\x07".to_owned()];
        assert_eq!(crate::render::line_list(&choices), r"a, b\u{7}");
    }

    #[test]
    fn ordinals_in_english() {
        use crate::render::ordinal;
        let shown: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 102, 111].map(ordinal).into();
        assert_eq!(
            shown,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "102nd", "111th"
            ]
        );
    }
}
