//! What the derive emits on errors, beside them: impls with the right
//! signatures and no body, so that uses of the type raise no follow-on
//! errors and the user sees only the real mistakes.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

/// On errors: an impl with the right signatures, so that uses of the type
/// raise no follow-on errors.
pub fn stub(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let krate = crate::krate::path(&input.attrs, "learnable");
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        impl #impl_generics #krate::Learnable for #ident #ty_generics #where_clause {
            fn descriptor() -> &'static #krate::LearnableDescriptor {
                ::core::unimplemented!()
            }
            fn from_lesson_value(
                _: &#krate::LessonValue,
            ) -> ::core::result::Result<Self, #krate::LessonError> {
                ::core::unimplemented!()
            }
            fn to_lesson_value(&self) -> #krate::LessonValue {
                ::core::unimplemented!()
            }
            fn describes(&self, _: &str) -> ::std::string::String {
                ::core::unimplemented!()
            }
        }
    }
}
