//! `#[derive(Learnable)]`: `attrs` (the attributes as written, read by
//! darling after `keys` screened their keys) -> `model` (the learnable, every
//! error collected on one accumulator; `field`: a field of it) with `check` (the rules, each a
//! predicate of `learnables-rules`; `checks`: a field's `range`, `length`, `pattern`;
//! `template` reads `describes`) ->
//! `codegen` from the checked model (`phrase`: writing a value out);
//! `fallback` emits stub impls beside the errors.

mod attrs;
mod check;
mod checks;
mod codegen;
mod fallback;
mod field;
mod field_type;
mod model;
mod phrase;
mod template;

use proc_macro2::TokenStream;
use syn::DeriveInput;

/// The whole derive: the impl, or every error found plus a stub impl.
pub fn expand(input: &DeriveInput) -> TokenStream {
    match model::Learnable::from_input(input) {
        Ok(learnable) => codegen::generate(&learnable),
        Err(errors) => {
            let stub = fallback::stub(input);
            let errors = errors.write_errors();
            quote::quote! { #errors #stub }
        }
    }
}
