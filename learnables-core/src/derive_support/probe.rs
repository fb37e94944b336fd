//! Deciding, from a field's type alone, its kind, its choices and how its
//! value parses.

use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

use serde_json::Value;

use super::number_text::NumberText;
use super::spec::{FieldSpec, ParseFn};
use super::write::as_display;
use crate::choice::Choice;
use crate::lesson_error::{LessonProblem, shortened};
use crate::wire::lesson_value::json_type_name;

/// Reads a field's value taken out of a lesson value the parser owns: as
/// [`ParseFn`], and a `String` field keeps the text sent rather than a copy.
pub type TakeFn<T> = fn(Value, &FieldSpec) -> Result<T, LessonProblem>;

/// Everything the generated code needs of a lesson field's type, in one
/// constant per field: each derived struct names it once per field and
/// reads its parts, rather than declaring them.
pub struct FieldOps<T> {
    /// The kind the type gives the field (a `&str`, so that the constant
    /// has no destructor and its parts can be read in constants).
    pub kind: &'static str,
    /// The type's choices, for a `Choice`.
    pub choices: Option<&'static [&'static str]>,
    /// What each choice means, for a `Choice` ([`Choice::DESCRIPTIONS`]).
    pub descriptions: Option<&'static [Option<&'static str>]>,
    /// The other strings a `Choice` reads, with the choice each reads as
    /// ([`Choice::ALIASES`]); empty for other types.
    pub aliases: &'static [(&'static str, &'static str)],
    /// Reads a value sent for the field.
    pub parse: ParseFn<T>,
    /// Reads a value sent for the field, taken out of the lesson value.
    pub take: TakeFn<T>,
    /// The value as text: what its lesson value and phrasings show.
    pub display: fn(&T) -> &dyn Display,
    /// The descriptor's `valueType`: `integer` or `number` for the
    /// standard numbers, none for any other type.
    pub value_type: Option<&'static str>,
    /// The least value of a whole-number type (up to 64 bits: what a
    /// JSON number holds exactly).
    pub least: Option<i128>,
    /// The greatest value of a whole-number type (up to 64 bits).
    pub most: Option<i128>,
}

/// A lesson field's type, field `N` of the learnable `L` in the generated
/// code: implemented, per field, when the type derives `Choice` or
/// implements `FromStr` and `Display`. Named after the learnable and the
/// field's place, which are the derive's own (an impl of this crate's
/// trait for any type is then the derive's to write), and re-exported as
/// `learnables::LessonFieldOf`, so that the compiler's note on a type that
/// is neither names it so.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a lesson field: it does not derive `Choice`, nor implement \
               `FromStr` and `Display`",
    label = "derive `Choice` on `{Self}` if it is a fieldless enum, else implement `FromStr` and \
             `Display` for it",
    note = "a fieldless enum takes `#[derive(learnables::Choice)]` (its variants become the \
            field's choices); another type implements `FromStr` (with an error that implements \
            `Display`) and `Display`; a field that is no lesson field takes `#[learnable(skip)]`"
)]
pub trait FieldOf<L, const N: usize>: Sized {
    /// What the field needs of its type.
    const OPS: FieldOps<Self>;
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
        descriptions: Some(T::DESCRIPTIONS),
        aliases: T::ALIASES,
        parse: parse_choice::<T>,
        take: take_choice::<T>,
        display: choice_display::<T>,
        value_type: None,
        least: None,
        most: None,
    };
}

/// A choice as its choice string (for a derived `Choice`, its `Display`;
/// for `bool`, "yes" or "no").
fn choice_display<T: Choice>(value: &T) -> &dyn Display {
    let choice = value.as_choice();
    T::CHOICES
        .iter()
        .find(|listed| **listed == choice)
        .map_or(&"" as &dyn Display, |listed| listed as &dyn Display)
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
        descriptions: None,
        aliases: &[],
        parse: parse_text::<T>,
        take: take_text::<T>,
        display: as_display::<T>,
        value_type: None,
        least: None,
        most: None,
    };
}

impl Probe<String> {
    /// A `String` is a `text` field that keeps the text sent: taken out of
    /// an owned lesson value, moved, not copied (as serde's `from_value`
    /// moves it; the copy and its freeing were the gap to it).
    pub const OPS: FieldOps<String> = FieldOps {
        kind: "text",
        choices: None,
        descriptions: None,
        aliases: &[],
        parse: parse_string,
        take: take_string,
        display: as_display::<String>,
        value_type: None,
        least: None,
        most: None,
    };
}

/// A shared or boxed text (`Box<str>`, `Arc<str>`, `Rc<str>`): a `text`
/// field read as a `String` is. The derive names these types itself (they
/// have no `FromStr`).
macro_rules! text_pointers {
    ($($ty:ty),* $(,)?) => {$(
        impl Probe<$ty> {
            /// A text, held as the type holds it.
            pub const OPS: FieldOps<$ty> = FieldOps {
                kind: "text",
                choices: None,
                descriptions: None,
                aliases: &[],
                parse: |value, field| parse_string(value, field).map(<$ty>::from),
                take: |value, field| take_string(value, field).map(<$ty>::from),
                display: as_display::<$ty>,
                value_type: None,
                least: None,
                most: None,
            };
        }
    )*};
}

text_pointers!(Box<str>, std::sync::Arc<str>, std::rc::Rc<str>);

/// A text as a person means it: spaces around it trimmed, as a choice's
/// and a number's are (copied only when there are any).
fn take_string(value: Value, field: &FieldSpec) -> Result<String, LessonProblem> {
    match value {
        Value::String(text) if text.trim().len() == text.len() => Ok(text),
        Value::String(text) => Ok(text.trim().to_owned()),
        other => parse_string(&other, field),
    }
}

fn parse_string(value: &Value, field: &FieldSpec) -> Result<String, LessonProblem> {
    with_text(value, field, |text| Ok(text.trim().to_owned()))
}

fn take_text<T>(value: Value, field: &FieldSpec) -> Result<T, LessonProblem>
where
    T: FromStr,
    T::Err: Display,
{
    parse_text::<T>(&value, field)
}

/// A standard type whose values a person types as numbers or characters:
/// read from the text with surrounding spaces trimmed, and refused with
/// what it takes in words ("a whole number from 0 to 255"), not the
/// standard library's parse error ("invalid digit found in string").
pub trait StandardText: FromStr + Display {
    /// What the type takes, as the end of "it must be ...".
    fn takes() -> String;

    /// Whether a parsed value is one a person means (floats: finite).
    fn means_something(&self) -> bool {
        true
    }
}

use crate::field_check::grouped;

/// The standard whole-number types: `text` fields read as whole numbers in
/// their type's range.
macro_rules! whole_numbers {
    ($($ty:ty),* $(,)?) => {$(
        impl StandardText for $ty {
            fn takes() -> String {
                format!("a whole number from {} to {}", grouped(<$ty>::MIN as i128), grouped_max(<$ty>::MAX as u128))
            }
        }

        impl Probe<$ty> {
            /// A whole number is a `text` field, read as one in range.
            pub const OPS: FieldOps<$ty> = standard_ops::<$ty>(
                Some("integer"),
                whole_bound(<$ty>::MIN as i128, <$ty>::BITS),
                whole_bound(<$ty>::MAX as i128, <$ty>::BITS),
            );
        }
    )*};
}

/// A whole-number type's bound, for the descriptor: none past 64 bits
/// (no JSON number holds it exactly).
const fn whole_bound(bound: i128, bits: u32) -> Option<i128> {
    if bits > 64 { None } else { Some(bound) }
}

/// [`grouped`] for a maximum, which for `u128` does not fit in an `i128`.
fn grouped_max(max: u128) -> String {
    match i128::try_from(max) {
        Ok(max) => grouped(max),
        Err(_) => max.to_string(),
    }
}

whole_numbers!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

/// The standard floating-point types: `text` fields read as finite numbers.
macro_rules! fractional_numbers {
    ($($ty:ty),* $(,)?) => {$(
        impl StandardText for $ty {
            fn takes() -> String {
                "a number, such as 12 or 12.5 (not NaN or infinity)".to_owned()
            }

            fn means_something(&self) -> bool {
                self.is_finite()
            }
        }

        impl Probe<$ty> {
            /// A floating-point number is a `text` field, read as a finite number.
            pub const OPS: FieldOps<$ty> = standard_ops::<$ty>(Some("number"), None, None);
        }
    )*};
}

fractional_numbers!(f32, f64);

impl StandardText for char {
    fn takes() -> String {
        "a single character".to_owned()
    }
}

impl Probe<char> {
    /// A `char` is a `text` field of one character.
    pub const OPS: FieldOps<char> = standard_ops::<char>(None, None, None);
}

/// The field of a [`StandardText`] type.
const fn standard_ops<T: StandardText>(
    value_type: Option<&'static str>,
    least: Option<i128>,
    most: Option<i128>,
) -> FieldOps<T>
where
    T::Err: Display,
{
    FieldOps {
        kind: "text",
        choices: None,
        descriptions: None,
        aliases: &[],
        parse: parse_standard::<T>,
        take: take_standard::<T>,
        display: as_display::<T>,
        value_type,
        least,
        most,
    }
}

fn take_standard<T: StandardText>(value: Value, field: &FieldSpec) -> Result<T, LessonProblem>
where
    T::Err: Display,
{
    parse_standard::<T>(&value, field)
}

fn parse_standard<T: StandardText>(value: &Value, field: &FieldSpec) -> Result<T, LessonProblem> {
    with_text(value, field, |text| match text.trim().parse::<T>() {
        Ok(parsed) if parsed.means_something() => Ok(parsed),
        _ => Err(invalid(
            field,
            text,
            &format_args!("it must be {}", T::takes()),
        )),
    })
}

/// `read` of the text of a JSON scalar: a string as is, a number or a
/// boolean as JSON writes it (what a form may send for a number field).
/// The string case, what a form sends, is the fast path: the buffer a
/// number is written into is set up only for a number (for a string, its
/// setup was a sixth of a choice's parse). Nothing here allocates unless
/// a value is refused.
#[inline(always)]
fn with_text<T>(
    value: &Value,
    field: &FieldSpec,
    read: impl Fn(&str) -> Result<T, LessonProblem>,
) -> Result<T, LessonProblem> {
    match value {
        Value::String(text) => read(text),
        other => {
            let mut digits = NumberText::default();
            read(scalar_text(other, &mut digits, field)?)
        }
    }
}

/// The text of a JSON scalar other than a string. Not generic, so that
/// each field type adds only its own small parser to a build.
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
    with_text(value, field, |text| match text.parse::<T>() {
        Ok(parsed) => Ok(parsed),
        Err(error) => Err(invalid(field, text, &error)),
    })
}

fn take_choice<T: Choice>(value: Value, field: &FieldSpec) -> Result<T, LessonProblem> {
    parse_choice::<T>(&value, field)
}

/// A choice as a person types it: exactly, else with spaces around it
/// trimmed and without regard to case or to whether words are separated
/// by a space, a hyphen or an underscore (as `field_check` matches one),
/// against the choices and their aliases.
fn parse_choice<T: Choice>(value: &Value, field: &FieldSpec) -> Result<T, LessonProblem> {
    with_text(value, field, |text| match T::from_choice(text) {
        Some(choice) => Ok(choice),
        None => loose_choice::<T>(text).ok_or_else(|| not_a_choice(field, text, T::CHOICES)),
    })
}

#[cold]
#[inline(never)]
fn loose_choice<T: Choice>(text: &str) -> Option<T> {
    let text = text.trim();
    T::CHOICES
        .iter()
        .chain(T::ALIASES.iter().map(|(alias, _)| alias))
        .find(|choice| crate::field_check::same_choice(choice, text))
        .and_then(|choice| T::from_choice(choice))
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
        static FIELD: FieldSpec = FieldSpec::text("amount", "Amount");
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

    static DAYS: FieldSpec = FieldSpec::text("days", "Days");

    fn reason<T>(parse: ParseFn<T>, value: Value) -> String {
        match parse(&value, &DAYS) {
            Err(LessonProblem::Invalid { reason, .. }) => reason,
            Err(other) => panic!("{value}: not refused as invalid but as {other:?}"),
            Ok(_) => panic!("{value}: accepted"),
        }
    }

    #[test]
    fn standard_numbers_say_what_they_take_in_words() {
        assert_eq!(
            reason(Probe::<u8>::OPS.parse, serde_json::json!("-1")),
            "it must be a whole number from 0 to 255"
        );
        assert_eq!(
            reason(Probe::<u32>::OPS.parse, serde_json::json!("-1")),
            "it must be a whole number from 0 to 4,294,967,295"
        );
        assert_eq!(
            reason(Probe::<i64>::OPS.parse, serde_json::json!("1.5")),
            "it must be a whole number from -9,223,372,036,854,775,808 to 9,223,372,036,854,775,807"
        );
        assert_eq!(
            reason(Probe::<u128>::OPS.parse, serde_json::json!("x")),
            format!("it must be a whole number from 0 to {}", u128::MAX)
        );
        for refused in ["NaN", "inf", "-infinity", "1e999", "twelve"] {
            assert_eq!(
                reason(Probe::<f64>::OPS.parse, serde_json::json!(refused)),
                "it must be a number, such as 12 or 12.5 (not NaN or infinity)",
                "{refused}"
            );
        }
        assert_eq!(
            reason(Probe::<char>::OPS.parse, serde_json::json!("ab")),
            "it must be a single character"
        );
        // What a person types, spaces around it, is read.
        assert_eq!(
            (Probe::<u8>::OPS.parse)(&serde_json::json!(" 51 "), &DAYS).unwrap(),
            51
        );
        assert_eq!(
            (Probe::<f32>::OPS.parse)(&serde_json::json!(2.5), &DAYS).unwrap(),
            2.5
        );
        assert_eq!(
            (Probe::<char>::OPS.parse)(&serde_json::json!("é"), &DAYS).unwrap(),
            'é'
        );
    }

    #[test]
    fn a_bool_is_a_choice_of_yes_and_no() {
        let ops = Probe::<bool>::OPS;
        assert_eq!(ops.kind, "choice");
        assert_eq!(ops.choices, Some(&["yes", "no"][..]));
        for (sent, read) in [
            ("yes", true),
            ("no", false),
            ("true", true),
            ("false", false),
        ] {
            assert_eq!(
                (ops.parse)(&serde_json::json!(sent), &DAYS).unwrap(),
                read,
                "{sent}"
            );
        }
        assert!((ops.parse)(&serde_json::json!(true), &DAYS).unwrap());
        assert!(matches!(
            (ops.parse)(&serde_json::json!("maybe"), &DAYS),
            Err(LessonProblem::NotAChoice { .. })
        ));
        assert_eq!((ops.display)(&true).to_string(), "yes");
        assert_eq!((ops.display)(&false).to_string(), "no");
    }
}
