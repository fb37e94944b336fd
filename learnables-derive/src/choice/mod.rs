//! `#[derive(Choice)]`: a fieldless enum as a list of choices.

mod attrs;
mod codegen;
mod fallback;
mod model;

use proc_macro2::TokenStream;
use syn::DeriveInput;

/// The whole derive: the impls, or every error found plus stub impls.
pub fn expand(input: &DeriveInput) -> TokenStream {
    match model::ChoiceEnum::from_input(input) {
        Ok(choice) => codegen::generate(&choice),
        Err(errors) => {
            let stub = fallback::stub(input);
            let errors = errors.write_errors();
            quote::quote! { #errors #stub }
        }
    }
}
