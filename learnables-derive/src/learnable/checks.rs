//! A field's checks (`range`, `length`, `pattern`), read and checked at
//! compile time: bounds of one kind and in order, a pattern that compiles
//! (with the `regex` crate, as the run-time check does), and a `default`
//! that meets them. Whether the field's type takes a check is known only
//! to the compiler: the generated code asks it ([`fit_check`]).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::LitStr;

use super::attrs::FieldAttrs;
use super::field::{Checks, Field};
use crate::meta::BoundLit;

/// The checks of `field`, every mistake in `errors`.
pub fn read(
    field: &FieldAttrs,
    name: &str,
    list: bool,
    errors: &mut darling::error::Accumulator,
) -> Checks {
    let mut checks = Checks::default();
    if let Some(range) = &field.range {
        checks.range = Some(range.span);
        if let (Some((min, _)), Some((max, max_span))) = (&range.min, &range.max) {
            match order(min, max) {
                Some(std::cmp::Ordering::Greater) => errors.push(
                    darling::Error::custom(
                        "`range`'s `max` is below its `min`: no value would be accepted; swap them",
                    )
                    .with_span(max_span),
                ),
                None => errors.push(
                    darling::Error::custom(
                        "`range`'s bounds are of two kinds: write both as numbers, or both as \
                         dates in double quotes",
                    )
                    .with_span(max_span),
                ),
                _ => {}
            }
        }
        checks.minimum = range.min.as_ref().map(|(bound, _)| bound.clone());
        checks.maximum = range.max.as_ref().map(|(bound, _)| bound.clone());
    }
    if let Some(length) = &field.length {
        checks.length = Some(length.span);
        checks.min_length = count(length.min.as_ref(), errors);
        checks.max_length = count(length.max.as_ref(), errors);
        if let (Some(min), Some(max), Some((_, span))) =
            (checks.min_length, checks.max_length, &length.max)
            && max < min
        {
            errors.push(
                darling::Error::custom(
                    "`length`'s `max` is below its `min`: no value would be accepted; swap them",
                )
                .with_span(span),
            );
        }
    }
    if let Some(pattern) = &field.pattern {
        match learnables_rules::whole_match(&pattern.value()) {
            Ok(_) => checks.pattern = Some(pattern.clone()),
            Err(error) => errors.push(
                darling::Error::custom(format!(
                    "`pattern` is not a regular expression of the `regex` crate: {}",
                    error
                        .to_string()
                        .lines()
                        .last()
                        .unwrap_or_default()
                        .trim()
                        .trim_start_matches("error: ")
                ))
                .with_span(pattern),
            ),
        }
    }
    if let Some(default) = &field.default
        && !list
        && let Some(broken) = breaks(&checks, &default.value())
    {
        errors.push(
            darling::Error::custom(format!(
                "the default {:?} of the field `{name}` breaks its own check: it must be \
                 {broken}; write a default that meets it, or change the check",
                default.value()
            ))
            .with_span(default),
        );
    }
    checks
}

/// A `length` bound as a count.
fn count(
    bound: Option<&(BoundLit, Span)>,
    errors: &mut darling::error::Accumulator,
) -> Option<u64> {
    let (bound, span) = bound?;
    match bound {
        BoundLit::Whole(whole) => match u64::try_from(*whole) {
            Ok(count) => Some(count),
            Err(_) => {
                errors.push(
                    darling::Error::custom("a bound of `length` is a count: 0 or more")
                        .with_span(span),
                );
                None
            }
        },
        _ => {
            errors.push(
                darling::Error::custom(
                    "a bound of `length` is a count of characters or items: a whole number",
                )
                .with_span(span),
            );
            None
        }
    }
}

/// How `a` compares to `b`; `None` for bounds of two kinds.
fn order(a: &BoundLit, b: &BoundLit) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (BoundLit::Text(a), BoundLit::Text(b)) => Some(a.cmp(b)),
        (BoundLit::Text(_), _) | (_, BoundLit::Text(_)) => None,
        (BoundLit::Whole(a), BoundLit::Whole(b)) => Some(a.cmp(b)),
        (a, b) => real(a).partial_cmp(&real(b)),
    }
}

fn real(bound: &BoundLit) -> f64 {
    match bound {
        BoundLit::Whole(whole) => *whole as f64,
        BoundLit::Real(real) => *real,
        BoundLit::Text(_) => f64::NAN,
    }
}

/// What `default` fails of `checks`, as the end of "it must be ...", as a
/// lesson's value would be read (trimmed); `None` when it meets them all,
/// or when it is no value the check compares (its type's parse refuses it).
fn breaks(checks: &Checks, default: &str) -> Option<String> {
    let text = default.trim();
    let value = match text.parse::<i128>() {
        Ok(whole) => Some(BoundLit::Whole(whole)),
        Err(_) => text.parse::<f64>().ok().map(BoundLit::Real),
    };
    let as_bound = |bound: &BoundLit| match bound {
        BoundLit::Text(_) => Some(BoundLit::Text(text.to_owned())),
        _ => value.clone(),
    };
    if let Some(min) = &checks.minimum
        && let Some(value) = as_bound(min)
        && order(&value, min) == Some(std::cmp::Ordering::Less)
    {
        return Some(format!("at least {}", shown(min)));
    }
    if let Some(max) = &checks.maximum
        && let Some(value) = as_bound(max)
        && order(&value, max) == Some(std::cmp::Ordering::Greater)
    {
        return Some(format!("at most {}", shown(max)));
    }
    let chars = text.chars().count() as u64;
    if let Some(min) = checks.min_length
        && chars < min
    {
        return Some(format!("at least {min} characters"));
    }
    if let Some(max) = checks.max_length
        && chars > max
    {
        return Some(format!("at most {max} characters"));
    }
    if let Some(pattern) = &checks.pattern
        && let Ok(regex) = learnables_rules::whole_match(&pattern.value())
        && !regex.is_match(text)
    {
        return Some(format!("a match of the pattern {}", pattern.value()));
    }
    None
}

fn shown(bound: &BoundLit) -> String {
    match bound {
        BoundLit::Whole(whole) => whole.to_string(),
        BoundLit::Real(real) => real.to_string(),
        BoundLit::Text(text) => text.clone(),
    }
}

/// A bound as the spec's `'static` data.
pub fn bound_tokens(krate: &syn::Path, bound: &BoundLit) -> TokenStream {
    match bound {
        BoundLit::Whole(whole) => {
            let whole = proc_macro2::Literal::i128_unsuffixed(*whole);
            quote!(#krate::__private::Bound::Whole(#whole))
        }
        BoundLit::Real(real) => {
            let real = proc_macro2::Literal::f64_unsuffixed(*real);
            quote!(#krate::__private::Bound::Real(#real))
        }
        BoundLit::Text(text) => {
            let text = LitStr::new(text, Span::call_site());
            quote!(#krate::__private::Bound::Text(#text))
        }
    }
}

/// Compile-time checks that the field's type takes its checks: a number
/// or a date for `range` (numbers for a number, dates for a date), a text
/// or a list for `length`, a text for `pattern`; each an error at its key.
pub fn fit_check(krate: &syn::Path, field: &Field) -> TokenStream {
    let Some(lesson) = &field.lesson else {
        return TokenStream::new();
    };
    let checks = &lesson.checks;
    let value_type = field.item("value_type");
    let kind = field.item("kind");
    let choices = field.item("choices");
    let list = field.list;
    let mut out = TokenStream::new();
    if let Some(span) = checks.range {
        let dates = matches!(
            checks.minimum.as_ref().or(checks.maximum.as_ref()),
            Some(BoundLit::Text(_))
        );
        out.extend(quote_spanned! {span=>
            const _: () = if let ::core::option::Option::Some(__why) =
                #krate::__private::range_misfit(#value_type, #kind, #dates)
            {
                ::core::panic!("{}", __why)
            };
        });
    }
    if let Some(span) = checks.length {
        out.extend(quote_spanned! {span=>
            const _: () = if let ::core::option::Option::Some(__why) =
                #krate::__private::length_misfit(#value_type, #choices.is_some(), #list)
            {
                ::core::panic!("{}", __why)
            };
        });
    }
    if let Some(pattern) = &checks.pattern {
        out.extend(quote_spanned! {pattern.span()=>
            const _: () = if let ::core::option::Option::Some(__why) =
                #krate::__private::pattern_misfit(#value_type, #choices.is_some())
            {
                ::core::panic!("{}", __why)
            };
        });
    }
    out
}
