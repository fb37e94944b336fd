//! [`FieldChange`]: what one version of an entry changed from the one
//! before, field by field, in the learnable's own terms (each field's
//! label, and its value as the lesson form shows it).

use serde::{Deserialize, Serialize};

use crate::LessonField;

/// One field whose value differs between two versions of an entry: its
/// label and its value before and after, as the lesson form shows them
/// (`None` where the field has no value: the entry was absent, retracted,
/// or the field was left empty).
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables_knowledge::{FieldChange, field_changes};
/// use learnables::{FieldKind, LessonField};
/// let desk = |value: &str| vec![LessonField::new("desk", "Desk", FieldKind::TEXT).with_default(value)];
/// let changes = field_changes(Some(&desk("general")), Some(&desk("perishables")));
/// let [FieldChange { name, label, before, after, .. }] = &changes[..] else { panic!() };
/// assert_eq!((name.as_str(), label.as_str()), ("desk", "Desk"));
/// assert_eq!((before.as_deref(), after.as_deref()), (Some("general"), Some("perishables")));
/// assert!(field_changes(Some(&desk("general")), Some(&desk("general"))).is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FieldChange {
    /// The field's key in a lesson value (for code; a person reads `label`).
    pub name: String,
    /// The field's label, as the lesson form shows it.
    pub label: String,
    /// The value before, as the form shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The value after, as the form shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// The fields whose values differ between two versions, each shown as its
/// learnable shows it ([`Learnable::lesson_fields_as_learned`](crate::Learnable::lesson_fields_as_learned),
/// `None` for a version in which the entry is absent), in the order of
/// `after`'s fields, then any only `before` has.
pub fn field_changes(
    before: Option<&[LessonField]>,
    after: Option<&[LessonField]>,
) -> Vec<FieldChange> {
    let before = before.unwrap_or_default();
    let after = after.unwrap_or_default();
    let value_in = |fields: &[LessonField], name: &str| {
        fields
            .iter()
            .find(|field| field.name == name)
            .and_then(|field| field.default.clone())
    };
    let mut changes: Vec<FieldChange> = Vec::new();
    for field in after.iter().chain(before) {
        if changes.iter().any(|change| change.name == field.name) {
            continue;
        }
        let (was, is) = (value_in(before, &field.name), value_in(after, &field.name));
        if was != is {
            changes.push(FieldChange {
                name: field.name.clone(),
                label: field.label.clone(),
                before: was,
                after: is,
            });
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FieldKind;

    fn fields(values: &[(&str, Option<&str>)]) -> Vec<LessonField> {
        values
            .iter()
            .map(|(name, value)| {
                let field = LessonField::new(*name, name.to_uppercase(), FieldKind::TEXT);
                match value {
                    Some(value) => field.with_default(*value),
                    None => field,
                }
            })
            .collect()
    }

    #[test]
    fn only_fields_that_differ_are_listed_each_once() {
        let before = fields(&[("desk", Some("general")), ("floor", Some("2"))]);
        let after = fields(&[("desk", Some("general")), ("floor", None)]);
        let changes = field_changes(Some(&before), Some(&after));
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].label, "FLOOR");
        assert_eq!(
            (changes[0].before.as_deref(), changes[0].after.as_deref()),
            (Some("2"), None)
        );
    }

    #[test]
    fn an_absent_side_has_no_values() {
        let after = fields(&[("desk", Some("general")), ("floor", None)]);
        let taught = field_changes(None, Some(&after));
        assert_eq!(taught.len(), 1);
        assert_eq!(taught[0].before, None);
        let retracted = field_changes(Some(&after), None);
        assert_eq!(retracted[0].after, None);
        assert_eq!(retracted[0].before.as_deref(), Some("general"));
    }
}
