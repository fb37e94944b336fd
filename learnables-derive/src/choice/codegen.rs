//! `Choice`, `Display` and `FromStr`, generated from a checked enum.

use proc_macro2::TokenStream;
use quote::quote;

use super::model::ChoiceEnum;

/// The impls, their methods `#[inline]`: compiled only in a crate that
/// calls them (see the `Learnable` derive's codegen).
pub fn generate(choice: &ChoiceEnum) -> TokenStream {
    let ChoiceEnum {
        ident,
        krate,
        variants,
        aliases,
        descriptions,
    } = choice;
    let idents: Vec<_> = variants.iter().map(|(ident, _)| ident).collect();
    let choices: Vec<_> = variants.iter().map(|(_, choice)| choice).collect();
    // A choice string, or any of its variant's aliases (earlier choice
    // strings that stored values and lessons may hold).
    let descriptions = descriptions.iter().map(|description| match description {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    });
    let alias_pairs = choices
        .iter()
        .zip(aliases)
        .flat_map(|(choice, aliases)| aliases.iter().map(move |alias| quote!((#alias, #choice))));
    let readings = choices
        .iter()
        .zip(aliases)
        .map(|(choice, aliases)| quote!(#choice #(| #aliases)*));
    quote! {
        #[automatically_derived]
        impl #krate::Choice for #ident {
            const CHOICES: &'static [&'static str] = &[#(#choices),*];
            const DESCRIPTIONS: &'static [::core::option::Option<&'static str>] =
                &[#(#descriptions),*];
            const ALIASES: &'static [(&'static str, &'static str)] = &[#(#alias_pairs),*];

            #[inline]
            fn as_choice(&self) -> &'static str {
                match self {
                    #(#ident::#idents => #choices,)*
                }
            }

            #[inline]
            fn from_choice(choice: &str) -> ::core::option::Option<Self> {
                match choice {
                    #(#readings => ::core::option::Option::Some(#ident::#idents),)*
                    _ => ::core::option::Option::None,
                }
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for #ident {
            #[inline]
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(#krate::Choice::as_choice(self))
            }
        }

        #[automatically_derived]
        impl ::core::str::FromStr for #ident {
            type Err = #krate::ChoiceError;

            #[inline]
            fn from_str(choice: &str) -> ::core::result::Result<Self, #krate::ChoiceError> {
                <Self as #krate::Choice>::from_choice(choice).ok_or_else(|| {
                    #krate::ChoiceError::new(choice, <Self as #krate::Choice>::CHOICES)
                })
            }
        }
    }
}
