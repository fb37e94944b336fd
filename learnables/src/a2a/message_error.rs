//! Why a teach block could not be put on, or read from, an A2A message.

use super::suggestion::RefusedSuggestion;
use super::unknown_field::UnknownField;

/// Why a teach block could not be put on, or read from, a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MessageError {
    /// The message, its `metadata` or its `extensions` has the wrong shape.
    #[error("the message's {0} has the wrong shape: {1}")]
    Shape(&'static str, String),
    /// The teach block is not one.
    #[error("the message's teach block is not valid: {0}")]
    TeachBlock(String),
    /// The teach block suggests a key that is not one of its learnable's
    /// lesson fields.
    #[error("the teach block does not fit its learnable: {0}")]
    UnknownField(UnknownField),
    /// The teach block suggests a value its learnable would refuse: it
    /// never reaches a teacher.
    #[error("the teach block does not fit its learnable: {0}")]
    Suggestion(RefusedSuggestion),
}
