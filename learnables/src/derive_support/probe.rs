//! Deciding, from a field's type alone, its kind, its choices and how its
//! value parses.

use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

use serde_json::Value;

use super::number_text::NumberText;
use super::spec::FieldSpec;
use super::write::as_display;
use crate::Choice;
use crate::lesson_error::{LessonProblem, shortened};
use crate::wire::lesson_value::json_type_name;

/// Reads a field's value from a lesson: what the probe hands the parser.
pub type ParseFn<T> = fn(&Value, &FieldSpec) -> Result<T, LessonProblem>;

/// Everything the generated code needs of a lesson field's type, in one
/// constant per field: each derived struct names it once per field and
/// reads its parts, rather than declaring them.
pub struct FieldOps<T> {
    /// The kind the type gives the field (a `&str`, so that the constant
    /// has no destructor and its parts can be read in constants).
    pub kind: &'static str,
    /// The type's choices, for a `Choice`.
    pub choices: Option<&'static [&'static str]>,
    /// Reads a value sent for the field.
    pub parse: ParseFn<T>,
    /// The value as text: what its lesson value and phrasings show.
    pub display: fn(&T) -> &dyn Display,
}

/// A lesson field's type, seen by the field's marker in the generated code:
/// implemented, per field, for the types that derive `Choice` or implement
/// `FromStr` and `Display`.
#[diagnostic::on_unimplemented(
    message = "`{T}` cannot be a lesson field",
    label = "a lesson field's type must derive `Choice` or implement `FromStr` and `Display`",
    note = "derive `learnables::Choice` on a fieldless enum, implement `FromStr` (with an error \
            that implements `Display`) and `Display`, or mark the field `#[learnable(skip)]`"
)]
pub trait FieldOf<T> {
    /// What the field needs of `T`.
    const OPS: FieldOps<T>;
}

/// The bound a lesson field's type meets: `FromStr` (with an error that
/// is `Display`) and `Display`.
pub trait FieldType: FromStr<Err: Display> + Display {}

impl<T> FieldType for T where T: FromStr<Err: Display> + Display {}

/// Decides, from a field's type alone, how the field parses and which kind
/// it has: a [`Choice`] through the inherent const below, which takes
/// priority, anything `FromStr + Display` through [`TextField`].
pub struct Probe<T>(PhantomData<T>);

impl<T: Choice + Display> Probe<T> {
    /// A `Choice` is a `choice` field with its choices, read as one of them.
    pub const OPS: FieldOps<T> = FieldOps {
        kind: "choice",
        choices: Some(T::CHOICES),
        parse: parse_choice::<T>,
        display: as_display::<T>,
    };
}

/// The fallback of [`Probe`]: any `FromStr + Display` type is a `text` field.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a lesson field",
    label = "a lesson field's type must derive `Choice` or implement `FromStr` and `Display`",
    note = "derive `learnables::Choice` on a fieldless enum, implement `FromStr` (with an error \
            that implements `Display`) and `Display`, or mark the field `#[learnable(skip)]`"
)]
pub trait TextField {
    /// The field's type.
    type Field;
    /// A text field, parsed with `FromStr`, written with `Display`.
    const OPS: FieldOps<Self::Field>;
}

impl<T> TextField for Probe<T>
where
    T: FromStr + Display,
    T::Err: Display,
{
    type Field = T;
    const OPS: FieldOps<T> = FieldOps {
        kind: "text",
        choices: None,
        parse: parse_text::<T>,
        display: as_display::<T>,
    };
}

/// The text of a JSON scalar: a string as is, a number or a boolean as JSON
/// writes it (what a form may send for a number field). Not generic, so
/// that each field type adds only its own small parser to a build; the
/// string case, what a form sends, is the fast path, and nothing here
/// allocates unless a value is refused.
#[inline]
fn scalar_text<'a>(
    value: &'a Value,
    digits: &'a mut NumberText,
    field: &FieldSpec,
) -> Result<&'a str, LessonProblem> {
    match value {
        Value::String(text) => Ok(text),
        Value::Number(number) => Ok(digits.write(number)),
        Value::Bool(flag) => Ok(if *flag { "true" } else { "false" }),
        other => Err(wrong_type(field, other)),
    }
}

pub(super) fn parse_text<T>(value: &Value, field: &FieldSpec) -> Result<T, LessonProblem>
where
    T: FromStr,
    T::Err: Display,
{
    let mut digits = NumberText::default();
    let text = scalar_text(value, &mut digits, field)?;
    match text.parse::<T>() {
        Ok(parsed) => Ok(parsed),
        Err(error) => Err(invalid(field, text, &error)),
    }
}

fn parse_choice<T: Choice>(value: &Value, field: &FieldSpec) -> Result<T, LessonProblem> {
    let mut digits = NumberText::default();
    let text = scalar_text(value, &mut digits, field)?;
    match T::from_choice(text) {
        Some(choice) => Ok(choice),
        None => Err(not_a_choice(field, text, T::CHOICES)),
    }
}

// The problems are built out of line: the labels and copies they own cost
// only when a value is refused.

#[cold]
#[inline(never)]
fn wrong_type(field: &FieldSpec, found: &Value) -> LessonProblem {
    LessonProblem::WrongType {
        field: field.name.to_owned(),
        label: field_label(field),
        found: json_type_name(found),
    }
}

#[cold]
#[inline(never)]
fn invalid(field: &FieldSpec, text: &str, reason: &dyn Display) -> LessonProblem {
    LessonProblem::Invalid {
        field: field.name.to_owned(),
        label: field_label(field),
        value: shortened(text),
        reason: reason.to_string(),
    }
}

#[cold]
#[inline(never)]
fn not_a_choice(field: &FieldSpec, text: &str, choices: &[&str]) -> LessonProblem {
    LessonProblem::NotAChoice {
        field: field.name.to_owned(),
        label: field_label(field),
        value: shortened(text),
        choices: choices.iter().map(|c| (*c).to_owned()).collect(),
    }
}

fn field_label(field: &FieldSpec) -> String {
    field.label()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_booleans_are_read_as_their_text() {
        static FIELD: FieldSpec = FieldSpec {
            name: "amount",
            label: Some("Amount"),
            help: None,
            doc: &[],
            kind: crate::FieldKind::TEXT,
            choices: None,
            default: None,
        };
        let read = |value: Value| parse_text::<String>(&value, &FIELD);
        assert_eq!(read(serde_json::json!(84)).unwrap(), "84");
        assert_eq!(read(serde_json::json!(-3)).unwrap(), "-3");
        assert_eq!(read(serde_json::json!(8.5)).unwrap(), "8.5");
        assert_eq!(read(serde_json::json!(true)).unwrap(), "true");
        assert!(matches!(
            read(serde_json::json!([1])),
            Err(LessonProblem::WrongType {
                found: "an array",
                ..
            })
        ));
        assert!(matches!(
            parse_text::<u8>(&serde_json::json!(300), &FIELD),
            Err(LessonProblem::Invalid { ref value, .. }) if value == "300"
        ));
    }
}
