//! `#[choice(...)]` as written.

use darling::{FromDeriveInput, FromVariant};
use syn::{Ident, LitStr, Path};

/// `#[choice(...)]` on the enum.
#[derive(FromDeriveInput)]
#[darling(attributes(choice))]
pub struct EnumAttrs {
    pub ident: Ident,
    pub data: darling::ast::Data<VariantAttrs, darling::util::Ignored>,
    pub rename_all: Option<LitStr>,
    #[darling(rename = "crate")]
    pub krate: Option<Path>,
}

/// `#[choice(...)]` on a variant.
#[derive(FromVariant)]
#[darling(attributes(choice))]
pub struct VariantAttrs {
    pub ident: Ident,
    pub fields: darling::ast::Fields<syn::Field>,
    pub rename: Option<LitStr>,
}
