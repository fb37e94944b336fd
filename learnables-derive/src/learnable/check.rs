//! The rules, checked on the attributes as read. Each rule of a declaration
//! is a predicate of `learnables-rules`, the one run-time validation calls;
//! a text field's `default` is parsed as a lesson's value for it is, with
//! the standard library's own `FromStr`, for the types the macro can see. Every error is on the token
//! at fault, with what to write instead.

use learnables_rules::{ChoicesProblem, is_blank};
use syn::{LitStr, Type};

use crate::meta::Texts;

use super::attrs::FieldAttrs;
use proc_macro2::Span;

/// An error at `value` when it is empty or blank: "{what} must not be
/// empty: {fix}".
pub fn not_blank(value: &LitStr, what: &str, fix: &str) -> darling::Result<()> {
    if is_blank(&value.value()) {
        Err(darling::Error::custom(format!("{what} must not be empty: {fix}")).with_span(value))
    } else {
        Ok(())
    }
}

/// The spec's placeholder rule on `how`.
pub fn how(how: &LitStr, teaches: &LitStr) -> darling::Result<()> {
    match learnables_rules::how_problem(&how.value(), &teaches.value()) {
        Some(problem) => {
            Err(darling::Error::custom(format!("{problem}: {}", problem.fix())).with_span(how))
        }
        None => Ok(()),
    }
}

/// The placeholder rule on `teaches` (blank is reported with the other keys).
pub fn teaches(teaches: &LitStr) -> darling::Result<()> {
    if is_blank(&teaches.value()) {
        return Ok(());
    }
    match learnables_rules::teaches_problem(&teaches.value()) {
        Some(problem) => Err(darling::Error::custom(format!(
            "{}: say what a person is deciding, such as \"Which desk handles a declaration\"",
            problem.to_string().replace("`how`", "`teaches`")
        ))
        .with_span(teaches)),
        None => Ok(()),
    }
}

/// `skills(...)`: at least one id, none blank.
pub fn skills(skills: &Texts) -> darling::Result<()> {
    let ids: Vec<String> = skills.items.iter().map(LitStr::value).collect();
    match learnables_rules::skills_problem(&ids) {
        None => Ok(()),
        Some(problem @ learnables_rules::SkillsProblem::Empty) => {
            Err(darling::Error::custom(problem).with_span(&skills.span))
        }
        Some(problem @ learnables_rules::SkillsProblem::Blank(index)) => {
            Err(darling::Error::custom(problem).with_span(&skills.items[index]))
        }
    }
}

/// The error of a text field's `default` that its type, one of the
/// standard types the macro knows, does not parse; `Ok` for other types
/// (checked at the first use of `descriptor()`).
pub fn default_parses(default: &LitStr, ty: &Type, field: &str) -> darling::Result<()> {
    let Some(Err((name, reason))) = standard_parse(ty, &default.value()) else {
        return Ok(());
    };
    Err(darling::Error::custom(format!(
        "the default {:?} of the field `{field}` does not parse as `{name}`: {reason}; write a \
         value `{name}` accepts, as a lesson would send it",
        default.value()
    ))
    .with_span(default))
}

/// Whether the macro parses defaults of `ty` itself (see [`default_parses`]).
pub fn is_standard(ty: &Type) -> bool {
    standard_parse(ty, "").is_some()
}

/// For a standard type (integers, floats, `char`, `NonZero*`, `String`),
/// `Ok` when `text` reads as a lesson's value for it reads (the numbers and
/// `char` with spaces around trimmed, the floats finite), else its name and
/// why not; `None` for any other type. (`bool` is a `Choice`, checked with
/// the other choices.)
fn standard_parse(ty: &Type, text: &str) -> Option<Result<(), (String, String)>> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segments: Vec<_> = path.path.segments.iter().collect();
    let (last, prefix) = segments.split_last()?;
    if !last.arguments.is_none()
        || !prefix.iter().all(|segment| {
            ["std", "core", "num", "string", "alloc"].contains(&&*segment.ident.to_string())
        })
    {
        return None;
    }
    let name = last.ident.to_string();
    let trimmed = text.trim();
    let finite = |parsed: Result<f64, String>| match parsed {
        Ok(number) if !number.is_finite() => Some("it is not a finite number".to_owned()),
        Ok(_) => None,
        Err(error) => Some(error),
    };
    macro_rules! parse_as {
        ($($ty:ident),*) => {
            match name.as_str() {
                $(stringify!($ty) => text.parse::<std::num::$ty>().err().map(|e| e.to_string()),)*
                _ => parse_as!(@trimmed u8, u16, u32, u64, u128, usize, i8, i16, i32, i64,
                               i128, isize, char),
            }
        };
        (@trimmed $($ty:ident),*) => {
            match name.as_str() {
                $(stringify!($ty) => trimmed.parse::<$ty>().err().map(|e| e.to_string()),)*
                "f32" => finite(trimmed.parse::<f32>().map(f64::from).map_err(|e| e.to_string())),
                "f64" => finite(trimmed.parse::<f64>().map_err(|e| e.to_string())),
                "String" => None,
                _ => return None,
            }
        };
    }
    let reason = parse_as!(
        NonZeroU8,
        NonZeroU16,
        NonZeroU32,
        NonZeroU64,
        NonZeroU128,
        NonZeroUsize,
        NonZeroI8,
        NonZeroI16,
        NonZeroI32,
        NonZeroI64,
        NonZeroI128,
        NonZeroIsize
    );
    Some(match reason {
        Some(reason) => Err((name, reason)),
        None => Ok(()),
    })
}

/// The message of a field whose explicit `kind` disagrees with whether its
/// type is a `Choice` (which only the compiler knows: the generated code
/// checks it), in the words of the run-time rule.
pub fn kind_message(kind: &str, ty: &str, field: &str) -> String {
    if kind == "choice" {
        let problem = learnables_rules::choices_problem::<&str>("choice", None)
            .unwrap_or(ChoicesProblem::Missing);
        format!(
            "the field `{field}` has `kind = \"choice\"` but its type `{ty}` is not a `Choice`: \
             {problem}; derive `learnables::Choice` on an enum of the choices and give the \
             field that type, or remove `kind = \"choice\"`"
        )
    } else {
        format!(
            "the field `{field}` has `kind = \"{kind}\"` but its type `{ty}` is a `Choice`: a \
             person would see free text that refuses all but the choices; remove `kind` to \
             make it a choice field"
        )
    }
}

/// The keys of a lesson field given on a skipped field, which would have
/// no effect: each an error.
pub(super) fn skipped_keys(field: &FieldAttrs, errors: &mut darling::error::Accumulator) {
    let given: [(&str, Option<Span>); 8] = [
        ("label", field.label.as_ref().map(LitStr::span)),
        ("help", field.help.as_ref().map(LitStr::span)),
        ("rename", field.rename.as_ref().map(LitStr::span)),
        ("kind", field.kind.as_ref().map(LitStr::span)),
        ("custom_kind", field.custom_kind.as_ref().map(LitStr::span)),
        ("range", field.range.as_ref().map(|range| range.span)),
        ("length", field.length.as_ref().map(|length| length.span)),
        ("pattern", field.pattern.as_ref().map(LitStr::span)),
    ];
    for (key, span) in given {
        if let Some(span) = span {
            errors.push(
                darling::Error::custom(format!(
                    "a skipped field is no lesson field, so `{key}` would have no effect: remove \
                     `{key}`, or `skip`"
                ))
                .with_span(&span),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(ty: &str, text: &str) -> Option<(String, String)> {
        standard_parse(&syn::parse_str(ty).unwrap(), text)?.err()
    }

    #[test]
    fn standard_types_parse_defaults_as_from_str_does() {
        assert_eq!(
            error("u8", "abc"),
            Some(("u8".into(), "invalid digit found in string".into()))
        );
        assert_eq!(error("u8", "300").map(|e| e.0), Some("u8".into()));
        assert_eq!(error("u8", "85"), None);
        assert_eq!(
            error("std::num::NonZeroU32", "0").map(|e| e.0),
            Some("NonZeroU32".into())
        );
        // Read as a lesson is: spaces around trimmed, floats finite.
        assert_eq!(error("u8", " 85 "), None);
        assert_eq!(error("f64", "1.5"), None);
        assert_eq!(
            error("f64", "NaN").map(|e| e.1),
            Some("it is not a finite number".into())
        );
        assert_eq!(error("f32", "inf").map(|e| e.0), Some("f32".into()));
        // A `bool` is a choice, checked with the other choices.
        assert_eq!(error("bool", "yes"), None);
        assert!(!is_standard(&syn::parse_str("bool").unwrap()));
        assert_eq!(error("char", "ab").map(|e| e.0), Some("char".into()));
        assert_eq!(error("String", "anything"), None);
    }

    #[test]
    fn other_types_are_left_to_run_time() {
        assert!(is_standard(&syn::parse_str("String").unwrap()));
        assert!(!is_standard(&syn::parse_str("Chapter").unwrap()));
        assert_eq!(error("Chapter", "abc"), None);
        assert_eq!(error("my::u8", "abc"), None);
        assert_eq!(error("Vec<u8>", "abc"), None);
    }
}
