//! A teach block's suggestion checked by value, before it reaches a
//! teacher: through the learnable's own parser when the agent has its
//! type, against its descriptor's fields ([`field_check`]) when the
//! learnable is another agent's. A suggestion is a prefill, so fields it
//! leaves out are not missing; every value it gives must be one the
//! learnable would take, for each entry the block names.

use std::fmt;

use serde_json::{Map, Value};

use crate::shared::shortened;
use learnables_core::field_check;

use crate::{Learnable, LearnableDescriptor, LessonProblem, LessonValue};

/// A suggestion the learnable refuses: every field at fault, each with why.
///
/// ```
/// use learnables::{FieldKind, LearnableDescriptor, LessonField, TeachBlock};
/// let rates = LearnableDescriptor::new("rates", "rate", "Which rate applies",
///     "A table kept by the tariff team", "rules")
///     .with_field(LessonField::new("band", "Band", FieldKind::CHOICE).with_choices(["low", "high"]));
/// let refused = TeachBlock::builder_for(&rates, ["r1"]).suggest("band", "urgent").unwrap_err();
/// assert_eq!(
///     refused.to_string(),
///     "the suggestion for `rates` is refused: Band: \"urgent\" is not one of the choices (low, high)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedSuggestion {
    collection: String,
    problems: Vec<LessonProblem>,
}

impl RefusedSuggestion {
    /// Each problem, one field at a time.
    pub fn problems(&self) -> &[LessonProblem] {
        &self.problems
    }

    /// The refusal in words, one line a field, for whoever made the
    /// suggestion (a model correcting its tool call): the field's key, its
    /// label and why.
    ///
    /// ```
    /// use learnables::{FieldKind, LearnableDescriptor, LessonField, TeachBlock};
    /// let rates = LearnableDescriptor::new("rates", "rate", "Which rate applies",
    ///     "A table kept by the tariff team", "rules")
    ///     .with_field(LessonField::new("band", "Band", FieldKind::CHOICE).with_choices(["low"]));
    /// let mut block = TeachBlock::new("rates", ["r1"]);
    /// block.suggested = Some(serde_json::from_str(r#"{"band": "top"}"#).unwrap());
    /// let refused = block.check_suggestion(&rates).unwrap_err();
    /// assert_eq!(refused.field_lines(), ["band: Band: \"top\" is not one of the choices (low)"]);
    /// ```
    pub fn field_lines(&self) -> Vec<String> {
        self.problems
            .iter()
            .map(|problem| match problem.field() {
                Some(field) => format!("{}: {}", shortened(field), problem.in_words()),
                None => problem.in_words(),
            })
            .collect()
    }
}

impl fmt::Display for RefusedSuggestion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let said: Vec<String> = self.problems.iter().map(LessonProblem::in_words).collect();
        write!(
            f,
            "the suggestion for `{}` is refused: {}",
            shortened(&self.collection),
            said.join("; ")
        )
    }
}

impl std::error::Error for RefusedSuggestion {}

/// A block's suggestion and the entries it is about: what is checked.
/// (The check takes the block's parts, not the block, so that the block's
/// module, which calls it, is the only one of the two to name the other.)
pub(crate) type Suggested<'a> = (Option<&'a Map<String, Value>>, &'a [String]);

/// The entries a suggestion is checked for: each of the block's, or none
/// (the value alone) when it names none.
fn entries_of(entries: &[String]) -> Vec<Option<&str>> {
    if entries.is_empty() {
        vec![None]
    } else {
        entries.iter().map(|entry| Some(entry.as_str())).collect()
    }
}

/// Checks `block`'s suggestion through `T`'s own parser, for each of its
/// entries: every problem but a field the suggestion leaves out.
pub(crate) fn check_typed<T: Learnable>(
    (suggested, entries): Suggested<'_>,
) -> Result<(), RefusedSuggestion> {
    let value = LessonValue::from(suggested.cloned().unwrap_or_default());
    let mut problems: Vec<LessonProblem> = Vec::new();
    for entry in entries_of(entries) {
        let parsed = match entry {
            Some(entry) => T::from_lesson_entry(entry, &value),
            None => T::from_lesson_value(&value),
        };
        let Err(error) = parsed else { continue };
        for problem in error.problems() {
            if !matches!(problem, LessonProblem::Missing { .. }) && !problems.contains(problem) {
                problems.push(problem.clone());
            }
        }
    }
    refused_if_any(&T::descriptor().collection, problems)
}

/// Checks `block`'s suggestion against `descriptor`'s fields: each key
/// one of them, each value one [`field_check`] accepts (`null` or a blank
/// text only for an optional field), and each entry a value of the
/// entry's key field, where there is one, agreeing with its suggestion.
pub(crate) fn check_by_descriptor(
    descriptor: &LearnableDescriptor,
    (suggested, entries): Suggested<'_>,
) -> Result<(), RefusedSuggestion> {
    let empty = Map::new();
    let suggested = suggested.unwrap_or(&empty);
    let mut problems = Vec::new();
    for (key, value) in suggested {
        let Some(field) = descriptor.field(key) else {
            problems.push(LessonProblem::UnknownField {
                field: shortened(key),
                known: descriptor
                    .lesson_fields
                    .iter()
                    .map(|field| field.name.clone())
                    .collect(),
            });
            continue;
        };
        let blank = match value {
            Value::Null => true,
            Value::String(text) => text.trim().is_empty(),
            _ => false,
        };
        if blank && crate::shared::may_be_left_out(field) {
            continue;
        }
        if let Value::Null = value {
            problems.push(LessonProblem::WrongType {
                field: field.name.clone(),
                label: field.label.clone(),
                found: "null",
            });
            continue;
        }
        if let Err(problem) = field_check::check(field, value) {
            problems.push(problem);
        }
    }
    if let Some(key) = descriptor
        .lesson_fields
        .iter()
        .find(|field| field.entry_key)
    {
        for entry in entries {
            if let Err(problem) = field_check::check(key, &Value::String(entry.clone())) {
                problems.push(LessonProblem::BadEntry {
                    field: key.name.clone(),
                    label: key.label.clone(),
                    entry: shortened(entry),
                    reason: problem.in_words(),
                });
            } else if let Some(given) = suggested.get(&key.name).and_then(text_of)
                && given.trim() != entry.trim()
            {
                problems.push(LessonProblem::EntryMismatch {
                    field: key.name.clone(),
                    label: key.label.clone(),
                    entry: shortened(entry),
                    value: shortened(&given),
                });
            }
        }
    }
    refused_if_any(&descriptor.collection, problems)
}

fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

fn refused_if_any(collection: &str, problems: Vec<LessonProblem>) -> Result<(), RefusedSuggestion> {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(RefusedSuggestion {
            collection: collection.to_owned(),
            problems,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{FieldBound, FieldKind, LessonField};

    fn limits() -> LearnableDescriptor {
        let mut amount = LessonField::new("amount", "Limit in euros", FieldKind::TEXT);
        amount.value_type = Some("integer".into());
        amount.maximum = Some(FieldBound::Number(1_000_000.into()));
        let broker = LessonField::new("broker", "Broker", FieldKind::TEXT).with_entry_key();
        let note = LessonField::new("note", "Note", FieldKind::TEXT).with_help("Optional.");
        LearnableDescriptor::new("limits", "broker", "How much", "A fixed amount", "rules")
            .with_field(broker)
            .with_field(amount)
            .with_field(note)
    }

    fn block(suggested: Value) -> crate::TeachBlock {
        let mut block = crate::TeachBlock::new("limits", ["kim"]);
        block.suggested = Some(serde_json::from_value(suggested).unwrap());
        block
    }

    fn check_by_descriptor(
        descriptor: &LearnableDescriptor,
        block: &crate::TeachBlock,
    ) -> Result<(), RefusedSuggestion> {
        super::check_by_descriptor(descriptor, (block.suggested.as_ref(), &block.entries))
    }

    #[test]
    fn a_value_past_a_bound_an_unknown_key_and_another_entry_are_refused_each() {
        let refused = check_by_descriptor(
            &limits(),
            &block(json!({"amount": 2_000_000, "owner": "x", "broker": "lee"})),
        )
        .unwrap_err();
        let fields: Vec<Option<&str>> = refused.problems().iter().map(|p| p.field()).collect();
        assert_eq!(fields, [Some("amount"), Some("owner"), Some("broker")]);
        assert_eq!(
            refused.field_lines()[0],
            "amount: Limit in euros: at most 1,000,000"
        );
    }

    #[test]
    fn a_partial_suggestion_and_a_left_out_optional_field_pass() {
        assert!(check_by_descriptor(&limits(), &block(json!({"amount": "5000"}))).is_ok());
        assert!(check_by_descriptor(&limits(), &block(json!({"note": null}))).is_ok());
        assert!(check_by_descriptor(&limits(), &block(json!({"amount": null}))).is_err());
    }
}
