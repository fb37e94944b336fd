//! Reading `#[doc]` attributes: literal lines (`///` comments) and
//! expressions such as `include_str!(...)`, which the generated code keeps.

use learnables_rules::DocText;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// A field's doc comment, attribute by attribute.
pub struct Doc {
    /// The attribute values, as written: literals and expressions.
    pub pieces: Vec<Expr>,
    /// The text, when every piece is a literal and so known now.
    pub known: Option<DocText>,
}

impl Doc {
    /// Reads the `#[doc]` attributes among `attrs`.
    pub fn read(attrs: &[Attribute]) -> Doc {
        let pieces: Vec<Expr> = attrs
            .iter()
            .filter(|attr| attr.path().is_ident("doc"))
            .filter_map(|attr| match &attr.meta {
                Meta::NameValue(pair) => Some(pair.value.clone()),
                _ => None,
            })
            .collect();
        let literals: Option<Vec<String>> = pieces
            .iter()
            .map(|piece| match piece {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => Some(text.value()),
                _ => None,
            })
            .collect();
        Doc {
            known: literals.map(DocText::from_lines),
            pieces,
        }
    }
}
