//! The `describes` template: literal text with `{field}` placeholders and
//! `{entry}` for the entry key; `[...]` a part written only when every
//! field in it has a value (an optional field's, a list's words); `{{`,
//! `}}`, `[[` and `]]` stand for braces and brackets.

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
    Field {
        ident: Ident,
    },
    Entry,
    /// `[...]`: written only when every field in it has a value.
    Part(Vec<TemplatePiece>),
}

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text written as is.
    Text(String),
    /// `{name}`: a field of the struct, or the entry key when `name` is `entry`.
    Placeholder(String),
    /// `[...]`: a part written only when its fields have values.
    Part(Vec<Piece>),
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
    /// A `[` with no `]` after it, or one inside another part.
    UnclosedPart { at: usize },
    /// A `]` with no `[` before it.
    UnopenedPart { at: usize },
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
            TemplateError::UnclosedPart { at } => write!(
                f,
                "unbalanced brackets in `describes`: the `[` at character {at} is never closed, \
                 or opens a part inside another (write `[[` for a literal bracket)"
            ),
            TemplateError::UnopenedPart { at } => write!(
                f,
                "unbalanced brackets in `describes`: the `]` at character {at} closes nothing \
                 (write `]]` for a literal bracket)"
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
    // The pieces before the open part, while one is open, and where it opened.
    let mut outer: Option<(Vec<Piece>, usize)> = None;
    let mut text = String::new();
    let mut chars = template.chars().enumerate().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '{' | '}' | '[' | ']' if chars.peek().is_some_and(|&(_, next)| next == c) => {
                chars.next();
                text.push(c);
            }
            '}' => return Err(TemplateError::Unopened { at }),
            '[' => {
                if outer.is_some() {
                    return Err(TemplateError::UnclosedPart { at });
                }
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                outer = Some((std::mem::take(&mut pieces), at));
            }
            ']' => {
                let Some((before, _)) = outer.take() else {
                    return Err(TemplateError::UnopenedPart { at });
                };
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                let part = std::mem::replace(&mut pieces, before);
                pieces.push(Piece::Part(part));
            }
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
    if let Some((_, at)) = outer {
        return Err(TemplateError::UnclosedPart { at });
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
    let mut named = false;
    let resolved = resolve(pieces, fields, describes, false, &mut named, &mut errors);
    if !named {
        errors.push(
            darling::Error::custom(
                "`describes` names no field and not `{entry}`: it would say the same of every \
                 entry; name what makes this one what it is, as in \"Chapter {chapter} goes to \
                 the {desk} desk\"",
            )
            .with_span(describes),
        );
    }
    errors.finish_with(resolved)
}

/// The pieces resolved to fields (`in_part`: inside `[...]`); `named`
/// set when one names a field or the entry.
fn resolve(
    pieces: Vec<Piece>,
    fields: &[Field],
    describes: &LitStr,
    in_part: bool,
    named: &mut bool,
    errors: &mut darling::error::Accumulator,
) -> Vec<TemplatePiece> {
    let names: Vec<String> = fields.iter().map(|f| f.ident.unraw().to_string()).collect();
    let mut resolved = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => resolved.push(TemplatePiece::Text(text)),
            Piece::Part(part) => {
                let mut part_named = false;
                let part = resolve(part, fields, describes, true, &mut part_named, errors);
                if !part
                    .iter()
                    .any(|piece| matches!(piece, TemplatePiece::Field { .. }))
                {
                    errors.push(
                        darling::Error::custom(
                            "a `[...]` part of `describes` names no field: it is written only \
                             when its fields have values, so name one (`[ (deputy: \
                             {deputy})]`), or drop the brackets",
                        )
                        .with_span(describes),
                    );
                }
                *named |= part_named;
                resolved.push(TemplatePiece::Part(part));
            }
            Piece::Placeholder(name) if name == "entry" => {
                if names.iter().any(|n| n == "entry") {
                    errors.push(
                        darling::Error::custom(
                            "`{entry}` in `describes` is the lesson's entry, and this struct has \
                             a field named `entry` too: give the field another Rust name (its \
                             lesson name stays with #[learnable(rename = \"entry\")]) and write \
                             `{that_name}` for its value, `{entry}` for the entry",
                        )
                        .with_span(describes),
                    );
                }
                *named = true;
                resolved.push(TemplatePiece::Entry);
            }
            Piece::Placeholder(name) => match names.iter().position(|n| *n == name) {
                Some(index) => {
                    let field = &fields[index];
                    if field.optional && !in_part {
                        errors.push(
                            darling::Error::custom(format!(
                                "`{{{name}}}` in `describes` is an optional field: put it and \
                                 the words that go with it in `[...]`, as in `[ ({name}: \
                                 {{{name}}})]`, so that they are left out when it has no value"
                            ))
                            .with_span(describes),
                        );
                    }
                    *named = true;
                    resolved.push(TemplatePiece::Field {
                        ident: field.ident.clone(),
                    });
                }
                None => {
                    // Meant for a field: "names nothing" would only repeat it.
                    *named = true;
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
    resolved
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
    fn brackets_make_a_part_and_doubled_ones_are_literal() {
        assert_eq!(
            parse("{entry}[ (deputy: {deputy})] [[x]]").unwrap(),
            vec![
                Piece::Placeholder("entry".into()),
                Piece::Part(vec![
                    Piece::Text(" (deputy: ".into()),
                    Piece::Placeholder("deputy".into()),
                    Piece::Text(")".into()),
                ]),
                Piece::Text(" [x]".into()),
            ]
        );
        assert_eq!(parse("a [b"), Err(TemplateError::UnclosedPart { at: 2 }));
        assert_eq!(parse("a ]"), Err(TemplateError::UnopenedPart { at: 2 }));
        assert_eq!(parse("[a [b]]"), Err(TemplateError::UnclosedPart { at: 3 }));
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
