//! The learnable as checked: every rule applied to the attributes, every
//! error collected, each on the narrowest token. What passes is a model the
//! code generator can trust.

use std::collections::HashMap;

use darling::FromDeriveInput;
use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{DeriveInput, Ident, LitStr, Path, Type};

use super::attrs::{FieldAttrs, StructAttrs};
use super::check::{self, not_blank};
use super::field::{Field, LessonField};
use super::field_type::{option_inner, vec_inner};
use super::template::{self, Describes};
use crate::case::RenameRule;
use crate::doc::Doc;
use crate::keys::{self, Keys};
use crate::shape;

/// The keys `#[learnable(...)]` takes, on the struct and on a field.
const KEYS: Keys = Keys {
    attribute: "learnable",
    item: &[
        "collection",
        "entry",
        "teaches",
        "how",
        "decided_by",
        "skills",
        "describes",
        "describes_with",
        "validate",
        "migrate",
        "rename_all",
        "review",
        "crate",
    ],
    member: &[
        "label",
        "help",
        "default",
        "rename",
        "kind",
        "skip",
        "entry_key",
        "alias",
        "range",
        "length",
        "pattern",
        "custom_kind",
    ],
    repeatable: &["alias"],
};

/// The kinds the library's clients know (the spec's two and `date`).
const KINDS: &[&str] = &["text", "choice", "date"];

/// A learnable struct, checked.
pub struct Learnable {
    pub ident: Ident,
    pub krate: Path,
    pub collection: LitStr,
    pub entry: LitStr,
    pub teaches: LitStr,
    pub how: LitStr,
    pub decided_by: LitStr,
    pub skills: Option<Vec<LitStr>>,
    pub describes: Describes,
    /// `validate = path`: a check across fields after parsing.
    pub validate: Option<Path>,
    /// `migrate = path`: what makes a stored value the type does not read
    /// into one it does.
    pub migrate: Option<Path>,
    pub fields: Vec<Field>,
    /// `review` / `review = N`: approvals each lesson needs (0: none).
    pub review: u32,
}

impl Learnable {
    /// Reads and checks the derive's input; every error at once.
    pub fn from_input(input: &DeriveInput) -> darling::Result<Learnable> {
        shape::require_named_struct(input, "Learnable")?;
        let mut errors = darling::Error::accumulator();
        errors.handle(shape::require_no_generics(
            input,
            "Learnable",
            "a learnable describes one collection, so its descriptor cannot vary with a type \
             parameter; remove the parameters",
        ));
        let (screened, key_errors) = keys::screen(input, &KEYS);
        let screened_out = screened.is_some();
        for error in key_errors {
            errors.push(error);
        }
        let attrs = StructAttrs::from_derive_input(screened.as_ref().unwrap_or(input));
        let Some(attrs) = errors.handle(attrs) else {
            return Err(errors.finish().expect_err("an error was just recorded"));
        };
        // A key left out was meant for something: checking the rest
        // without it would only report its absence again.
        if screened_out {
            return Err(errors.finish().expect_err("an error was just recorded"));
        }
        let anchor = attribute_span(input);
        if anchor.is_none() {
            errors.push(
                darling::Error::custom(
                    "#[derive(Learnable)] needs a #[learnable(...)] attribute on the struct, \
                     with `collection`, `entry`, `teaches`, `how`, `decided_by` and `describes` \
                     (see the `learnables` crate documentation for an example)",
                )
                .with_span(&input.ident),
            );
        }
        // A missing key is an error at the attribute; without the attribute,
        // its absence is the one error.
        let required = |value: &Option<LitStr>, key: &str, what: &str| match (value, anchor) {
            (Some(value), _) => Ok(Some(value.clone())),
            (None, Some(anchor)) => Err(darling::Error::custom(format!(
                "missing `{key} = \"...\"` in #[learnable(...)]: {what}"
            ))
            .with_span(&anchor)),
            (None, None) => Ok(None),
        };
        let collection = errors
            .handle(required(
                &attrs.collection,
                "collection",
                "the collection's name in the agent's knowledge",
            ))
            .flatten();
        let entry = errors
            .handle(required(
                &attrs.entry,
                "entry",
                "a singular noun for one member, such as \"routing rule\"",
            ))
            .flatten();
        let teaches = errors
            .handle(required(
                &attrs.teaches,
                "teaches",
                "what a person is deciding, in their words",
            ))
            .flatten();
        let how = errors
            .handle(required(
                &attrs.how,
                "how",
                "how the agent decides today, in prose (the spec forbids a placeholder)",
            ))
            .flatten();
        let decided_by = errors
            .handle(required(
                &attrs.decided_by,
                "decided_by",
                "who or what decides today: \"rules\", \"model\", \"hybrid\" or another word",
            ))
            .flatten();
        for (key, value, fix) in [
            (
                "`collection`",
                &collection,
                "name the collection in the agent's knowledge, such as \"routing_rules\"",
            ),
            (
                "`entry`",
                &entry,
                "write a singular noun for one member, such as \"routing rule\"",
            ),
            (
                "`teaches`",
                &teaches,
                "say what a person is deciding, such as \"Which desk handles a declaration\"",
            ),
            (
                "`decided_by`",
                &decided_by,
                "say who or what decides today: \"rules\", \"model\", \"hybrid\" or another word",
            ),
        ] {
            if let Some(value) = value {
                errors.handle(not_blank(value, key, fix));
            }
        }
        if let (Some(how), Some(teaches)) = (&how, &teaches) {
            errors.handle(check::how(how, teaches));
        }
        if let Some(teaches) = &teaches {
            errors.handle(check::teaches(teaches));
        }
        if let Some(skills) = &attrs.skills {
            errors.handle(check::skills(skills));
        }

        let rule = match &attrs.rename_all {
            Some(name) => match RenameRule::field_rule(&name.value()) {
                Some(rule) => Some(rule),
                None => {
                    let names = RenameRule::field_names();
                    let hint = learnables_rules::closest(&name.value(), names.iter().copied())
                        .map(|near| format!(" (did you mean {near:?}?)"))
                        .unwrap_or_default();
                    errors.push(
                        darling::Error::custom(format!(
                            "unknown `rename_all` rule {:?}{hint}; the rules, serde's, are: {}",
                            name.value(),
                            names.join(", ")
                        ))
                        .with_span(name),
                    );
                    None
                }
            },
            None => None,
        };
        let fields = read_fields(&attrs, rule, &mut errors);
        let describes = errors
            .handle(template::read_describes(&attrs, &fields, anchor))
            .flatten();

        let krate = attrs
            .krate
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::learnables));
        errors.finish()?;
        match (collection, entry, teaches, how, decided_by, describes) {
            (
                Some(collection),
                Some(entry),
                Some(teaches),
                Some(how),
                Some(decided_by),
                Some(describes),
            ) => Ok(Learnable {
                ident: attrs.ident,
                krate,
                collection,
                entry,
                teaches,
                how,
                decided_by,
                skills: attrs.skills.map(|skills| skills.items),
                describes,
                validate: attrs.validate,
                migrate: attrs.migrate,
                fields,
                review: attrs.review.unwrap_or(0),
            }),
            _ => {
                Err(darling::Error::custom("incomplete #[learnable(...)]").with_span(&attrs.ident))
            }
        }
    }
}

/// The span of the first `#[learnable(...)]`'s name, if there is one.
fn attribute_span(input: &DeriveInput) -> Option<Span> {
    input
        .attrs
        .iter()
        .find(|attr| attr.path().is_ident("learnable"))
        .map(|attr| attr.path().span())
}

fn read_fields(
    attrs: &StructAttrs,
    rule: Option<RenameRule>,
    errors: &mut darling::error::Accumulator,
) -> Vec<Field> {
    let Some(struct_fields) = attrs.data.as_ref().take_struct() else {
        return Vec::new();
    };
    let mut seen: HashMap<String, ()> = HashMap::new();
    // Every alias, with the name of the field it is an alias of.
    let mut aliases: Vec<(LitStr, String)> = Vec::new();
    let mut fields = Vec::new();
    let mut entry_key: Option<&Ident> = None;
    for field in struct_fields.fields {
        let Some(ident) = field.ident.clone() else {
            continue;
        };
        let (ty, optional) = match option_inner(&field.ty) {
            Some(inner) => (inner.clone(), true),
            None => (field.ty.clone(), false),
        };
        let (value_ty, list) = match vec_inner(&ty) {
            Some(inner) if !field.skip.is_present() => (inner.clone(), true),
            _ => (ty.clone(), false),
        };
        let lesson = if field.skip.is_present() {
            None
        } else {
            let lesson = read_lesson_field(field, &ident, &value_ty, list, rule, errors);
            let name_span = field
                .rename
                .as_ref()
                .map_or_else(|| ident.span(), LitStr::span);
            if seen.insert(lesson.name.clone(), ()).is_some() {
                errors.push(
                    darling::Error::custom(format!(
                        "two lesson fields are named `{}`: rename one with \
                         #[learnable(rename = \"...\")]",
                        lesson.name
                    ))
                    .with_span(&name_span),
                );
            }
            aliases.extend(
                lesson
                    .aliases
                    .iter()
                    .map(|alias| (alias.clone(), lesson.name.clone())),
            );
            Some(lesson)
        };
        let skip_default = if field.skip.is_present() {
            check::skipped_keys(field, errors);
            field
                .default
                .as_ref()
                .and_then(|default| match default.parse::<Path>() {
                    Ok(path) => Some(path),
                    Err(_) => {
                        errors.push(
                            darling::Error::custom(format!(
                                "on a skipped field, `default` names the function that makes its \
                                 value, as serde's does: write `default = \"path::to::function\"`; \
                                 {:?} is not a path",
                                default.value()
                            ))
                            .with_span(default),
                        );
                        None
                    }
                })
        } else {
            None
        };
        if field.skip.is_present()
            && let Some(alias) = field.alias.first()
        {
            errors.push(
                darling::Error::custom(
                    "a skipped field is no lesson field, so it has no earlier lesson name: \
                     remove `alias`, or `skip`",
                )
                .with_span(&alias.0),
            );
        }
        let is_key = field.entry_key.is_present();
        if is_key {
            let span = field.entry_key.span();
            if field.skip.is_present() {
                errors.push(
                    darling::Error::custom(
                        "a skipped field cannot be the entry's key: the key is a lesson field; \
                         remove `skip` or `entry_key`",
                    )
                    .with_span(&span),
                );
            } else if optional {
                errors.push(
                    darling::Error::custom(
                        "the entry's key cannot be optional: every lesson has an entry; make \
                         the field's type the key's type, without `Option`",
                    )
                    .with_span(&span),
                );
            } else if list {
                errors.push(
                    darling::Error::custom(
                        "the entry's key cannot be a list: a lesson is about one entry; make \
                         the field's type the key's type, without `Vec`",
                    )
                    .with_span(&span),
                );
            } else if let Some(first) = entry_key {
                errors.push(
                    darling::Error::custom(format!(
                        "the field `{first}` is already the entry's key: a lesson has one \
                         entry, so keep `entry_key` on one field"
                    ))
                    .with_span(&span),
                );
            } else {
                entry_key = field.ident.as_ref();
            }
        }
        fields.push(Field {
            ident,
            ty,
            value_ty,
            optional,
            list,
            entry_key: is_key && !field.skip.is_present() && !optional && !list,
            lesson,
            skip_default,
        });
    }
    check_aliases(&aliases, &seen, errors);
    // A name `rename` or `rename_all` replaced still reads in stored
    // versions, unless another field now answers to it.
    for field in &mut fields {
        let Some(lesson) = &mut field.lesson else {
            continue;
        };
        lesson.stored_names.retain(|name| {
            !seen.contains_key(name) && !aliases.iter().any(|(alias, _)| alias.value() == *name)
        });
    }
    fields
}

/// An alias names one field only: not a field's own name, not another's
/// alias, not blank.
fn check_aliases(
    aliases: &[(LitStr, String)],
    names: &HashMap<String, ()>,
    errors: &mut darling::error::Accumulator,
) {
    let mut taken: HashMap<String, &str> = HashMap::new();
    for (alias, field) in aliases {
        let text = alias.value();
        if errors
            .handle(not_blank(
                alias,
                "`alias`",
                "write the name the field had before, as stored versions and lessons spell it",
            ))
            .is_none()
        {
            continue;
        }
        if names.contains_key(&text) {
            let whose = if &text == field {
                "this field's own name: an alias is a name it had before".to_owned()
            } else {
                format!("the name of the lesson field `{text}`")
            };
            errors.push(
                darling::Error::custom(format!(
                    "the alias `{text}` is {whose}; a stored value holding it would read as two \
                     fields: remove the alias"
                ))
                .with_span(alias),
            );
        } else if let Some(first) = taken.insert(text.clone(), field) {
            errors.push(
                darling::Error::custom(format!(
                    "the alias `{text}` is given to `{first}` already: a stored value holding \
                     it can be read as one field only; keep it on one"
                ))
                .with_span(alias),
            );
        }
    }
}

fn read_lesson_field(
    field: &FieldAttrs,
    ident: &Ident,
    value_ty: &Type,
    list: bool,
    rule: Option<RenameRule>,
    errors: &mut darling::error::Accumulator,
) -> LessonField {
    let unrenamed = ident.unraw().to_string();
    let renamed = rule.map(|rule| rule.apply_to_field(&unrenamed));
    let name = match &field.rename {
        Some(rename) => {
            errors.handle(not_blank(
                rename,
                "`rename`",
                "write the lesson field's name, or leave `rename` out to use the field's",
            ));
            rename.value()
        }
        None => renamed.unwrap_or_else(|| unrenamed.clone()),
    };
    // The field's own name, which stored versions written before `rename`
    // or `rename_all` hold.
    let stored_names = if name == unrenamed {
        Vec::new()
    } else {
        vec![unrenamed]
    };
    let doc = Doc::read(&field.attrs);
    match (&field.label, &doc.known) {
        (Some(label), _) => {
            errors.handle(not_blank(
                label,
                "`label`",
                "write what a person sees beside the field, or leave `label` out to use the \
                 doc comment's first line",
            ));
        }
        (None, Some(known)) if known.label.is_empty() => {
            let why = if doc.pieces.is_empty() {
                "has no label"
            } else {
                "has no label: its doc comment is empty"
            };
            errors.push(
                darling::Error::custom(format!(
                    "the field `{name}` {why}; give it a doc comment whose first line is the \
                     label (`/// Label`) or #[learnable(label = \"...\")], or mark it \
                     #[learnable(skip)] if it is no lesson field"
                ))
                .with_span(ident),
            );
        }
        (None, _) => {}
    }
    if let Some(kind) = &field.kind
        && errors
            .handle(not_blank(
                kind,
                "`kind`",
                "write a kind such as \"date\", or leave `kind` out to have the field's type decide",
            ))
            .is_some()
        && !KINDS.contains(&kind.value().as_str())
    {
        let hint = learnables_rules::closest(&kind.value(), KINDS.iter().copied())
            .map(|near| format!(" (did you mean {near:?}?)"))
            .unwrap_or_default();
        errors.push(
            darling::Error::custom(format!(
                "unknown `kind` {:?}{hint}: the kinds are {}; for a kind of your own, which a \
                 client that does not know it shows as text, write `custom_kind = {:?}`",
                kind.value(),
                KINDS.join(", "),
                kind.value()
            ))
            .with_span(kind),
        );
    }
    if let (Some(_), Some(custom)) = (&field.kind, &field.custom_kind) {
        errors.push(
            darling::Error::custom("give `kind` or `custom_kind`, not both: remove one")
                .with_span(custom),
        );
    }
    if let Some(custom) = &field.custom_kind {
        errors.handle(not_blank(
            custom,
            "`custom_kind`",
            "write the kind's name, or leave `custom_kind` out to have the field's type decide",
        ));
    }
    match &field.default {
        Some(default) if list => errors.push(
            darling::Error::custom(
                "a list field takes no `default`: a lesson that leaves it out gives no items; \
                 remove `default`, or make the field one value",
            )
            .with_span(default),
        ),
        Some(default) => {
            errors.handle(check::default_parses(default, value_ty, &name));
        }
        None => {}
    }
    let checks = super::checks::read(field, &name, list, errors);
    LessonField {
        name,
        label: field.label.clone(),
        help: field.help.clone(),
        doc: doc.pieces,
        kind: field.kind.clone().or_else(|| field.custom_kind.clone()),
        default: field.default.clone(),
        aliases: field.alias.iter().map(|alias| alias.0.clone()).collect(),
        stored_names,
        checks,
    }
}
