//! The one check of a lesson field's value against its descriptor's
//! [`LessonField`]: its list form, its value type, its bounds, its lengths,
//! its pattern and its choices. The derive's parser runs it on the fields
//! that carry checks; a check of another agent's learnable, which has only
//! the descriptor, runs it on every field.
//!
//! A pattern is the `regex` crate's (linear time, so a hostile pattern or
//! value cannot make a check take long), compiled with a size limit and
//! kept in a small cache: a descriptor's patterns are few and fixed.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use regex::Regex;
use serde_json::Value;

use crate::lesson_error::{LessonProblem, shortened};
use crate::wire::lesson_value::json_type_name;
use crate::wire::{FieldBound, LIST_SEPARATOR, LessonField};

/// Checks a value sent for `field` (present: `null` and a left-out field
/// are the caller's, who knows whether the field is optional) against
/// everything its descriptor says: for a list, a JSON array or its text
/// form (one item a line) with between `minLength` and `maxLength` items,
/// each item checked; for one value, its `valueType`, `minimum`, `maximum`,
/// `minLength`, `maxLength` (characters), `pattern` and `choices`. Text is
/// read with spaces around it trimmed, choices without regard to case or to
/// the separator between words. The first problem is the refusal.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{FieldBound, FieldKind, LessonField, field_check};
/// let mut limit = LessonField::new("amountEur", "Limit in euros", FieldKind::TEXT);
/// limit.value_type = Some("integer".into());
/// limit.minimum = Some(FieldBound::Number(100.into()));
/// limit.maximum = Some(FieldBound::Number(1_000_000.into()));
/// assert!(field_check::check(&limit, &serde_json::json!("5000")).is_ok());
/// let refused = field_check::check(&limit, &serde_json::json!(2_000_000)).unwrap_err();
/// assert_eq!(refused.in_words(), "Limit in euros: at most 1,000,000");
/// ```
pub fn check(field: &LessonField, value: &Value) -> Result<(), LessonProblem> {
    if !field.list {
        return check_one(field, value, true);
    }
    let items: Vec<Value> = match value {
        Value::Array(items) => items.clone(),
        Value::String(text) => list_items(text)
            .map(|item| Value::String(item.to_owned()))
            .collect(),
        other => return Err(wrong_type(field, other)),
    };
    check_count(field, items.len(), true)?;
    for item in &items {
        check_one(field, item, false)?;
    }
    Ok(())
}

/// What `field`'s checks ask, in words a person reads before answering
/// (as the refusals say them): "At least 100, at most 1,000,000." "At most
/// 200 characters." `None` for a field without checks.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{FieldBound, FieldKind, LessonField, field_check};
/// let mut limit = LessonField::new("amountEur", "Limit in euros", FieldKind::TEXT);
/// limit.minimum = Some(FieldBound::Number(100.into()));
/// limit.maximum = Some(FieldBound::Number(1_000_000.into()));
/// assert_eq!(field_check::in_words(&limit).as_deref(), Some("At least 100, at most 1,000,000."));
/// ```
pub fn in_words(field: &LessonField) -> Option<String> {
    let unit = |count: u64| match (count, field.list) {
        (1, true) => "1 item".to_owned(),
        (1, false) => "1 character".to_owned(),
        (count, true) => format!("{count} items"),
        (count, false) => format!("{count} characters"),
    };
    let mut parts = Vec::new();
    if let Some(least) = &field.minimum {
        parts.push(format!("at least {}", bound_text(least)));
    }
    if let Some(most) = &field.maximum {
        parts.push(format!("at most {}", bound_text(most)));
    }
    if let Some(least) = field.min_length {
        parts.push(format!("at least {}", unit(least)));
    }
    if let Some(most) = field.max_length {
        parts.push(format!("at most {}", unit(most)));
    }
    if let Some(pattern) = &field.pattern {
        parts.push(format!("matching the pattern {}", shortened(pattern)));
    }
    let words = parts.join(", ");
    let mut chars = words.chars();
    let first = chars.next()?;
    Some(format!("{}{}.", first.to_uppercase(), chars.as_str()))
}

/// The items of a list's text form: one a line, each trimmed, blank lines
/// left out.
///
/// ```
/// # extern crate learnables_core as learnables;
/// let items: Vec<&str> = learnables::field_check::list_items(" general\n\ncold chain \n").collect();
/// assert_eq!(items, ["general", "cold chain"]);
/// ```
pub fn list_items(text: &str) -> impl Iterator<Item = &str> {
    text.split(LIST_SEPARATOR)
        .map(str::trim)
        .filter(|item| !item.is_empty())
}

/// A count (a list's items, or a text's characters when `items` is false)
/// against `minLength` and `maxLength`.
fn check_count(field: &LessonField, count: usize, items: bool) -> Result<(), LessonProblem> {
    let count = count as u64;
    if let Some(least) = field.min_length
        && count < least
    {
        return Err(LessonProblem::TooShort {
            field: field.name.clone(),
            label: field.label.clone(),
            min_length: least,
            items,
        });
    }
    if let Some(most) = field.max_length
        && count > most
    {
        return Err(LessonProblem::TooLong {
            field: field.name.clone(),
            label: field.label.clone(),
            max_length: most,
            items,
        });
    }
    Ok(())
}

/// One value (a whole field's, or one item of a list when `lengths` is
/// false: a list's lengths count its items).
fn check_one(field: &LessonField, value: &Value, lengths: bool) -> Result<(), LessonProblem> {
    let owned;
    let text: &str = match value {
        Value::String(text) => text.trim(),
        Value::Number(number) => {
            owned = number.to_string();
            &owned
        }
        Value::Bool(flag) => {
            if *flag {
                "true"
            } else {
                "false"
            }
        }
        other => return Err(wrong_type(field, other)),
    };
    if let Some(choices) = &field.choices {
        return match choices.iter().any(|choice| same_choice(choice, text)) {
            true => Ok(()),
            false => Err(LessonProblem::NotAChoice {
                field: field.name.clone(),
                label: field.label.clone(),
                value: shortened(text),
                choices: choices.clone(),
            }),
        };
    }
    let number = match field.value_type.as_deref() {
        Some("integer") => match text.parse::<i128>() {
            Ok(whole) => Some(Number::Whole(whole)),
            Err(_) => return Err(invalid(field, text, "it must be a whole number")),
        },
        Some("number") => match text.parse::<f64>() {
            Ok(real) if real.is_finite() => Some(Number::Real(real)),
            _ => {
                return Err(invalid(
                    field,
                    text,
                    "it must be a number, such as 12 or 12.5",
                ));
            }
        },
        Some("boolean") => match text {
            "true" | "false" | "yes" | "no" => None,
            _ => return Err(invalid(field, text, "it must be yes or no")),
        },
        _ => None,
    };
    if let Some(least) = &field.minimum
        && compare(text, number, least) == Some(Ordering::Less)
    {
        return Err(LessonProblem::BelowMinimum {
            field: field.name.clone(),
            label: field.label.clone(),
            value: shortened(text),
            minimum: bound_text(least),
        });
    }
    if let Some(most) = &field.maximum
        && compare(text, number, most) == Some(Ordering::Greater)
    {
        return Err(LessonProblem::AboveMaximum {
            field: field.name.clone(),
            label: field.label.clone(),
            value: shortened(text),
            maximum: bound_text(most),
        });
    }
    if lengths {
        check_count(field, text.chars().count(), false)?;
    }
    if let Some(pattern) = &field.pattern {
        let matches = match compiled(pattern) {
            Some(regex) => regex.is_match(text),
            // Fails closed: a pattern that does not compile accepts nothing.
            None => false,
        };
        if !matches {
            return Err(LessonProblem::NoMatch {
                field: field.name.clone(),
                label: field.label.clone(),
                value: shortened(text),
                pattern: shortened(pattern),
            });
        }
    }
    Ok(())
}

/// Whether `text` names `choice`: without regard to case, or to whether
/// words are separated by a space, a hyphen or an underscore.
pub(crate) fn same_choice(choice: &str, text: &str) -> bool {
    fn folded(text: &str) -> impl Iterator<Item = char> + '_ {
        text.chars().flat_map(|c| {
            let c = if c == '-' || c == '_' { ' ' } else { c };
            c.to_lowercase()
        })
    }
    choice == text || folded(choice).eq(folded(text))
}

#[derive(Clone, Copy)]
enum Number {
    Whole(i128),
    Real(f64),
}

/// `text` (or its number, when the field has a value type) against `bound`;
/// `None` when they do not compare (a value that is no number against a
/// number's bound is refused by its type, not here).
fn compare(text: &str, number: Option<Number>, bound: &FieldBound) -> Option<Ordering> {
    match bound {
        FieldBound::Text(bound) => Some(text.cmp(bound.as_str())),
        FieldBound::Number(bound) => {
            let number = match number {
                Some(number) => number,
                None => match text.parse::<i128>() {
                    Ok(whole) => Number::Whole(whole),
                    Err(_) => Number::Real(text.parse::<f64>().ok()?),
                },
            };
            let whole_bound = bound
                .as_i64()
                .map(i128::from)
                .or_else(|| bound.as_u64().map(i128::from));
            match (number, whole_bound) {
                (Number::Whole(value), Some(bound)) => Some(value.cmp(&bound)),
                (Number::Whole(value), None) => (value as f64).partial_cmp(&bound.as_f64()?),
                (Number::Real(value), _) => value.partial_cmp(&bound.as_f64()?),
            }
        }
    }
}

/// A bound as a person reads it: a whole number with its digits grouped
/// by three ("1,000,000"), any other as written.
pub(crate) fn bound_text(bound: &FieldBound) -> String {
    match bound {
        FieldBound::Text(text) => shortened(text),
        FieldBound::Number(number) => match number
            .as_i64()
            .map(i128::from)
            .or_else(|| number.as_u64().map(i128::from))
        {
            Some(whole) => grouped(whole),
            None => number.to_string(),
        },
    }
}

/// `number` with a comma between each group of three digits, past four
/// digits: "255", "65,535", "-9,223,372,036,854,775,808".
pub(crate) fn grouped(number: i128) -> String {
    let digits = number.unsigned_abs().to_string();
    if digits.len() <= 4 {
        return number.to_string();
    }
    let mut text = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if number < 0 {
        text.push('-');
    }
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// The most patterns kept compiled; past it, a pattern is compiled for
/// each check (a descriptor from outside cannot grow the cache unbounded).
const CACHED_PATTERNS: usize = 64;

/// `pattern` compiled to match a whole value; `None` when it does not
/// compile (within its size limit).
fn compiled(pattern: &str) -> Option<Arc<Regex>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Regex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Ok(cache) = cache.lock()
        && let Some(regex) = cache.get(pattern)
    {
        return Some(Arc::clone(regex));
    }
    let regex = Arc::new(whole_match(pattern).ok()?);
    if let Ok(mut cache) = cache.lock()
        && cache.len() < CACHED_PATTERNS
    {
        cache.insert(pattern.to_owned(), Arc::clone(&regex));
    }
    Some(regex)
}

/// `pattern` compiled so that it matches a whole value only: what
/// `pattern` means in a descriptor (the derive refuses at compile time one
/// that does not compile).
pub use learnables_rules::whole_match;

#[cold]
#[inline(never)]
fn wrong_type(field: &LessonField, found: &Value) -> LessonProblem {
    LessonProblem::WrongType {
        field: field.name.clone(),
        label: field.label.clone(),
        found: json_type_name(found),
    }
}

#[cold]
#[inline(never)]
fn invalid(field: &LessonField, text: &str, reason: &str) -> LessonProblem {
    LessonProblem::Invalid {
        field: field.name.clone(),
        label: field.label.clone(),
        value: shortened(text),
        reason: reason.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FieldKind;
    use serde_json::json;

    fn limit() -> LessonField {
        let mut field = LessonField::new("amountEur", "Limit in euros", FieldKind::TEXT);
        field.value_type = Some("integer".into());
        field.minimum = Some(FieldBound::Number(100.into()));
        field.maximum = Some(FieldBound::Number(1_000_000.into()));
        field
    }

    fn words(field: &LessonField, value: Value) -> String {
        check(field, &value).unwrap_err().in_words()
    }

    #[test]
    fn numbers_are_checked_against_their_bounds_in_words() {
        let field = limit();
        assert!(check(&field, &json!("100")).is_ok());
        assert!(check(&field, &json!(" 1000000 ")).is_ok());
        assert_eq!(words(&field, json!(99)), "Limit in euros: at least 100");
        assert_eq!(
            words(&field, json!("1000001")),
            "Limit in euros: at most 1,000,000"
        );
        assert!(matches!(
            check(&field, &json!("lots")),
            Err(LessonProblem::Invalid { .. })
        ));
        assert!(matches!(
            check(&field, &json!([1])),
            Err(LessonProblem::WrongType { .. })
        ));
    }

    #[test]
    fn fractions_and_dates_compare_as_their_kind() {
        let mut rate = LessonField::new("rate", "Rate", FieldKind::TEXT);
        rate.value_type = Some("number".into());
        rate.maximum = Some(FieldBound::Number(
            serde_json::Number::from_f64(0.5).unwrap(),
        ));
        assert!(check(&rate, &json!("0.5")).is_ok());
        assert_eq!(words(&rate, json!(0.75)), "Rate: at most 0.5");
        let mut from = LessonField::new("from", "From", FieldKind::from_static("date"));
        from.minimum = Some(FieldBound::Text("2026-01-01".into()));
        assert!(check(&from, &json!("2026-03-01")).is_ok());
        assert_eq!(
            words(&from, json!("2025-12-31")),
            "From: at least 2026-01-01"
        );
    }

    #[test]
    fn text_lengths_count_characters_and_patterns_match_the_whole_value() {
        let mut note = LessonField::new("note", "Note", FieldKind::TEXT);
        note.min_length = Some(2);
        note.max_length = Some(3);
        assert!(check(&note, &json!("éé")).is_ok());
        assert_eq!(words(&note, json!("x")), "Note: at least 2 characters");
        assert_eq!(words(&note, json!("abcd")), "Note: at most 3 characters");
        let mut country = LessonField::new("country", "Country", FieldKind::TEXT);
        country.pattern = Some("[A-Z]{2}".into());
        assert!(check(&country, &json!(" NL ")).is_ok());
        assert_eq!(
            words(&country, json!("NLD")),
            "Country: \"NLD\" does not match the pattern [A-Z]{2}"
        );
        country.pattern = Some("(".into());
        assert!(check(&country, &json!("NL")).is_err(), "fails closed");
    }

    #[test]
    fn lists_count_items_and_check_each() {
        let mut desks = LessonField::new("desks", "Desks", FieldKind::CHOICE);
        desks.list = true;
        desks.choices = Some(vec!["general".into(), "cold chain".into()]);
        desks.min_length = Some(1);
        desks.max_length = Some(2);
        assert!(check(&desks, &json!(["general", "Cold-Chain"])).is_ok());
        assert!(check(&desks, &json!("general\n cold chain \n\n")).is_ok());
        assert_eq!(words(&desks, json!([])), "Desks: at least 1 item");
        assert_eq!(
            words(&desks, json!(["general", "general", "general"])),
            "Desks: at most 2 items"
        );
        assert!(matches!(
            check(&desks, &json!(["north"])),
            Err(LessonProblem::NotAChoice { .. })
        ));
        assert!(matches!(
            check(&desks, &json!({"a": 1})),
            Err(LessonProblem::WrongType { .. })
        ));
    }

    #[test]
    fn grouped_digits() {
        assert_eq!(grouped(255), "255");
        assert_eq!(grouped(65_535), "65,535");
        assert_eq!(grouped(-1_000_000), "-1,000,000");
    }
}
