//! `#[derive(Learnable)]` and `#[derive(Choice)]` for the `learnables`
//! crate, which re-exports them: use them from there.
//!
//! Each derive reads its input (darling), checks every rule the spec and the
//! attributes impose, reporting all errors at once and each on the narrowest
//! token, and only then generates code. On any error it emits the errors and
//! a stub impl, so that the user sees the real mistakes and no follow-on ones.

mod case;
mod choice;
mod doc;
mod keys;
mod krate;
mod learnable;
mod meta;
mod shape;

use proc_macro::TokenStream;

/// Derives `learnables::Learnable` for a struct with named fields: its
/// `LearnableDescriptor`, typed lesson parsing, and `describes` phrasing.
/// Every key of `#[learnable(...)]`, on the struct and on a field, is
/// documented with an example where `learnables` re-exports this derive
/// (`learnables::Learnable`, the derive macro).
#[proc_macro_derive(Learnable, attributes(learnable))]
pub fn derive_learnable(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    learnable::expand(&input).into()
}

/// Derives `learnables::Choice`, `Display` and `FromStr` for a fieldless
/// enum: its variants, in kebab-case unless renamed, are a lesson field's
/// choices, and their doc comments what each choice means. Every key of
/// `#[choice(...)]` (`rename_all` and `crate` on the enum, `rename` and
/// `alias` on a variant) is documented with an example where `learnables`
/// re-exports this derive (`learnables::Choice`, the derive macro).
#[proc_macro_derive(Choice, attributes(choice))]
pub fn derive_choice(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    choice::expand(&input).into()
}
