//! The learnables methods' refusals as JSON-RPC errors: what
//! [`LearnablesService`](crate::a2a::LearnablesService) answers before and
//! after it asks the knowledge, and client text as a message repeats it.

use crate::Lesson;
use crate::a2a::json_rpc::{RpcError, codes, reasons};
use crate::knowledge::{StoreError, TeachError};
use crate::untrusted::{HiddenCharacter, Untrusted};

/// `error`, the refusal of `lesson`, logged with the authenticated
/// `principal`.
pub(in crate::a2a) fn refused(lesson: &Lesson, principal: &str, error: RpcError) -> RpcError {
    tracing::warn!(
        collection = %Untrusted::new(&lesson.collection),
        entry = %Untrusted::new(&lesson.entry),
        taught_by = %Untrusted::new(&lesson.taught_by),
        principal = %Untrusted::new(principal),
        reason = %Untrusted::new(&error.message),
        "lesson refused"
    );
    error
}

/// The refusal of a collection the agent has no learnable of: `message`,
/// then the ones it has.
pub(in crate::a2a) fn unknown_learnable(message: String, known: &[impl AsRef<str>]) -> RpcError {
    let known: Vec<&str> = known.iter().map(AsRef::as_ref).collect();
    let known = known.join(", ");
    RpcError::invalid_params("collection", format!("{message} {known}"))
        .because(reasons::LEARNABLE_UNKNOWN)
        .with_metadata("known", known)
}

/// Client text as an error message repeats it: escaped and bounded by the
/// one path all untrusted text takes ([`Untrusted`](crate::untrusted::Untrusted)).
pub(in crate::a2a) fn shown(text: &str) -> String {
    crate::untrusted::Untrusted::new(text)
        .max_chars(SHOWN_CHARS)
        .to_string()
}

/// How many characters of a client's text an error message repeats.
const SHOWN_CHARS: usize = 80;

/// The JSON-RPC error of a refused lesson.
pub(in crate::a2a) fn teach_error(error: &TeachError) -> RpcError {
    match error {
        TeachError::UnknownCollection { collection, known } => unknown_learnable(
            format!(
                "this agent cannot be taught `{}`; it can be taught:",
                shown(collection)
            ),
            known,
        ),
        TeachError::EmptyEntry => RpcError::invalid_params("entry", error.to_string()),
        TeachError::NoTeacher => RpcError::invalid_params("taughtBy", error.to_string()),
        TeachError::HiddenCharacter(hidden) => hidden_character(hidden),
        TeachError::Lesson(lesson) => {
            let refusal = RpcError::new(codes::INVALID_PARAMS, error.to_string())
                .because(reasons::LESSON_INVALID);
            lesson.problems().iter().fold(refusal, |refusal, problem| {
                let field = problem
                    .field()
                    .map_or_else(|| "value".to_owned(), |field| format!("value.{field}"));
                // Beside the field, in the teacher's words (the message
                // names the keys, for the developer).
                refusal.at_field(&field, problem.in_words())
            })
        }
        TeachError::UnknownEntry { collection, entry } => RpcError::invalid_params(
            "entry",
            format!(
                "`{}` has never been taught the entry `{}`",
                shown(collection),
                shown(entry)
            ),
        ),
        TeachError::UnknownVersion {
            entry, version_id, ..
        } => RpcError::invalid_params(
            "versionId",
            format!(
                "the entry `{}` has no version `{}`",
                shown(entry),
                shown(version_id)
            ),
        ),
        TeachError::UnknownProposal {
            entry, proposal_id, ..
        } => RpcError::new(
            codes::NOT_FOUND,
            format!(
                "the entry `{}` has no proposal `{}`",
                shown(entry),
                shown(proposal_id)
            ),
        )
        .because(crate::knowledge::review_reasons::PROPOSAL_NOT_FOUND),
        TeachError::ProposalClosed { proposal_id, how } => RpcError::new(
            codes::INVALID_PARAMS,
            format!(
                "the proposal `{}` is closed: {}",
                shown(proposal_id),
                shown(how)
            ),
        )
        .because(crate::knowledge::review_reasons::PROPOSAL_CLOSED),
        TeachError::SelfApproval { .. } => RpcError::new(
            codes::FORBIDDEN,
            "a proposal needs the approval of a teacher other than its author",
        )
        .because(crate::knowledge::review_reasons::SELF_APPROVAL),
        TeachError::AlreadyApproved { .. } => RpcError::new(
            codes::FORBIDDEN,
            "you have approved this proposal already: it needs another teacher's approval",
        )
        .because(crate::knowledge::review_reasons::ALREADY_APPROVED),
        TeachError::StaleProposal { changed, .. } => RpcError::new(
            codes::INVALID_PARAMS,
            format!(
                "the proposal is stale and cannot be approved: {}",
                shown(changed)
            ),
        )
        .because(crate::knowledge::review_reasons::PROPOSAL_STALE),
        TeachError::TooManyProposals { .. } => RpcError::new(
            codes::FORBIDDEN,
            crate::untrusted::escaped(&error.to_string()).into_owned(),
        )
        .because(crate::knowledge::review_reasons::TOO_MANY_PROPOSALS),
        TeachError::NoRejectionReason => RpcError::invalid_params("reason", error.to_string())
            .because(crate::knowledge::review_reasons::REJECTION_REASON_MISSING),
        TeachError::Store(store) => store_error(store),
        // The store's errors are open to new kinds of refusal.
        _ => RpcError::new(codes::INVALID_PARAMS, error.to_string()),
    }
}

/// Refuses a collection or entry that holds a character which does not
/// show as itself, naming the field and the character.
pub(in crate::a2a) fn hidden_characters(collection: &str, entry: &str) -> Result<(), RpcError> {
    HiddenCharacter::check("collection", collection)
        .and_then(|()| HiddenCharacter::check("entry", entry))
        .map_err(|hidden| hidden_character(&hidden))
}

/// The JSON-RPC error of a name holding a character that does not show as
/// itself: the field at fault, and the character in the metadata.
pub(in crate::a2a) fn hidden_character(hidden: &HiddenCharacter) -> RpcError {
    RpcError::invalid_params(hidden.field, hidden.to_string()).with_metadata(
        "character",
        format!("U+{:04X}", u32::from(hidden.character)),
    )
}

/// The JSON-RPC error of a store failure, as a client may read it: what
/// failed and whether the lesson was absorbed, never the store's own
/// message (which may name its files, its database or its host).
pub(in crate::a2a) fn store_error(error: &StoreError) -> RpcError {
    let reason = match error {
        StoreError::Open { .. } => "it could not be opened; the lesson was not absorbed",
        StoreError::Damaged(_) => "it is damaged; the lesson was not absorbed",
        StoreError::Conflict { .. } => {
            "another writer changed the knowledge first; the lesson was not absorbed, try again"
        }
        StoreError::Failed(_) => "reading or writing failed; the lesson was not absorbed",
        StoreError::OutcomeUnknown(_) => {
            "the write was not confirmed; the lesson may have been absorbed: read it back"
        }
        _ => "it failed; the lesson may have been absorbed: read it back",
    };
    RpcError::new(
        codes::INTERNAL_ERROR,
        format!("the knowledge store failed: {reason}"),
    )
    .because(reasons::STORE_FAILED)
}
