//! A learnable's description as the derive saw it, in `'static` data, and
//! the owned descriptor built from it once.

use crate::wire::{FieldKind, LearnableDescriptor, LessonField};

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
            ..LessonField::new("", "", FieldKind::TEXT)
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
