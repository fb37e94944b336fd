//! The errors of opening knowledge, registering a learnable and teaching.

use super::{StoreError, UnreadableReport};
use crate::lesson_error::LessonError;
use crate::validation::Violations;

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
    /// A stored entry no longer parses as the registered type. No longer
    /// returned by `register`, which reports every stored version that
    /// does not read at once ([`KnowledgeError::Unreadable`]).
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
    /// Stored versions that do not read as their registered types: every
    /// one of them, grouped by cause, each cause with its fix.
    #[error("{0}")]
    Unreadable(UnreadableReport),
    /// The learnables a declaration declares and the ones a knowledge
    /// reads are not one list.
    #[error("the declaration and the knowledge disagree on `{collection}`: {disagreement}")]
    Disagrees {
        /// The collection.
        collection: String,
        /// How they disagree.
        disagreement: Disagreement,
    },
}

/// How a declaration and the knowledge it is served with disagree on a
/// collection. Each is found when the service is built, never by a refused
/// lesson.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Disagreement {
    /// Declared by hand (`Declaration::descriptor`) with no type registered
    /// for it: every lesson would be refused.
    #[error(
        "it is declared, but the knowledge has no type that reads it: declare it with \
         `Declaration::learnable::<T>()`, or register its type"
    )]
    NotReadable,
    /// Declared with another descriptor than the registered type's: the
    /// card would show fields the knowledge does not read.
    #[error(
        "it is declared with a descriptor other than its registered type's: declare it with \
         `Declaration::learnable::<T>()` of that type"
    )]
    OtherDescriptor,
    /// Registered in the knowledge but not declared: no one could teach it.
    #[error("the knowledge reads it, but the declaration does not declare it: declare it")]
    NotDeclared,
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
    /// A retraction or a revert names an entry the collection has never
    /// been taught.
    #[error("`{collection}` has never been taught the entry `{entry}`")]
    UnknownEntry {
        /// The collection.
        collection: String,
        /// The entry.
        entry: String,
    },
    /// A revert names a version that is not one of the entry's.
    #[error("the entry `{entry}` of `{collection}` has no version `{version_id}`")]
    UnknownVersion {
        /// The collection.
        collection: String,
        /// The entry.
        entry: String,
        /// The version asked for.
        version_id: String,
    },
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
