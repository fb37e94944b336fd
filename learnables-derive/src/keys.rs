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
    /// The keys among those that may be given more than once (`alias`).
    pub repeatable: &'static [&'static str],
}

/// The errors of every unknown or repeated key of `keys.attribute`, with
/// `input` without those keys for darling to read; `None` for the input
/// when every key is right (nothing is copied then).
pub fn screen(input: &DeriveInput, keys: &Keys) -> (Option<DeriveInput>, Vec<darling::Error>) {
    let mut errors = darling::Error::accumulator();
    let item = screen_attrs(&input.attrs, keys, keys.item, &mut errors);
    let members: Vec<Replacements> = match &input.data {
        Data::Struct(data) => data
            .fields
            .iter()
            .map(|field| screen_attrs(&field.attrs, keys, keys.member, &mut errors))
            .collect(),
        Data::Enum(data) => data
            .variants
            .iter()
            .map(|variant| screen_attrs(&variant.attrs, keys, keys.member, &mut errors))
            .collect(),
        Data::Union(_) => Vec::new(),
    };
    let errors = errors.into_inner();
    if errors.is_empty() {
        return (None, errors);
    }
    let mut screened = input.clone();
    replace(&mut screened.attrs, item);
    let member_attrs: Vec<&mut Vec<Attribute>> = match &mut screened.data {
        Data::Struct(data) => data
            .fields
            .iter_mut()
            .map(|field| &mut field.attrs)
            .collect(),
        Data::Enum(data) => data
            .variants
            .iter_mut()
            .map(|variant| &mut variant.attrs)
            .collect(),
        Data::Union(_) => Vec::new(),
    };
    for (attrs, replacements) in member_attrs.into_iter().zip(members) {
        replace(attrs, replacements);
    }
    (Some(screened), errors)
}

/// Attributes to put in place of others, by position.
type Replacements = Vec<(usize, Attribute)>;

fn replace(attrs: &mut [Attribute], replacements: Replacements) {
    for (at, attr) in replacements {
        attrs[at] = attr;
    }
}

/// Each `#[attribute(...)]` among `attrs` that has a key to leave out,
/// rebuilt without it; the errors of those keys.
fn screen_attrs(
    attrs: &[Attribute],
    keys: &Keys,
    known: &[&str],
    errors: &mut darling::error::Accumulator,
) -> Replacements {
    let attribute = keys.attribute;
    let mut seen = HashSet::new();
    let mut replacements = Vec::new();
    for (at, attr) in attrs.iter().enumerate() {
        if !attr.path().is_ident(attribute) {
            continue;
        }
        // A list that does not parse is left to darling, which says why.
        let Ok(metas) = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        else {
            continue;
        };
        let count = metas.len();
        let kept: Punctuated<Meta, Token![,]> = metas
            .into_iter()
            .filter(|meta| {
                let path = meta.path();
                let key = path
                    .get_ident()
                    .map_or_else(|| quote::quote!(#path).to_string(), ToString::to_string);
                if !known.contains(&key.as_str()) {
                    errors.push(unknown(&key, known, attribute).with_span(path));
                    return false;
                }
                if !seen.insert(key.clone()) && !keys.repeatable.contains(&key.as_str()) {
                    errors.push(
                        darling::Error::custom(format!(
                            "`{key}` is given twice in #[{attribute}(...)]: keep one"
                        ))
                        .with_span(path),
                    );
                    return false;
                }
                true
            })
            .collect();
        if kept.len() < count {
            let path = attr.path();
            let mut rebuilt: Attribute = syn::parse_quote!(#[#path(#kept)]);
            rebuilt.pound_token = attr.pound_token;
            rebuilt.style = attr.style;
            rebuilt.bracket_token = attr.bracket_token;
            replacements.push((at, rebuilt));
        }
    }
    replacements
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
