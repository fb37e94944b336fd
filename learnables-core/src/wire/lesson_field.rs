//! One field a lesson fills in: the spec's `LessonField`.

use serde::{Deserialize, Serialize};

use super::FieldKind;
use crate::validation::Report;

/// One input of a lesson: the spec's `LessonField`.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{FieldKind, LessonField};
/// let field = LessonField::new("desk", "Desk", FieldKind::CHOICE)
///     .with_choices(["general", "dangerous-goods"])
///     .with_default("general");
/// assert_eq!(
///     serde_json::to_value(&field).unwrap(),
///     serde_json::json!({"name": "desk", "label": "Desk", "kind": "choice",
///                        "choices": ["general", "dangerous-goods"], "default": "general"})
/// );
/// ```
///
/// It is `#[non_exhaustive]`, so that a field the spec adds is not a
/// breaking change: build one with [`LessonField::new`] and its `with_`
/// methods; its fields stay public to read and to set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LessonField {
    /// Key this field occupies in a lesson value.
    pub name: String,
    /// Human label rendered above the input.
    pub label: String,
    /// `text`, `choice`, or any other kind (rendered as text).
    pub kind: FieldKind,
    /// Permitted values; required when `kind` is `choice`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
    /// The value a form starts with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Help rendered with the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Ours, beside the spec's keys (`entryKey: true`, absent when false):
    /// the field is the entry's key, so a lesson's entry fills it when the
    /// value leaves it out, and a form that asks for the entry need not
    /// ask for it again. A client that does not know it shows the field
    /// as any other, and a value that gives it must agree with the entry.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub entry_key: bool,
    /// Ours, beside the spec's keys: what each of `choices` means, in the
    /// same order (`null` for one that says nothing), from the doc
    /// comments of a `Choice`'s variants; absent when none says anything.
    /// A client that does not know it shows the choices alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice_descriptions: Option<Vec<Option<String>>>,
    /// Ours, beside the spec's keys (`list: true`, absent when false): the
    /// field takes a list of items of its kind (a list of choices is a
    /// multi-select). In a lesson value it is a JSON array; a client that
    /// does not know the key shows a `text` or `choice` field, and the text
    /// it sends is read as one item a line ([`LIST_SEPARATOR`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub list: bool,
    /// Ours: the form of a `text` field's value where it is not free text
    /// (`valueType`: `integer`, `number` or `boolean`), so that a form and
    /// a schema can say so; absent for free text, choices and dates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_type: Option<String>,
    /// Ours: the least value a number or a date may take, inclusive (a JSON
    /// number for a number, the date's text for a date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<FieldBound>,
    /// Ours: the greatest value a number or a date may take, inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<FieldBound>,
    /// Ours: the fewest characters a text, or items a list, may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Ours: the most characters a text, or items a list, may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Ours: a regular expression (the `regex` crate's syntax) the whole
    /// text of each value must match; checked by the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

/// What separates the items of a list field in its text form: one item a
/// line, as a client that does not know `list` sends it.
pub const LIST_SEPARATOR: char = '\n';

/// A bound of a [`LessonField`]'s `minimum` or `maximum`: a number for a
/// number field, the text of a date for a date field.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::FieldBound;
/// let least: FieldBound = serde_json::from_str("100").unwrap();
/// assert_eq!(least, FieldBound::Number(100.into()));
/// let first: FieldBound = serde_json::from_str(r#""2026-01-01""#).unwrap();
/// assert_eq!(first, FieldBound::Text("2026-01-01".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FieldBound {
    /// A number's bound.
    Number(serde_json::Number),
    /// A date's (or another ordered text's) bound, in the field's text form.
    Text(String),
}

impl LessonField {
    /// A field with its required keys.
    pub fn new(name: impl Into<String>, label: impl Into<String>, kind: FieldKind) -> LessonField {
        LessonField {
            name: name.into(),
            label: label.into(),
            kind,
            choices: None,
            default: None,
            help: None,
            entry_key: false,
            choice_descriptions: None,
            list: false,
            value_type: None,
            minimum: None,
            maximum: None,
            min_length: None,
            max_length: None,
            pattern: None,
        }
    }

    /// Sets the permitted values.
    pub fn with_choices<I, S>(mut self, choices: I) -> LessonField
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.choices = Some(choices.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the default.
    pub fn with_default(mut self, default: impl Into<String>) -> LessonField {
        self.default = Some(default.into());
        self
    }

    /// Marks the field as the entry's key ([`LessonField::entry_key`]).
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{FieldKind, LessonField};
    /// let chapter = LessonField::new("chapter", "HS chapter", FieldKind::TEXT).with_entry_key();
    /// assert_eq!(serde_json::to_value(&chapter).unwrap()["entryKey"], true);
    /// let desk = LessonField::new("desk", "Desk", FieldKind::TEXT);
    /// assert!(serde_json::to_value(&desk).unwrap().get("entryKey").is_none());
    /// ```
    pub fn with_entry_key(mut self) -> LessonField {
        self.entry_key = true;
        self
    }

    /// Sets the help text.
    pub fn with_help(mut self, help: impl Into<String>) -> LessonField {
        self.help = Some(help.into());
        self
    }

    #[doc(hidden)]
    pub fn check(&self, report: &mut Report<'_>) {
        if learnables_rules::is_blank(&self.name) {
            report.at("name", "the name is empty; it needs a character");
        }
        if learnables_rules::is_blank(&self.label) {
            report.at(
                "label",
                "the label is empty; it needs at least one character",
            );
        }
        if learnables_rules::is_blank(self.kind.as_str()) {
            report.at(
                "kind",
                "the kind is empty; write `text`, `choice` or another kind",
            );
        }
        if let Some(problem) =
            learnables_rules::choices_problem(self.kind.as_str(), self.choices.as_deref())
        {
            let key = match problem {
                learnables_rules::ChoicesProblem::Blank(index) => format!("choices[{index}]"),
                _ => "choices".to_owned(),
            };
            report.at(&key, problem.to_string());
        }
        if let Some(default) = &self.default
            && let Some(problem) =
                learnables_rules::default_problem(default, self.choices.as_deref())
        {
            report.at("default", problem);
        }
    }
}
