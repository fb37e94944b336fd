//! Which items a derive accepts, checked before its attributes are read so
//! that the error names the item's shape at the token that decides it.

use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

/// `Ok` for a struct with named fields; otherwise the error to show.
pub fn require_named_struct(input: &DeriveInput, derive: &str) -> darling::Result<()> {
    let what = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(_) => return Ok(()),
            Fields::Unnamed(fields) => ("a tuple struct", fields.span()),
            Fields::Unit => ("a unit struct", input.ident.span()),
        },
        Data::Enum(data) => ("an enum", data.enum_token.span),
        Data::Union(data) => ("a union", data.union_token.span),
    };
    Err(darling::Error::custom(format!(
        "#[derive({derive})] needs a struct with named fields, not {}: each named field \
         becomes a lesson field",
        what.0
    ))
    .with_span(&what.1))
}

/// `Ok` for an enum; otherwise the error to show.
pub fn require_enum(input: &DeriveInput) -> darling::Result<()> {
    let (what, span) = match &input.data {
        Data::Enum(_) => return Ok(()),
        Data::Struct(data) => ("a struct", data.struct_token.span),
        Data::Union(data) => ("a union", data.union_token.span),
    };
    Err(darling::Error::custom(format!(
        "#[derive(Choice)] needs an enum whose variants have no fields, not {what}: each \
         variant is one choice"
    ))
    .with_span(&span))
}

/// `Ok` when the item has no generic parameters; otherwise the error to
/// show, ending with `why`.
pub fn require_no_generics(input: &DeriveInput, derive: &str, why: &str) -> darling::Result<()> {
    if input.generics.params.is_empty() {
        return Ok(());
    }
    Err(darling::Error::custom(format!(
        "#[derive({derive})] does not support generic parameters: {why}"
    ))
    .with_span(&input.generics))
}
