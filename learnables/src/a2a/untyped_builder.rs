//! A teach block built over a descriptor ([`UntypedTeachBlockBuilder`]),
//! for learnables without a Rust type: each suggestion checked, by key and
//! by value, against the descriptor's fields.

use serde_json::{Map, Value};

use super::suggestion::{RefusedSuggestion, check_by_descriptor};
use super::teach_block::TeachBlock;
use super::unknown_field::UnknownField;
use crate::LearnableDescriptor;

/// A teach block built over a descriptor, for learnables without a Rust type.
///
/// ```
/// use learnables::{FieldKind, LearnableDescriptor, LessonField, TeachBlock};
/// let descriptor = LearnableDescriptor::new("rates", "rate", "Which rate applies",
///     "A table kept by the tariff team", "rules")
///     .with_field(LessonField::new("rate", "Rate", FieldKind::TEXT));
/// let block = TeachBlock::builder_for(&descriptor, ["r1"]);
/// let block = block.suggest("rate", "4%").unwrap().build();
/// assert_eq!(block.suggested.unwrap()["rate"], "4%");
/// let refused = TeachBlock::builder_for(&descriptor, ["r1"]).suggest("rat", "4%").unwrap_err();
/// assert_eq!(
///     refused.to_string(),
///     "`rat` is not a lesson field of `rates` (did you mean `rate`?); its fields are: rate"
/// );
/// ```
#[derive(Debug, Clone)]
pub struct UntypedTeachBlockBuilder<'d> {
    block: TeachBlock,
    descriptor: &'d LearnableDescriptor,
}

impl TeachBlock {
    /// An untyped builder over a descriptor (one read from another agent's
    /// card, say): suggestions are checked against its fields.
    pub fn builder_for(
        descriptor: &LearnableDescriptor,
        entries: impl IntoIterator<Item = impl Into<String>>,
    ) -> UntypedTeachBlockBuilder<'_> {
        UntypedTeachBlockBuilder {
            block: TeachBlock::new(descriptor.collection.clone(), entries),
            descriptor,
        }
    }
}

impl UntypedTeachBlockBuilder<'_> {
    /// Suggests `value` for the field `key`; refused if the learnable has
    /// no such field, or would refuse the value
    /// ([`TeachBlock::check_suggestion`]).
    pub fn suggest(mut self, key: &str, value: impl Into<Value>) -> Result<Self, SuggestionError> {
        if self.descriptor.field(key).is_none() {
            return Err(SuggestionError::UnknownField(UnknownField::new(
                key,
                self.descriptor,
            )));
        }
        let mut one = TeachBlock::new(self.block.collection.clone(), self.block.entries.clone());
        one.suggested = Some(Map::from_iter([(key.to_owned(), value.into())]));
        check_by_descriptor(self.descriptor, one.parts()).map_err(SuggestionError::Refused)?;
        let suggested = self.block.suggested.get_or_insert_with(Map::new);
        suggested.extend(one.suggested.unwrap_or_default());
        Ok(self)
    }

    /// Says where the suggestion came from.
    pub fn suggestion_label(mut self, label: impl Into<String>) -> Self {
        self.block.suggestion_label = Some(label.into());
        self
    }

    /// The block.
    pub fn build(self) -> TeachBlock {
        self.block
    }
}

/// Why [`UntypedTeachBlockBuilder::suggest`] refused a suggestion.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SuggestionError {
    /// The learnable has no such field.
    #[error(transparent)]
    UnknownField(UnknownField),
    /// The learnable would refuse the value.
    #[error(transparent)]
    Refused(RefusedSuggestion),
}
