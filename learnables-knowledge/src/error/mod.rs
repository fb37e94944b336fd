//! Every error of the knowledge: opening it and its back end failing
//! ([`StoreError`], with its [`StoreReason`]), registering a learnable,
//! teaching, and importing an export.

mod review_reason;
mod store_reason;

pub use review_reason::review_reasons;
pub use store_reason::StoreReason;

use crate::LessonError;
use crate::UnreadableReport;
use crate::Violations;

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
    /// The lesson's collection or entry holds a character that does not
    /// show as itself (a control, bidi or invisible character): no such
    /// name is stored.
    #[error(transparent)]
    HiddenCharacter(#[from] crate::untrusted::HiddenCharacter),
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
    /// No proposal of that entry has the id.
    #[error("the entry `{entry}` of `{collection}` has no proposal `{proposal_id}`")]
    UnknownProposal {
        /// The collection.
        collection: String,
        /// The entry.
        entry: String,
        /// The proposal asked for.
        proposal_id: String,
    },
    /// The proposal was decided already (learned, rejected, or closed as
    /// stale): `how` says which, in words.
    #[error("the proposal `{proposal_id}` is closed: {how}")]
    ProposalClosed {
        /// The proposal.
        proposal_id: String,
        /// How it was closed.
        how: String,
    },
    /// The author approving their own proposal: a proposal needs the
    /// approval of teachers other than its author.
    #[error(
        "{teacher} proposed `{proposal_id}` and cannot approve it: it needs the approval of          another teacher"
    )]
    SelfApproval {
        /// The proposal.
        proposal_id: String,
        /// Its author.
        teacher: String,
    },
    /// A lesson of a reviewed learnable while its teacher, or its entry,
    /// has as many proposals waiting as [`ProposalLimits`](crate::ProposalLimits)
    /// allow: nothing is proposed until some are decided.
    #[error(
        "{} has {limit} proposals waiting for review already, as many as the agent allows: \
         nothing more is proposed until some are decided",
        match of { ProposalsOf::Teacher => format!("the teacher {teacher}"),
                   ProposalsOf::Entry => format!("the entry `{entry}`") }
    )]
    TooManyProposals {
        /// Whose proposals reached the limit.
        of: ProposalsOf,
        /// The teacher of the lesson.
        teacher: String,
        /// The entry of the lesson.
        entry: String,
        /// The limit.
        limit: u32,
    },
    /// A teacher approving a proposal they approved already: each
    /// approval needed is another teacher's.
    #[error("{teacher} has approved `{proposal_id}` already: it needs another teacher's approval")]
    AlreadyApproved {
        /// The proposal.
        proposal_id: String,
        /// The teacher.
        teacher: String,
    },
    /// The proposal's entry changed since it was proposed: approving it
    /// would approve what nobody was shown. `changed` says what changed.
    #[error("the proposal `{proposal_id}` is stale and cannot be approved: {changed}")]
    StaleProposal {
        /// The proposal.
        proposal_id: String,
        /// What changed, in words.
        changed: String,
    },
    /// A rejection that does not say why.
    #[error("a rejection says why: `reason` must not be empty")]
    NoRejectionReason,
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

/// What went wrong in a back end. Each reason keeps the error that caused
/// it, if any (an I/O or a database error), as the error's
/// [`source`](std::error::Error::source): see [`StoreReason`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreError {
    /// The store could not be opened.
    Open {
        /// The directory, file or database.
        location: String,
        /// Why.
        reason: StoreReason,
    },
    /// What the store holds cannot be read back as it was written.
    Damaged(StoreReason),
    /// Another writer appended first; nothing was stored.
    Conflict {
        /// The position the refused group started at.
        expected: u64,
        /// The position of the store's last version.
        found: u64,
    },
    /// Reading or writing failed; nothing of the failed write was stored.
    Failed(StoreReason),
    /// The write was sent but its answer was lost (a connection dropped
    /// while the database committed, a back end that panicked or did not
    /// answer in time): it may have been stored. Read the knowledge again
    /// (a show-back, [`Knowledge::catch_up`](crate::Knowledge::catch_up))
    /// to find out.
    OutcomeUnknown(StoreReason),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Open { location, reason } => {
                write!(
                    f,
                    "the knowledge store at {location} cannot be opened: {reason}"
                )
            }
            StoreError::Damaged(reason) => write!(f, "the knowledge store is damaged: {reason}"),
            StoreError::Conflict { expected, found } => write!(
                f,
                "another writer changed the knowledge first (expected to write position \
                 {expected}, the store is at {found}); nothing was stored"
            ),
            StoreError::Failed(reason) => write!(f, "the knowledge store failed: {reason}"),
            StoreError::OutcomeUnknown(reason) => {
                write!(f, "the knowledge store did not confirm the write: {reason}")
            }
        }
    }
}

impl std::error::Error for StoreError {
    /// The error that caused it (an `io::Error`, a `postgres::Error`), if any.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Open { reason, .. }
            | StoreError::Damaged(reason)
            | StoreError::Failed(reason)
            | StoreError::OutcomeUnknown(reason) => reason.cause(),
            StoreError::Conflict { .. } => None,
        }
    }
}

/// Why [`Knowledge::import`](crate::Knowledge::import) refused a file.
/// Nothing of a refused file is stored.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file does not read as a whole export: the line at fault, and why.
    #[error("line {line} of the export: {reason}; nothing was imported")]
    Refused {
        /// The line, 1 for the first.
        line: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// A version the knowledge would not have been taught: its collection
    /// is not registered, a text is longer than a lesson's limit or breaks
    /// a rule for the field, or its value names another entry. The line,
    /// the field as the export names it (`collection`, `entry`,
    /// `taughtBy`, `reason`, `value`), and why.
    #[error("line {line} of the export, `{field}`: {reason}; nothing was imported")]
    Invalid {
        /// The line, 1 for the first.
        line: u64,
        /// The field at fault.
        field: &'static str,
        /// What is wrong with it; text from the file in it is escaped.
        reason: String,
    },
    /// Versions whose values do not read as their collections' registered
    /// types: the first one's line, and every one of them grouped by
    /// cause, each with its fix, as registering reports them for a store.
    #[error("line {line} of the export, `value`: {report}; nothing was imported")]
    Unreadable {
        /// The line of the first such version, 1 for the first line.
        line: u64,
        /// Every such version, grouped by cause.
        report: UnreadableReport,
    },
    /// The knowledge holds versions already: an export is imported into
    /// an empty one only.
    #[error(
        "the knowledge is not empty (it holds {versions} versions); import into an empty \
         store; nothing was imported"
    )]
    NotEmpty {
        /// How many versions it holds.
        versions: u64,
    },
    /// The file could not be read.
    #[error("the export could not be read: {0}; nothing was imported")]
    Io(#[from] std::io::Error),
    /// The back end could not store the versions.
    #[error("the versions could not be stored: {0}")]
    Store(#[from] StoreError),
}

/// Whose proposals reached a limit: see [`TeachError::TooManyProposals`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProposalsOf {
    /// The teacher's.
    Teacher,
    /// The entry's.
    Entry,
}
