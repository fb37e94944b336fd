//! The generated code that writes a value out: its lesson value and its
//! `describes` phrasing.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::field::Field;
use super::model::Learnable;
use super::template::{Describes, TemplatePiece};

/// `&dyn Display` of a field's value, through the field's ops (so that a
/// type that is no lesson field's is one error, at the type): `Some(...)`,
/// or for an optional field, `None` when absent.
fn shown(krate: &syn::Path, field: &Field) -> TokenStream {
    let ident = &field.ident;
    let display = field.item("display");
    let one = |value: TokenStream| {
        if field.list {
            quote! {
                #krate::__private::Shown::List(
                    ::core::iter::Iterator::collect(
                        ::core::iter::Iterator::map((#value).iter(), |__item| #display(__item))
                    )
                )
            }
        } else {
            quote!(#krate::__private::Shown::One(#display(#value)))
        }
    };
    if field.optional {
        let some = one(quote!(__value));
        quote! {
            match &self.#ident {
                ::core::option::Option::Some(__value) => #some,
                ::core::option::Option::None => #krate::__private::Shown::Absent,
            }
        }
    } else {
        one(quote!(&self.#ident))
    }
}

pub(super) fn to_lesson_value(learnable: &Learnable) -> TokenStream {
    let krate = &learnable.krate;
    let fields = learnable.lesson_fields().map(|(_, field)| {
        let name = &field.lesson.as_ref().expect("lesson fields only").name;
        let shown = shown(krate, field);
        quote!((#name, #shown))
    });
    quote! {
        #[inline]
        fn to_lesson_value(&self) -> #krate::LessonValue {
            #krate::__private::lesson_value(&[#(#fields),*])
        }
    }
}

pub(super) fn describes(learnable: &Learnable) -> TokenStream {
    let krate = &learnable.krate;
    let body = match &learnable.describes {
        // Through a typed pointer, so that a wrong signature is one error
        // at the path that shows the signature expected.
        Describes::With(path) => quote_spanned! {path.span()=>
            let __describes_with: fn(&Self, &str) -> ::std::string::String = #path;
            __describes_with(self, __entry)
        },
        Describes::Template(pieces) => {
            let pieces = pieces.iter().map(|piece| template_piece(learnable, piece));
            quote!(#krate::__private::phrase(&[#(#pieces),*], __entry))
        }
    };
    quote! {
        #[inline]
        fn describes(&self, __entry: &str) -> ::std::string::String {
            #body
        }
    }
}

/// A template piece as the `Piece` the phrasing writes.
fn template_piece(learnable: &Learnable, piece: &TemplatePiece) -> TokenStream {
    let krate = &learnable.krate;
    match piece {
        TemplatePiece::Text(text) => quote!(#krate::__private::Piece::Text(#text)),
        TemplatePiece::Entry => quote!(#krate::__private::Piece::Entry),
        TemplatePiece::Part(part) => {
            let part = part.iter().map(|piece| template_piece(learnable, piece));
            quote!(#krate::__private::Piece::Part(::std::vec![#(#part),*]))
        }
        TemplatePiece::Field { ident, .. } => {
            let shown = match learnable
                .lesson_fields()
                .find(|(_, field)| field.ident == *ident)
            {
                Some((_, field)) => shown(krate, field),
                // A skipped field: its type must be `Display`.
                None => {
                    let field = learnable
                        .fields
                        .iter()
                        .find(|field| field.ident == *ident)
                        .expect("a template names a field of the struct");
                    let value_ty = &field.value_ty;
                    if field.optional {
                        quote_spanned! {value_ty.span()=>
                            match &self.#ident {
                                ::core::option::Option::Some(__value) => #krate::__private::Shown::One(__value as &dyn ::core::fmt::Display),
                                ::core::option::Option::None => #krate::__private::Shown::Absent,
                            }
                        }
                    } else {
                        quote_spanned! {value_ty.span()=>
                            #krate::__private::Shown::One(&self.#ident as &dyn ::core::fmt::Display)
                        }
                    }
                }
            };
            quote!(#krate::__private::Piece::Value(#shown))
        }
    }
}
