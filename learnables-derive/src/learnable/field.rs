//! A field of a learnable, as the model holds it: its Rust name and type,
//! and what it contributes to the descriptor; the names of its generated
//! items.

use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned};
use syn::ext::IdentExt as _;
use syn::spanned::Spanned as _;
use syn::{Expr, Ident, LitStr, Type};

use crate::meta::BoundLit;

/// A struct field.
pub struct Field {
    pub ident: Ident,
    /// `T` for a field of type `Option<T>`, else the field's type.
    pub ty: Type,
    /// The type of one value: `T` of a list field's `Vec<T>`, else `ty`.
    pub value_ty: Type,
    pub optional: bool,
    /// Of type `Vec<T>` (or `Option<Vec<T>>`): a list of values.
    pub list: bool,
    /// Marked `entry_key`: its value is the lesson's entry.
    pub entry_key: bool,
    /// `None` for a `skip`ped field.
    pub lesson: Option<LessonField>,
    /// `default = "path"` of a skipped field: the function that makes
    /// its value (its type's `Default` otherwise).
    pub skip_default: Option<syn::Path>,
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
    /// `range(...)`, `length(...)`, `pattern = "..."`.
    pub checks: Checks,
}

/// A field's checks, as written and checked.
#[derive(Default)]
pub struct Checks {
    pub minimum: Option<BoundLit>,
    pub maximum: Option<BoundLit>,
    /// Where `range` is written, when it is.
    pub range: Option<proc_macro2::Span>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    /// Where `length` is written, when it is.
    pub length: Option<proc_macro2::Span>,
    pub pattern: Option<LitStr>,
}

impl Checks {
    /// Whether any check is given.
    pub fn any(&self) -> bool {
        self.range.is_some() || self.length.is_some() || self.pattern.is_some()
    }
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
