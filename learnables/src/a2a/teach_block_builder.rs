//! Building the teach block a question carries: typed, from a learnable,
//! so that a suggestion can only name one of its fields with a value of
//! the field's type; or untyped, from a descriptor, refusing any other key.

use std::fmt::Display;
use std::marker::PhantomData;

use serde_json::{Map, Value};

use crate::field_ref::FieldRef;
use crate::learnable::Learnable;
use crate::wire::{LearnableDescriptor, TeachBlock};

/// A teach block for learnable `T`, built field by field.
///
/// ```
/// use learnables::{Choice, Learnable, TeachBlock};
/// # #[derive(Learnable)]
/// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
/// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
/// # struct RoutingRule { #[learnable(label = "HS chapter")] chapter: u8,
/// #     #[learnable(label = "Desk")] desk: Desk }
/// # #[derive(Choice)] enum Desk { General, ColdChain }
/// let block = TeachBlock::builder::<RoutingRule>(["85"])
///     .suggest(RoutingRule::FIELDS.chapter, 85)
///     .suggest(RoutingRule::FIELDS.desk, Desk::ColdChain)
///     .suggestion_label("Chapter 84 goes there too")
///     .build();
/// assert_eq!(
///     serde_json::to_value(&block).unwrap(),
///     serde_json::json!({
///         "collection": "routing_rules", "entries": ["85"],
///         "suggested": {"chapter": "85", "desk": "cold-chain"},
///         "suggestionLabel": "Chapter 84 goes there too"
///     })
/// );
/// ```
#[derive(Debug, Clone)]
pub struct TeachBlockBuilder<T> {
    block: TeachBlock,
    _learnable: PhantomData<fn() -> T>,
}

impl TeachBlock {
    /// A typed builder for learnable `T`'s block about `entries`.
    pub fn builder<T: Learnable>(
        entries: impl IntoIterator<Item = impl Into<String>>,
    ) -> TeachBlockBuilder<T> {
        TeachBlockBuilder {
            block: TeachBlock::new(T::descriptor().collection.clone(), entries),
            _learnable: PhantomData,
        }
    }

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

impl<T: Learnable> TeachBlockBuilder<T> {
    /// Suggests `value` for `field`, written as the field's lesson value
    /// (its `Display` form, as a form sends it).
    pub fn suggest<V: Display>(mut self, field: FieldRef<T, V>, value: V) -> Self {
        self.block
            .suggested
            .get_or_insert_with(Map::new)
            .insert(field.name().to_owned(), Value::String(value.to_string()));
        self
    }

    /// Suggests every field of `value`.
    pub fn suggest_all(mut self, value: &T) -> Self {
        let suggested = self.block.suggested.get_or_insert_with(Map::new);
        if let Value::Object(fields) = value.to_lesson_value().into_json() {
            suggested.extend(fields);
        }
        self
    }

    /// Says where the suggestion came from.
    pub fn suggestion_label(mut self, label: impl Into<String>) -> Self {
        self.block.suggestion_label = Some(label.into());
        self
    }

    /// Includes the learnable's lesson fields in the block, for clients
    /// that did not read the agent card.
    pub fn with_lesson_fields(mut self) -> Self {
        self.block.lesson_fields = Some(T::descriptor().lesson_fields.clone());
        self
    }

    /// The block.
    pub fn build(self) -> TeachBlock {
        self.block
    }
}

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

/// A suggestion for a key that is not one of the learnable's fields.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{key}` is not a lesson field of `{collection}`{hint}; its fields are: {fields}")]
pub struct UnknownField {
    key: String,
    collection: String,
    hint: String,
    fields: String,
}

impl UnknownField {
    pub(crate) fn new(key: &str, descriptor: &LearnableDescriptor) -> UnknownField {
        let names = descriptor
            .lesson_fields
            .iter()
            .map(|field| field.name.as_str());
        UnknownField {
            key: crate::lesson_error::shortened(key),
            collection: descriptor.collection.clone(),
            hint: learnables_rules::closest(key, names.clone())
                .map(|near| format!(" (did you mean `{near}`?)"))
                .unwrap_or_default(),
            fields: names.collect::<Vec<_>>().join(", "),
        }
    }
}

impl UntypedTeachBlockBuilder<'_> {
    /// Suggests `value` for the field `key`; refused if the learnable has
    /// no such field.
    pub fn suggest(mut self, key: &str, value: impl Into<Value>) -> Result<Self, UnknownField> {
        if self.descriptor.field(key).is_none() {
            return Err(UnknownField::new(key, self.descriptor));
        }
        self.block
            .suggested
            .get_or_insert_with(Map::new)
            .insert(key.to_owned(), value.into());
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
