//! The refusal of a teach block's suggestion for a key that is not one of
//! its learnable's lesson fields.

use crate::LearnableDescriptor;

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
            key: crate::shared::shortened(key),
            collection: descriptor.collection.clone(),
            hint: learnables_rules::closest(key, names.clone())
                .map(|near| format!(" (did you mean `{near}`?)"))
                .unwrap_or_default(),
            fields: names.collect::<Vec<_>>().join(", "),
        }
    }
}
