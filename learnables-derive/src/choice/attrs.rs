//! `#[choice(...)]` as written.

use darling::{FromDeriveInput, FromVariant};
use syn::{Ident, LitStr, Path};

/// `#[choice(...)]` on the enum.
#[derive(FromDeriveInput)]
#[darling(attributes(choice))]
pub struct EnumAttrs {
    pub ident: Ident,
    pub data: darling::ast::Data<VariantAttrs, darling::util::Ignored>,
    #[darling(default, with = crate::meta::text)]
    pub rename_all: Option<LitStr>,
    #[darling(rename = "crate", default, with = crate::meta::path)]
    pub krate: Option<Path>,
}

/// `#[choice(...)]` on a variant, and its doc comment.
#[derive(FromVariant)]
#[darling(attributes(choice), forward_attrs(doc))]
pub struct VariantAttrs {
    pub ident: Ident,
    pub attrs: Vec<syn::Attribute>,
    pub fields: darling::ast::Fields<syn::Field>,
    #[darling(default, with = crate::meta::text)]
    pub rename: Option<LitStr>,
    #[darling(multiple)]
    pub alias: Vec<crate::meta::Text>,
}
