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
/// See the `learnables` crate documentation.
///
/// On the struct, `#[learnable(...)]` takes `collection`, `entry`,
/// `teaches`, `how`, `decided_by` (all required, none blank; `how` is
/// prose in any language, never a placeholder), `skills("id", ...)` (at
/// least one id; leave it out for every skill), `describes = "template"` or
/// `describes_with = path`, `validate = path` (a
/// `fn(&Self) -> Result<(), learnables::FieldErrors>` run after parsing,
/// for rules across fields; its errors are reported like field errors) and
/// `crate = path`.
///
/// On a field: `label`, `help`, `default` (parsed as the field's type: at
/// compile time for the standard types and a `Choice`'s choices, at the
/// first use of `descriptor()` for others), `rename`, `kind` (`"choice"`
/// only on a `Choice` type, another kind only on a type that is not one),
/// `skip`, and `entry_key`: the field is the entry's key, so a lesson whose
/// value for it names another entry than the lesson's is refused.
#[proc_macro_derive(Learnable, attributes(learnable))]
pub fn derive_learnable(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    learnable::expand(&input).into()
}

/// Derives `learnables::Choice`, `Display` and `FromStr` for a fieldless
/// enum: its variants are a lesson field's choices.
#[proc_macro_derive(Choice, attributes(choice))]
pub fn derive_choice(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    choice::expand(&input).into()
}
