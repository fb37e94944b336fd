//! The choice enum as checked.

use std::collections::HashSet;

use darling::FromDeriveInput;
use syn::ext::IdentExt;
use syn::{DeriveInput, Ident, Path};

use super::attrs::EnumAttrs;
use crate::case::RenameRule;
use crate::keys::{self, Keys};
use crate::shape;

/// The keys `#[choice(...)]` takes, on the enum and on a variant.
const KEYS: Keys = Keys {
    attribute: "choice",
    item: &["rename_all", "crate"],
    member: &["rename", "alias"],
    repeatable: &["alias"],
};

/// A checked choice enum.
pub struct ChoiceEnum {
    pub ident: Ident,
    pub krate: Path,
    /// Each variant with its choice string, in declaration order.
    pub variants: Vec<(Ident, String)>,
    /// Each variant's `alias = "..."`s: earlier choice strings it reads.
    pub aliases: Vec<Vec<String>>,
    /// What each variant's choice means: its doc comment's first paragraph.
    pub descriptions: Vec<Option<String>>,
}

impl ChoiceEnum {
    /// Reads and checks the derive's input; every error at once.
    pub fn from_input(input: &DeriveInput) -> darling::Result<ChoiceEnum> {
        shape::require_enum(input)?;
        let mut errors = darling::Error::accumulator();
        errors.handle(shape::require_no_generics(
            input,
            "Choice",
            "its choices are fixed names, the same for every type argument; remove the parameters",
        ));
        let (screened, key_errors) = keys::screen(input, &KEYS);
        let screened_out = screened.is_some();
        for error in key_errors {
            errors.push(error);
        }
        let attrs = EnumAttrs::from_derive_input(screened.as_ref().unwrap_or(input));
        let Some(attrs) = errors.handle(attrs) else {
            return Err(errors.finish().expect_err("an error was just recorded"));
        };
        // A key left out was meant for something: checking the rest
        // without it would only report its absence again.
        if screened_out {
            return Err(errors.finish().expect_err("an error was just recorded"));
        }
        let rule = match &attrs.rename_all {
            Some(name) => RenameRule::from_name(&name.value()).unwrap_or_else(|| {
                errors.push(
                    darling::Error::custom(format!(
                        "unknown `rename_all` rule {:?}; the rules are: {}",
                        name.value(),
                        RenameRule::names().join(", ")
                    ))
                    .with_span(name),
                );
                RenameRule::KebabCase
            }),
            None => RenameRule::KebabCase,
        };
        let mut seen = HashSet::new();
        let mut variants = Vec::new();
        let mut aliases = Vec::new();
        let mut descriptions = Vec::new();
        for variant in attrs.data.as_ref().take_enum().into_iter().flatten() {
            if !variant.fields.is_unit() {
                errors.push(
                    darling::Error::custom(format!(
                        "the variant `{}` has data: a choice is a bare name, so #[derive(Choice)] \
                         takes only variants without fields",
                        variant.ident
                    ))
                    .with_span(&variant.ident),
                );
                continue;
            }
            let choice = match &variant.rename {
                Some(rename) => rename.value(),
                None => rule.apply(&variant.ident.unraw().to_string()),
            };
            let span = variant
                .rename
                .as_ref()
                .map_or_else(|| variant.ident.span(), syn::LitStr::span);
            if choice.trim().is_empty() {
                errors.push(
                    darling::Error::custom(
                        "a choice must not be empty: give `rename` the text a person picks, \
                         or leave it out to use the variant's name",
                    )
                    .with_span(&span),
                );
            } else if !seen.insert(choice.clone()) {
                errors.push(
                    darling::Error::custom(format!(
                        "two variants are the choice {choice:?}: rename one with \
                         #[choice(rename = \"...\")]"
                    ))
                    .with_span(&span),
                );
            }
            variants.push((variant.ident.clone(), choice));
            // What the choice means: the doc comment's first paragraph,
            // when it is written out (not an `include_str!`).
            descriptions.push(
                crate::doc::Doc::read(&variant.attrs)
                    .known
                    .map(|doc| doc.label)
                    .filter(|label| !label.is_empty()),
            );
            aliases.push(variant.alias.iter().map(|alias| alias.0.value()).collect());
        }
        // An alias reads as one variant only: not a choice, not blank,
        // not another's alias.
        for variant in attrs.data.as_ref().take_enum().into_iter().flatten() {
            for alias in &variant.alias {
                let text = alias.0.value();
                let problem = if text.trim().is_empty() {
                    Some("an alias must not be empty: write the choice string the variant had before".to_owned())
                } else if !seen.insert(text.clone()) {
                    Some(format!(
                        "{text:?} is a choice or an alias already: a stored value holding it \
                         must read as one variant; remove this alias"
                    ))
                } else {
                    None
                };
                if let Some(problem) = problem {
                    errors.push(darling::Error::custom(problem).with_span(&alias.0));
                }
            }
        }
        if attrs
            .data
            .as_ref()
            .take_enum()
            .is_some_and(|all| all.is_empty())
        {
            errors.push(
                darling::Error::custom(
                    "#[derive(Choice)] needs at least one variant: a choice field with no \
                     choices cannot be answered",
                )
                .with_span(&attrs.ident),
            );
        }
        errors.finish()?;
        Ok(ChoiceEnum {
            ident: attrs.ident,
            krate: attrs
                .krate
                .unwrap_or_else(|| syn::parse_quote!(::learnables)),
            variants,
            aliases,
            descriptions,
        })
    }
}
