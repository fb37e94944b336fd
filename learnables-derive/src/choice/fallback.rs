//! What the derive emits on errors, beside them: impls with the right
//! signatures and no body, so that uses of the type raise no follow-on
//! errors and the user sees only the real mistakes.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

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
