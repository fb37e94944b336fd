//! One field a lesson fills in: the spec's `LessonField`.

use serde::{Deserialize, Serialize};

use super::FieldKind;

/// One input of a lesson: the spec's `LessonField`.
///
/// ```
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

    /// Sets the help text.
    pub fn with_help(mut self, help: impl Into<String>) -> LessonField {
        self.help = Some(help.into());
        self
    }
}
