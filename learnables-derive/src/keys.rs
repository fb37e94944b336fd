//! The keys of a derive's attributes, checked before darling reads them:
//! a key no receiver takes, or one given twice, is reported here in the
//! derive's own words (with a "did you mean" from `learnables-rules`) and
//! left out of what darling reads, so that no message depends on the
//! wording of darling's.

use std::collections::HashSet;

use syn::punctuated::Punctuated;
use syn::{Attribute, Data, DeriveInput, Meta, Token};

/// The keys each place takes.
pub struct Keys {
    /// The attribute's name: `learnable`, `choice`.
    pub attribute: &'static str,
    /// On the item.
    pub item: &'static [&'static str],
    /// On a field or a variant.
    pub member: &'static [&'static str],
}

/// `input` with every unknown or repeated key of `keys.attribute` removed,
/// and the error of each.
pub fn screen(input: &DeriveInput, keys: &Keys) -> (DeriveInput, Vec<darling::Error>) {
    let mut errors = darling::Error::accumulator();
    let screened = screen_input(input, keys, &mut errors);
    (screened, errors.into_inner())
}

fn screen_input(
    input: &DeriveInput,
    keys: &Keys,
    errors: &mut darling::error::Accumulator,
) -> DeriveInput {
    let mut screened = input.clone();
    screened.attrs = screen_attrs(&input.attrs, keys.attribute, keys.item, errors);
    match &mut screened.data {
        Data::Struct(data) => {
            for field in &mut data.fields {
                field.attrs = screen_attrs(&field.attrs, keys.attribute, keys.member, errors);
            }
        }
        Data::Enum(data) => {
            for variant in &mut data.variants {
                variant.attrs = screen_attrs(&variant.attrs, keys.attribute, keys.member, errors);
            }
        }
        Data::Union(_) => {}
    }
    screened
}

fn screen_attrs(
    attrs: &[Attribute],
    attribute: &str,
    known: &[&str],
    errors: &mut darling::error::Accumulator,
) -> Vec<Attribute> {
    let mut seen = HashSet::new();
    attrs
        .iter()
        .map(|attr| {
            if !attr.path().is_ident(attribute) {
                return attr.clone();
            }
            // A list that does not parse is left to darling, which says why.
            let Ok(metas) = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            else {
                return attr.clone();
            };
            let kept = metas.into_iter().filter(|meta| {
                let path = meta.path();
                let key = path
                    .get_ident()
                    .map_or_else(|| quote::quote!(#path).to_string(), ToString::to_string);
                if !known.contains(&key.as_str()) {
                    errors.push(unknown(&key, known, attribute).with_span(path));
                    return false;
                }
                if !seen.insert(key.clone()) {
                    errors.push(
                        darling::Error::custom(format!(
                            "`{key}` is given twice in #[{attribute}(...)]: keep one"
                        ))
                        .with_span(path),
                    );
                    return false;
                }
                true
            });
            let kept: Punctuated<Meta, Token![,]> = kept.collect();
            let path = attr.path();
            let mut rebuilt: Attribute = syn::parse_quote!(#[#path(#kept)]);
            rebuilt.pound_token = attr.pound_token;
            rebuilt.style = attr.style;
            rebuilt.bracket_token = attr.bracket_token;
            rebuilt
        })
        .collect()
}

fn unknown(key: &str, known: &[&str], attribute: &str) -> darling::Error {
    let hint = match learnables_rules::closest(key, known.iter().copied()) {
        Some(near) => format!(": did you mean `{near}`?"),
        None => {
            let mut sorted = known.to_vec();
            sorted.sort_unstable();
            let list: Vec<String> = sorted.iter().map(|key| format!("`{key}`")).collect();
            format!("; the keys it takes here are {}", list.join(", "))
        }
    };
    darling::Error::custom(format!("unknown key `{key}` in #[{attribute}(...)]{hint}"))
}
