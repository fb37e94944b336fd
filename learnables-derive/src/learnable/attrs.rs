//! The attributes as written, read by darling: no rule checked yet.

use darling::util::Flag;
use darling::{FromDeriveInput, FromField};
use syn::{Attribute, Ident, LitStr, Path, Type};

/// `#[learnable(...)]` on the struct, with its doc and fields.
#[derive(FromDeriveInput)]
#[darling(attributes(learnable), forward_attrs(doc))]
pub struct StructAttrs {
    pub ident: Ident,
    pub data: darling::ast::Data<darling::util::Ignored, FieldAttrs>,
    #[darling(default, with = crate::meta::text)]
    pub collection: Option<LitStr>,
    #[darling(default, with = crate::meta::text)]
    pub entry: Option<LitStr>,
    #[darling(default, with = crate::meta::text)]
    pub teaches: Option<LitStr>,
    #[darling(default, with = crate::meta::text)]
    pub how: Option<LitStr>,
    #[darling(default, with = crate::meta::text)]
    pub decided_by: Option<LitStr>,
    #[darling(default, with = crate::meta::texts)]
    pub skills: Option<crate::meta::Texts>,
    #[darling(default, with = crate::meta::text)]
    pub describes: Option<LitStr>,
    #[darling(default, with = crate::meta::path)]
    pub describes_with: Option<Path>,
    #[darling(default, with = crate::meta::path)]
    pub validate: Option<Path>,
    #[darling(default, with = crate::meta::path)]
    pub migrate: Option<Path>,
    #[darling(default, with = crate::meta::text)]
    pub rename_all: Option<LitStr>,
    #[darling(default, with = crate::meta::count)]
    pub review: Option<u32>,
    #[darling(rename = "crate", default, with = crate::meta::path)]
    pub krate: Option<Path>,
}

/// `#[learnable(...)]` on a field, with its doc.
#[derive(FromField)]
#[darling(attributes(learnable), forward_attrs(doc))]
pub struct FieldAttrs {
    pub ident: Option<Ident>,
    pub ty: Type,
    pub attrs: Vec<Attribute>,
    #[darling(default, with = crate::meta::text)]
    pub label: Option<LitStr>,
    #[darling(default, with = crate::meta::text)]
    pub help: Option<LitStr>,
    #[darling(default, with = crate::meta::text)]
    pub default: Option<LitStr>,
    #[darling(default, with = crate::meta::text)]
    pub rename: Option<LitStr>,
    #[darling(default, with = crate::meta::text)]
    pub kind: Option<LitStr>,
    #[darling(default, with = crate::meta::flag)]
    pub skip: Flag,
    #[darling(default, with = crate::meta::flag)]
    pub entry_key: Flag,
    #[darling(multiple)]
    pub alias: Vec<crate::meta::Text>,
    #[darling(default, with = crate::meta::bounds)]
    pub range: Option<crate::meta::Bounds>,
    #[darling(default, with = crate::meta::bounds)]
    pub length: Option<crate::meta::Bounds>,
    #[darling(default, with = crate::meta::text)]
    pub pattern: Option<LitStr>,
    #[darling(default, with = crate::meta::text)]
    pub custom_kind: Option<LitStr>,
}
