//! The path to the `learnables` crate for the stub impls a derive leaves
//! behind on errors: `crate = ...` read leniently (darling reads it strictly
//! for the real impls), so that a crate reaching `learnables` under another
//! path sees no follow-on "unresolved path" error.

use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Lit, Meta, Path, Token};

/// The `crate = ...` of the first `#[attribute(...)]` that gives one, as a
/// path or a string; `::learnables` when none can be read.
pub fn path(attrs: &[Attribute], attribute: &str) -> Path {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident(attribute))
        .filter_map(|attr| {
            attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .ok()
        })
        .flatten()
        .find_map(|meta| match meta {
            Meta::NameValue(pair) if pair.path.is_ident("crate") => match pair.value {
                Expr::Path(path) => Some(path.path),
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => text.parse().ok(),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_else(|| syn::parse_quote!(::learnables))
}
