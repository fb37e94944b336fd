//! `Choice`, `Display` and `FromStr`, generated from a checked enum.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use super::model::ChoiceEnum;

/// The impls.
pub fn generate(choice: &ChoiceEnum) -> TokenStream {
    let ChoiceEnum {
        ident,
        krate,
        variants,
    } = choice;
    let idents: Vec<_> = variants.iter().map(|(ident, _)| ident).collect();
    let choices: Vec<_> = variants.iter().map(|(_, choice)| choice).collect();
    quote! {
        #[automatically_derived]
        impl #krate::Choice for #ident {
            const CHOICES: &'static [&'static str] = &[#(#choices),*];

            fn as_choice(&self) -> &'static str {
                match self {
                    #(#ident::#idents => #choices,)*
                }
            }

            fn from_choice(choice: &str) -> ::core::option::Option<Self> {
                match choice {
                    #(#choices => ::core::option::Option::Some(#ident::#idents),)*
                    _ => ::core::option::Option::None,
                }
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for #ident {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(#krate::Choice::as_choice(self))
            }
        }

        #[automatically_derived]
        impl ::core::str::FromStr for #ident {
            type Err = #krate::ChoiceError;

            fn from_str(choice: &str) -> ::core::result::Result<Self, #krate::ChoiceError> {
                <Self as #krate::Choice>::from_choice(choice).ok_or_else(|| {
                    #krate::ChoiceError::new(choice, <Self as #krate::Choice>::CHOICES)
                })
            }
        }
    }
}

/// On errors: impls with the right signatures, so that uses of the enum
/// raise no follow-on errors.
pub fn stub(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let krate = crate::krate::path(&input.attrs, "choice");
    // `Choice` needs `'static`, which a generic enum (an error) only has
    // under this bound.
    let mut generics = input.generics.clone();
    generics
        .make_where_clause()
        .predicates
        .push(syn::parse_quote!(Self: 'static));
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        impl #impl_generics #krate::Choice for #ident #ty_generics #where_clause {
            const CHOICES: &'static [&'static str] = &[];
            fn as_choice(&self) -> &'static str {
                ::core::unimplemented!()
            }
            fn from_choice(_: &str) -> ::core::option::Option<Self> {
                ::core::unimplemented!()
            }
        }
        impl #impl_generics ::core::fmt::Display for #ident #ty_generics #where_clause {
            fn fmt(&self, _: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::unimplemented!()
            }
        }
        impl #impl_generics ::core::str::FromStr for #ident #ty_generics #where_clause {
            type Err = #krate::ChoiceError;
            fn from_str(_: &str) -> ::core::result::Result<Self, #krate::ChoiceError> {
                ::core::unimplemented!()
            }
        }
    }
}
