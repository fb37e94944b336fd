//! `#[derive(Learnable)]`: attributes -> checked model -> generated code.

mod attrs;
mod check;
mod codegen;
mod model;
mod template;

use proc_macro2::TokenStream;
use syn::DeriveInput;

/// The whole derive: the impl, or every error found plus a stub impl.
pub fn expand(input: &DeriveInput) -> TokenStream {
    match model::Learnable::from_input(input) {
        Ok(learnable) => codegen::generate(&learnable),
        Err(errors) => {
            let stub = codegen::stub(input);
            let errors = errors.write_errors();
            quote::quote! { #errors #stub }
        }
    }
}
