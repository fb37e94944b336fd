//! Reading attribute values, each with an error that shows the form the
//! key takes (darling's own say only "Unexpected type `int`").

use darling::FromMeta;
use darling::util::Flag;
use syn::{Expr, ExprLit, Lit, LitStr, Meta, Path};

/// The key's name, for messages.
fn key(item: &Meta) -> String {
    item.path()
        .get_ident()
        .map_or_else(|| "this key".to_owned(), ToString::to_string)
}

/// The value of `key = value`, through any invisible group a `macro_rules!`
/// expansion wraps it in.
fn value(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(group) => value(&group.expr),
        other => other,
    }
}

/// `key = "..."`.
pub fn text(item: &Meta) -> darling::Result<Option<LitStr>> {
    let key = key(item);
    let form = format!("write `{key} = \"...\"`");
    match item {
        Meta::NameValue(pair) => match value(&pair.value) {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) => Ok(Some(text.clone())),
            other => Err(darling::Error::custom(format!(
                "`{key}` takes a string in double quotes: {form}"
            ))
            .with_span(other)),
        },
        Meta::Path(path) => {
            Err(darling::Error::custom(format!("`{key}` needs a value: {form}")).with_span(path))
        }
        Meta::List(list) => Err(darling::Error::custom(format!(
            "`{key}` takes one string, not a list: {form}"
        ))
        .with_span(&list.path)),
    }
}

/// `key = "..."` of a key that may be given more than once (`alias`),
/// for darling's `multiple`.
pub struct Text(pub LitStr);

impl FromMeta for Text {
    fn from_meta(item: &Meta) -> darling::Result<Text> {
        text(item).map(|text| Text(text.expect("`text` reads a value or fails")))
    }
}

/// The strings of `key("...", "...")`, with the span of the parentheses.
pub struct Texts {
    pub items: Vec<LitStr>,
    pub span: proc_macro2::Span,
}

/// `key("...", "...")`.
pub fn texts(item: &Meta) -> darling::Result<Option<Texts>> {
    let key = key(item);
    let form = format!("write `{key}(\"...\", \"...\")`");
    let list = match item {
        Meta::List(list) => list,
        Meta::NameValue(pair) => {
            return Err(darling::Error::custom(format!(
                "`{key}` takes a list of strings in parentheses: {form}"
            ))
            .with_span(&pair.value));
        }
        Meta::Path(path) => {
            return Err(darling::Error::custom(format!(
                "`{key}` needs a list of strings in parentheses: {form}"
            ))
            .with_span(path));
        }
    };
    let items = list
        .parse_args_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)?;
    let mut errors = darling::Error::accumulator();
    let mut texts = Vec::new();
    for item in &items {
        match value(item) {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) => texts.push(text.clone()),
            other => errors.push(
                darling::Error::custom(format!(
                    "`{key}(...)` takes strings in double quotes: {form}"
                ))
                .with_span(other),
            ),
        }
    }
    errors.finish_with(Some(Texts {
        items: texts,
        span: list.delimiter.span().join(),
    }))
}

/// `key = path::to::item` or `key = "path::to::item"`.
pub fn path(item: &Meta) -> darling::Result<Option<Path>> {
    let key = key(item);
    let form = format!("write `{key} = path::to::item` or `{key} = \"path::to::item\"`");
    match item {
        Meta::NameValue(pair) => match value(&pair.value) {
            Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => {
                Ok(Some(path.path.clone()))
            }
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) => text.parse().map(Some).map_err(|_| {
                darling::Error::custom(format!("{:?} is not a path: {form}", text.value()))
                    .with_span(text)
            }),
            other => Err(
                darling::Error::custom(format!("`{key}` takes a path: {form}")).with_span(other),
            ),
        },
        Meta::Path(path) => {
            Err(darling::Error::custom(format!("`{key}` needs a value: {form}")).with_span(path))
        }
        Meta::List(list) => Err(darling::Error::custom(format!(
            "`{key}` takes one path, not a list: {form}"
        ))
        .with_span(&list.path)),
    }
}

/// A bare `key`.
pub fn flag(item: &Meta) -> darling::Result<Flag> {
    match item {
        Meta::Path(_) => Flag::from_meta(item),
        Meta::NameValue(pair) => {
            let key = key(item);
            Err(
                darling::Error::custom(format!("`{key}` takes no value: write `{key}` alone"))
                    .with_span(&pair.value),
            )
        }
        Meta::List(list) => {
            let key = key(item);
            Err(
                darling::Error::custom(format!("`{key}` takes no value: write `{key}` alone"))
                    .with_span(&list.delimiter.span().join()),
            )
        }
    }
}

/// `key` alone (1) or `key = N` with N a whole number of 1 or more: how
/// many approvals `review` asks for.
pub fn count(item: &Meta) -> darling::Result<Option<u32>> {
    let key = key(item);
    let form = format!("write `{key}` alone for one, or `{key} = 2` for two");
    match item {
        Meta::Path(_) => Ok(Some(1)),
        Meta::NameValue(pair) => match value(&pair.value) {
            Expr::Lit(ExprLit {
                lit: Lit::Int(number),
                ..
            }) => match number.base10_parse::<u32>() {
                Ok(0) => Err(darling::Error::custom(format!(
                    "`{key} = 0` asks for no approval: leave `{key}` out for lessons learned as \
                     taught, or {form}"
                ))
                .with_span(number)),
                Ok(count) => Ok(Some(count)),
                Err(_) => Err(darling::Error::custom(format!(
                    "`{key}` takes a whole number of approvals from 1 to {}: {form}",
                    u32::MAX
                ))
                .with_span(number)),
            },
            other => Err(darling::Error::custom(format!(
                "`{key}` takes a whole number of approvals: {form}"
            ))
            .with_span(other)),
        },
        Meta::List(list) => Err(darling::Error::custom(format!(
            "`{key}` takes a number, not a list: {form}"
        ))
        .with_span(&list.path)),
    }
}

/// A bound of `range(...)` or `length(...)` as written: a whole number, a
/// number with a fraction (either maybe negative) or a string (a date).
#[derive(Clone)]
pub enum BoundLit {
    Whole(i128),
    Real(f64),
    Text(String),
}

/// `key(min = ..., max = ...)`, either bound optional, with their spans.
pub struct Bounds {
    pub min: Option<(BoundLit, proc_macro2::Span)>,
    pub max: Option<(BoundLit, proc_macro2::Span)>,
    pub span: proc_macro2::Span,
}

/// A literal bound, through a leading `-`.
fn bound(expr: &Expr) -> Option<BoundLit> {
    match value(expr) {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Int(int) => int.base10_parse().ok().map(BoundLit::Whole),
            Lit::Float(float) => float.base10_parse().ok().map(BoundLit::Real),
            Lit::Str(text) => Some(BoundLit::Text(text.value())),
            _ => None,
        },
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => match bound(expr)? {
            BoundLit::Whole(whole) => Some(BoundLit::Whole(-whole)),
            BoundLit::Real(real) => Some(BoundLit::Real(-real)),
            BoundLit::Text(_) => None,
        },
        _ => None,
    }
}

/// `key(min = ..., max = ...)`.
pub fn bounds(item: &Meta) -> darling::Result<Option<Bounds>> {
    use syn::spanned::Spanned as _;
    let key = key(item);
    let form = format!("write `{key}(min = 1, max = 10)`, or one of `min` and `max`");
    let list = match item {
        Meta::List(list) => list,
        Meta::NameValue(pair) => {
            return Err(darling::Error::custom(format!(
                "`{key}` takes its bounds in parentheses: {form}"
            ))
            .with_span(&pair.value));
        }
        Meta::Path(path) => {
            return Err(
                darling::Error::custom(format!("`{key}` needs its bounds: {form}")).with_span(path),
            );
        }
    };
    let pairs = list.parse_args_with(
        syn::punctuated::Punctuated::<syn::MetaNameValue, syn::Token![,]>::parse_terminated,
    )?;
    let mut errors = darling::Error::accumulator();
    let mut bounds = Bounds {
        min: None,
        max: None,
        span: list.delimiter.span().join(),
    };
    for pair in &pairs {
        let slot = if pair.path.is_ident("min") {
            &mut bounds.min
        } else if pair.path.is_ident("max") {
            &mut bounds.max
        } else {
            errors.push(
                darling::Error::custom(format!("`{key}` takes `min` and `max` only: {form}"))
                    .with_span(&pair.path),
            );
            continue;
        };
        if slot.is_some() {
            errors.push(
                darling::Error::custom(format!("this bound of `{key}` is given twice: keep one"))
                    .with_span(&pair.path),
            );
            continue;
        }
        match bound(&pair.value) {
            Some(value) => *slot = Some((value, pair.value.span())),
            None => errors.push(
                darling::Error::custom(format!(
                    "a bound of `{key}` is a number, or a date in double quotes: {form}"
                ))
                .with_span(&pair.value),
            ),
        }
    }
    if pairs.is_empty() {
        errors.push(
            darling::Error::custom(format!("`{key}` needs at least one bound: {form}"))
                .with_span(&bounds.span),
        );
    }
    errors.finish_with(Some(bounds))
}
