//! A field of a learnable, as the model holds it: its Rust name and type,
//! and what it contributes to the descriptor; the names of its generated
//! items.

use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned};
use syn::ext::IdentExt as _;
use syn::spanned::Spanned as _;
use syn::{Expr, Ident, LitStr, Type};

/// A struct field.
pub struct Field {
    pub ident: Ident,
    /// `T` for a field of type `Option<T>`, else the field's type.
    pub value_ty: Type,
    pub optional: bool,
    /// Marked `entry_key`: its value is the lesson's entry.
    pub entry_key: bool,
    /// `None` for a `skip`ped field.
    pub lesson: Option<LessonField>,
}

/// What a field contributes to the descriptor.
pub struct LessonField {
    pub name: String,
    pub label: Option<LitStr>,
    pub help: Option<LitStr>,
    pub doc: Vec<Expr>,
    pub kind: Option<LitStr>,
    pub default: Option<LitStr>,
    /// `alias = "..."`s: earlier names stored versions and lessons may use.
    pub aliases: Vec<LitStr>,
    /// The field's Rust name when `rename` or `rename_all` gave it another
    /// lesson name: stored versions written before may hold it (left out
    /// when another field answers to it).
    pub stored_names: Vec<String>,
}

impl Field {
    /// `__ops_{name}`: the field's generated operations, at its type.
    pub fn ops(&self) -> Ident {
        format_ident!("__ops_{}", self.ident.unraw(), span = self.value_ty.span())
    }

    /// `__ops_{name}.{part}`, at the field's type.
    pub fn item(&self, part: &str) -> TokenStream {
        let ops = self.ops();
        let value_ty = &self.value_ty;
        let part = format_ident!("{}", part, span = value_ty.span());
        quote_spanned!(value_ty.span()=> (#ops.#part))
    }
}
