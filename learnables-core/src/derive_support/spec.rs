//! A learnable's description as the derive saw it, in `'static` data, and
//! the owned descriptor built from it once.

use crate::wire::{FieldBound, FieldKind, LearnableDescriptor, LessonField};

use serde_json::Value;

use super::plain::plain_text;
use crate::lesson_error::LessonProblem;

/// Reads a field's value from a lesson: what the probe hands the parser.
pub type ParseFn<T> = fn(&Value, &FieldSpec) -> Result<T, LessonProblem>;

/// A learnable as the derive saw it, in `'static` data.
#[derive(Debug)]
pub struct DescriptorSpec {
    /// `collection`.
    pub collection: &'static str,
    /// `entry`.
    pub entry: &'static str,
    /// `teaches`.
    pub teaches: &'static str,
    /// `how`.
    pub how: &'static str,
    /// `decided_by`.
    pub decided_by: &'static str,
    /// `skills(...)`, if given.
    pub skills: Option<&'static [&'static str]>,
    /// The lesson fields, in declaration order.
    pub fields: &'static [FieldSpec],
    /// `review` (1) or `review = N`: approvals each lesson needs; 0 for none.
    pub review: u32,
}

/// One lesson field as the derive saw it.
#[derive(Debug)]
pub struct FieldSpec {
    /// The key in a lesson value.
    pub name: &'static str,
    /// An explicit `label`.
    pub label: Option<&'static str>,
    /// An explicit `help`.
    pub help: Option<&'static str>,
    /// The field's doc comment, one entry per `#[doc]` attribute.
    pub doc: &'static [&'static str],
    /// The kind, from the field's type or an explicit `kind`.
    pub kind: FieldKind,
    /// The choices, when the field's type is a `Choice`.
    pub choices: Option<&'static [&'static str]>,
    /// What each choice means, when the field's type is a `Choice`.
    pub descriptions: Option<&'static [Option<&'static str>]>,
    /// An explicit `default`.
    pub default: Option<&'static str>,
    /// Marked `entry_key`: the lesson's entry fills it when the value
    /// leaves it out.
    pub entry_key: bool,
    /// Of an `Option` type: a lesson may leave it out.
    pub optional: bool,
    /// Of a `Vec` type: a list of values of its kind.
    pub list: bool,
    /// The descriptor's `valueType`, from the type.
    pub value_type: Option<&'static str>,
    /// `range(min = ...)`, else a whole-number type's least value.
    pub minimum: Option<Bound>,
    /// `range(max = ...)`, else a whole-number type's greatest value.
    pub maximum: Option<Bound>,
    /// `length(min = ...)`: characters of a text, items of a list.
    pub min_length: Option<u64>,
    /// `length(max = ...)`.
    pub max_length: Option<u64>,
    /// `pattern = "..."`.
    pub pattern: Option<&'static str>,
    /// Whether the field has a check its type's parser does not make
    /// (`range`, `length`, `pattern`): such a field's value is also
    /// checked against its descriptor ([`crate::field_check`]).
    pub checked: bool,
}

impl FieldSpec {
    /// A text field named `name`, labelled `label`, with nothing else.
    pub const fn text(name: &'static str, label: &'static str) -> FieldSpec {
        FieldSpec {
            name,
            label: Some(label),
            help: None,
            doc: &[],
            kind: FieldKind::TEXT,
            choices: None,
            descriptions: None,
            default: None,
            entry_key: false,
            optional: false,
            list: false,
            value_type: None,
            minimum: None,
            maximum: None,
            min_length: None,
            max_length: None,
            pattern: None,
            checked: false,
        }
    }
}

/// A bound of a field's `range`, in `'static` data.
#[derive(Debug, Clone, Copy)]
pub enum Bound {
    /// A whole number.
    Whole(i128),
    /// A number with a fraction.
    Real(f64),
    /// A date's text.
    Text(&'static str),
}

impl Bound {
    /// The bound of a whole-number type ([`FieldOps::least`](super::FieldOps)).
    pub const fn whole(bound: Option<i128>) -> Option<Bound> {
        match bound {
            Some(bound) => Some(Bound::Whole(bound)),
            None => None,
        }
    }

    fn field_bound(self) -> Option<FieldBound> {
        match self {
            Bound::Whole(whole) => i64::try_from(whole)
                .map(serde_json::Number::from)
                .ok()
                .or_else(|| u64::try_from(whole).ok().map(serde_json::Number::from))
                .map(FieldBound::Number),
            Bound::Real(real) => serde_json::Number::from_f64(real).map(FieldBound::Number),
            Bound::Text(text) => Some(FieldBound::Text(text.to_owned())),
        }
    }
}

/// What an optional field's help says.
pub const OPTIONAL: &str = "Optional.";

impl FieldSpec {
    fn doc_text(&self) -> learnables_rules::DocText {
        learnables_rules::DocText::from_lines(self.doc.iter())
    }

    /// The label: explicit, or the doc comment's first paragraph, its
    /// Markdown as plain text.
    pub(crate) fn label(&self) -> String {
        match self.label {
            Some(label) => label.to_owned(),
            None => plain_text(&self.doc_text().label),
        }
    }

    fn lesson_field(&self) -> LessonField {
        let help = match (self.label, self.help) {
            (_, Some(help)) => Some(help.to_owned()),
            // An explicit label replaces the whole doc comment only when the
            // doc comment is the label's source; otherwise the doc's rest is help.
            _ => self.doc_text().help.map(|help| plain_text(&help)),
        };
        // Said in the help, which every client shows (the spec's fields
        // have no other way to say it).
        let help = match help {
            Some(help) if self.optional => Some(format!("{help} {OPTIONAL}")),
            None if self.optional => Some(OPTIONAL.to_owned()),
            help => help,
        };
        LessonField {
            name: self.name.to_owned(),
            label: self.label(),
            kind: self.kind.clone(),
            choices: self
                .choices
                .map(|choices| choices.iter().map(|c| (*c).to_owned()).collect()),
            default: self.default.map(str::to_owned),
            help,
            entry_key: self.entry_key,
            choice_descriptions: self
                .descriptions
                .filter(|all| all.iter().any(Option::is_some))
                .map(|all| all.iter().map(|d| d.map(plain_text)).collect()),
            list: self.list,
            value_type: self.value_type.map(str::to_owned),
            minimum: self.minimum.and_then(Bound::field_bound),
            maximum: self.maximum.and_then(Bound::field_bound),
            min_length: self.min_length,
            max_length: self.max_length,
            pattern: self.pattern.map(str::to_owned),
        }
    }
}

/// Where a derived type keeps its descriptor, built on first use. Not
/// generic: every derived type shares this one piece of code rather than
/// instantiating `OnceLock::get_or_init` with a closure of its own.
#[derive(Debug)]
pub struct DescriptorCell(std::sync::OnceLock<LearnableDescriptor>);

impl DescriptorCell {
    /// An empty cell.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> DescriptorCell {
        DescriptorCell(std::sync::OnceLock::new())
    }

    /// The descriptor: built from `spec` on the first call, after `check`
    /// (the defaults the derive could not check) has run.
    #[inline]
    pub fn get(
        &'static self,
        spec: &'static DescriptorSpec,
        check: Option<fn()>,
    ) -> &'static LearnableDescriptor {
        self.0.get_or_init(|| {
            if let Some(check) = check {
                check();
            }
            build_descriptor(spec)
        })
    }
}

/// Builds the owned descriptor once, from the static spec.
fn build_descriptor(spec: &DescriptorSpec) -> LearnableDescriptor {
    LearnableDescriptor {
        collection: spec.collection.to_owned(),
        entry: spec.entry.to_owned(),
        skills: spec
            .skills
            .map(|skills| skills.iter().map(|s| (*s).to_owned()).collect()),
        teaches: spec.teaches.to_owned(),
        how: spec.how.to_owned(),
        decided_by: spec.decided_by.to_owned(),
        lesson_fields: spec.fields.iter().map(FieldSpec::lesson_field).collect(),
        review: crate::wire::ReviewRule::new(spec.review),
    }
}

/// Refuses, at the first use of `descriptor()`, a field's `default` that
/// its type does not parse (the derive checks the standard types at compile
/// time; it cannot parse others). A default is the author's, not a
/// teacher's: a wrong one is a bug in the agent, reported before any lesson
/// can meet it, naming the type and the field.
///
/// # Panics
///
/// When the default does not parse.
pub fn check_default<T>(spec: &DescriptorSpec, index: usize, parse: ParseFn<T>, type_name: &str) {
    let field = &spec.fields[index];
    let Some(default) = field.default else {
        return;
    };
    if let Err(problem) = parse(&serde_json::Value::String(default.to_owned()), field) {
        panic!(
            "#[derive(Learnable)] on `{type_name}`: the default {default:?} of the field `{}` is \
             not a value of its type ({problem}); write a value the type accepts",
            field.name
        );
    }
}

/// Why a field's type takes no `range` of these bounds, if it does not:
/// numbers need a number type, dates in quotes a date type.
pub const fn range_misfit(
    value_type: Option<&'static str>,
    kind: &'static str,
    dates: bool,
) -> Option<&'static str> {
    let date = kind.len() == 4 && matches!(kind.as_bytes(), b"date");
    match (value_type.is_some(), date, dates) {
        (true, _, false) | (_, true, true) => None,
        (_, true, false) => Some(
            "`range` of a date field takes dates in double quotes: write \
             `range(min = \"2026-01-01\")`",
        ),
        (true, _, true) => {
            Some("`range` of a number field takes numbers: write `range(min = 1, max = 10)`")
        }
        _ => Some(
            "`range` bounds a number or a date, and this field's type is neither: use `length` \
             to bound a text, or give the field a number or date type",
        ),
    }
}

/// Why a field's type takes no `length`, if it does not: it counts a
/// text's characters or a list's items.
pub const fn length_misfit(
    value_type: Option<&'static str>,
    choices: bool,
    list: bool,
) -> Option<&'static str> {
    if list || (value_type.is_none() && !choices) {
        None
    } else {
        Some(
            "`length` counts a text's characters or a list's items, and this field is a single \
             number or choice: use `range` for a number, or remove `length`",
        )
    }
}

/// Why a field's type takes no `pattern`, if it does not: it matches text.
pub const fn pattern_misfit(
    value_type: Option<&'static str>,
    choices: bool,
) -> Option<&'static str> {
    if value_type.is_none() && !choices {
        None
    } else {
        Some(
            "`pattern` matches free text, and this field is a number or a choice: use `range` \
             for a number, or remove `pattern`",
        )
    }
}
