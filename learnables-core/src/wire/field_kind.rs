//! A lesson field's kind: the spec's open `kind` string.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A lesson field's `kind`: an open string, not an enumeration.
///
/// This version of the spec defines `text` and `choice`; any other kind is
/// kept exactly as received and, as the spec requires, rendered as text
/// (see [`FieldKind::rendering`]).
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{FieldKind, Rendering};
/// assert_eq!(FieldKind::CHOICE.rendering(), Rendering::Choice);
/// assert_eq!(FieldKind::new("date").rendering(), Rendering::Text);
/// assert_eq!(serde_json::to_string(&FieldKind::TEXT).unwrap(), r#""text""#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FieldKind(Cow<'static, str>);

/// How a renderer shows a field: the spec's two kinds. Every kind it does not
/// define renders as [`Rendering::Text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rendering {
    /// A free text input.
    Text,
    /// A pick from the field's `choices`.
    Choice,
}

impl FieldKind {
    /// The `text` kind: a free text input.
    pub const TEXT: FieldKind = FieldKind(Cow::Borrowed("text"));
    /// The `choice` kind: one of the field's `choices`.
    pub const CHOICE: FieldKind = FieldKind(Cow::Borrowed("choice"));

    /// A kind by name, for kinds this version of the spec does not define.
    pub fn new(kind: impl Into<Cow<'static, str>>) -> FieldKind {
        FieldKind(kind.into())
    }

    /// A kind from a static name, in a `const` context.
    pub const fn from_static(kind: &'static str) -> FieldKind {
        FieldKind(Cow::Borrowed(kind))
    }

    /// The kind as it appears on the wire.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the `choice` kind.
    pub fn is_choice(&self) -> bool {
        self.as_str() == "choice"
    }

    /// How to render the field: `choice` as a choice, everything else as text.
    pub fn rendering(&self) -> Rendering {
        if self.is_choice() {
            Rendering::Choice
        } else {
            Rendering::Text
        }
    }
}

impl fmt::Display for FieldKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
