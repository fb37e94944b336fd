//! The errors of opening knowledge, registering a learnable and teaching.

use super::StoreError;
use crate::{LessonError, Violations};

/// Why knowledge could not be opened or a learnable registered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum KnowledgeError {
    /// The back end failed or holds something unreadable.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A learnable's descriptor breaks the spec's rules.
    #[error("the learnable `{collection}` cannot be registered:\n{violations}")]
    InvalidLearnable {
        /// Its collection.
        collection: String,
        /// What is wrong.
        violations: Violations,
    },
    /// Another type is registered for the collection.
    #[error("the collection `{collection}` is already registered for the type `{registered}`")]
    CollectionTaken {
        /// The collection.
        collection: String,
        /// The type registered first.
        registered: &'static str,
    },
    /// A stored entry no longer parses as the registered type.
    #[error(
        "the stored entry `{entry}` of `{collection}` does not parse as the registered type \
         (was the type changed?): {error}"
    )]
    IncompatibleEntry {
        /// The collection.
        collection: String,
        /// The entry.
        entry: String,
        /// Why it does not parse.
        error: LessonError,
    },
    /// No version has that id.
    #[error("no version has the id `{0}`")]
    UnknownVersion(String),
}

/// Why a lesson was refused. A refused lesson changes nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TeachError {
    /// No learnable is registered for the lesson's collection.
    #[error("this agent cannot be taught `{collection}`; it can be taught: {}", known.join(", "))]
    UnknownCollection {
        /// The lesson's collection.
        collection: String,
        /// The collections it can be taught.
        known: Vec<String>,
    },
    /// The lesson names no entry.
    #[error("the lesson names no entry: `entry` must not be empty")]
    EmptyEntry,
    /// The lesson names no teacher.
    #[error("the lesson names no teacher: `taughtBy` must not be empty")]
    NoTeacher,
    /// The learnable refused the value.
    #[error(transparent)]
    Lesson(#[from] LessonError),
    /// The lesson could not be made durable: it was not absorbed, except
    /// when the error is [`StoreError::OutcomeUnknown`], whose lesson may
    /// have been absorbed (its message says so; a show-back tells).
    #[error("{}", store_message(.0))]
    Store(#[from] StoreError),
}

/// A store error as a teacher reads it: whether the lesson was absorbed.
fn store_message(error: &StoreError) -> String {
    match error {
        StoreError::OutcomeUnknown(_) => format!(
            "the lesson may have been absorbed: {error}; read the knowledge back to find out"
        ),
        _ => format!("the lesson was not absorbed: {error}"),
    }
}
