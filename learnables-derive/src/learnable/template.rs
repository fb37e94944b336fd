//! The `describes` template: literal text with `{field}` placeholders and
//! `{entry}` for the entry key; `{{` and `}}` stand for braces.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{Ident, LitStr, Path};

use super::attrs::StructAttrs;
use super::field::Field;

/// How the learnable phrases what it learned.
pub enum Describes {
    /// A `describes` template, parsed; placeholders resolved.
    Template(Vec<TemplatePiece>),
    /// A `describes_with` function.
    With(Path),
}

/// A template piece with its placeholder resolved.
pub enum TemplatePiece {
    Text(String),
    Field { ident: Ident },
    Entry,
}

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text written as is.
    Text(String),
    /// `{name}`: a field of the struct, or the entry key when `name` is `entry`.
    Placeholder(String),
}

/// Why a template does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    /// A `{` with no `}` after it.
    Unclosed { at: usize },
    /// A `}` with no `{` before it.
    Unopened { at: usize },
    /// `{}` or a placeholder that is not an identifier.
    BadPlaceholder { text: String },
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateError::Unclosed { at } => write!(
                f,
                "unbalanced braces in `describes`: the `{{` at character {at} is never closed \
                 (write `{{{{` for a literal brace)"
            ),
            TemplateError::Unopened { at } => write!(
                f,
                "unbalanced braces in `describes`: the `}}` at character {at} closes nothing \
                 (write `}}}}` for a literal brace)"
            ),
            TemplateError::BadPlaceholder { text } => write!(
                f,
                "`{{{text}}}` in `describes` is not a placeholder: write a field's name, as in \
                 `{{chapter}}`, or `{{entry}}` for the entry key"
            ),
        }
    }
}

/// Parses a template into pieces.
pub fn parse(template: &str) -> Result<Vec<Piece>, TemplateError> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = template.chars().enumerate().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '{' if chars.peek().is_some_and(|&(_, next)| next == '{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek().is_some_and(|&(_, next)| next == '}') => {
                chars.next();
                text.push('}');
            }
            '}' => return Err(TemplateError::Unopened { at }),
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some((_, '}')) => break,
                        Some((_, '{')) | None => return Err(TemplateError::Unclosed { at }),
                        Some((_, c)) => name.push(c),
                    }
                }
                // `{r#type}` names the field `r#type` as `{type}` does.
                let trimmed = name.trim();
                let trimmed = trimmed.strip_prefix("r#").unwrap_or(trimmed);
                if !is_identifier(trimmed) {
                    return Err(TemplateError::BadPlaceholder { text: name });
                }
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Placeholder(trimmed.to_owned()));
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first == '_' || first.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// `describes` or `describes_with`, checked: a template's placeholders
/// resolved to fields.
pub fn read_describes(
    attrs: &StructAttrs,
    fields: &[Field],
    anchor: Option<Span>,
) -> darling::Result<Option<Describes>> {
    match (&attrs.describes, &attrs.describes_with) {
        (Some(_), Some(with)) => Err(darling::Error::custom(
            "give `describes` (a template) or `describes_with` (a function), not both: \
             remove one",
        )
        .with_span(with)),
        (None, Some(with)) => Ok(Some(Describes::With(with.clone()))),
        (None, None) => match anchor {
            Some(anchor) => Err(darling::Error::custom(
                "missing `describes = \"...\"` (a phrasing such as \"Chapter {chapter} now goes \
                 to the {desk} desk\") or `describes_with = path::to::fn`: the spec has the \
                 learnable, not its field names, phrase what was learned",
            )
            .with_span(&anchor)),
            None => Ok(None),
        },
        (Some(describes), None) => {
            let pieces = parse(&describes.value())
                .map_err(|error| darling::Error::custom(error).with_span(describes))?;
            resolve_template(pieces, fields, describes)
                .map(|pieces| Some(Describes::Template(pieces)))
        }
    }
}

fn resolve_template(
    pieces: Vec<Piece>,
    fields: &[Field],
    describes: &LitStr,
) -> darling::Result<Vec<TemplatePiece>> {
    let mut errors = darling::Error::accumulator();
    let names: Vec<String> = fields.iter().map(|f| f.ident.unraw().to_string()).collect();
    let mut resolved = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => resolved.push(TemplatePiece::Text(text)),
            Piece::Placeholder(name) if name == "entry" => resolved.push(TemplatePiece::Entry),
            Piece::Placeholder(name) => match names.iter().position(|n| *n == name) {
                Some(index) => resolved.push(TemplatePiece::Field {
                    ident: fields[index].ident.clone(),
                }),
                None => {
                    let hint = learnables_rules::closest(&name, names.iter().map(String::as_str))
                        .map(|near| format!(" (did you mean `{{{near}}}`?)"))
                        .unwrap_or_default();
                    errors.push(
                        darling::Error::custom(format!(
                            "`{{{name}}}` in `describes` names no field{hint}; the fields are: \
                             {}, and `{{entry}}` is the entry key",
                            names.join(", ")
                        ))
                        .with_span(describes),
                    );
                }
            },
        }
    }
    errors.finish_with(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_placeholders() {
        assert_eq!(
            parse("Chapter {chapter} goes to {desk}").unwrap(),
            vec![
                Piece::Text("Chapter ".into()),
                Piece::Placeholder("chapter".into()),
                Piece::Text(" goes to ".into()),
                Piece::Placeholder("desk".into()),
            ]
        );
    }

    #[test]
    fn doubled_braces_are_literal() {
        assert_eq!(
            parse("{{x}} {entry}").unwrap(),
            vec![
                Piece::Text("{x} ".into()),
                Piece::Placeholder("entry".into())
            ]
        );
    }

    #[test]
    fn unbalanced_braces_are_errors() {
        assert_eq!(parse("a {b"), Err(TemplateError::Unclosed { at: 2 }));
        assert_eq!(parse("a } b"), Err(TemplateError::Unopened { at: 2 }));
        assert_eq!(parse("{a{b}"), Err(TemplateError::Unclosed { at: 0 }));
    }

    #[test]
    fn placeholders_must_be_names() {
        assert!(matches!(
            parse("{}"),
            Err(TemplateError::BadPlaceholder { .. })
        ));
        assert!(matches!(
            parse("{1x}"),
            Err(TemplateError::BadPlaceholder { .. })
        ));
        assert_eq!(
            parse("{ desk }").unwrap(),
            vec![Piece::Placeholder("desk".into())]
        );
    }

    #[test]
    fn raw_identifiers_name_their_field() {
        assert_eq!(
            parse("{r#type}{type}").unwrap(),
            vec![
                Piece::Placeholder("type".into()),
                Piece::Placeholder("type".into())
            ]
        );
    }
}
