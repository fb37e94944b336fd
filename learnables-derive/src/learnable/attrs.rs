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
    pub collection: Option<LitStr>,
    pub entry: Option<LitStr>,
    pub teaches: Option<LitStr>,
    pub how: Option<LitStr>,
    pub decided_by: Option<LitStr>,
    pub skills: Option<Vec<LitStr>>,
    pub describes: Option<LitStr>,
    pub describes_with: Option<Path>,
    #[darling(rename = "crate")]
    pub krate: Option<Path>,
}

/// `#[learnable(...)]` on a field, with its doc.
#[derive(FromField)]
#[darling(attributes(learnable), forward_attrs(doc))]
pub struct FieldAttrs {
    pub ident: Option<Ident>,
    pub ty: Type,
    pub attrs: Vec<Attribute>,
    pub label: Option<LitStr>,
    pub help: Option<LitStr>,
    pub default: Option<LitStr>,
    pub rename: Option<LitStr>,
    pub kind: Option<LitStr>,
    pub skip: Flag,
}
