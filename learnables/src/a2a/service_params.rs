//! The learnables methods' params read field by field, and their refusals
//! as JSON-RPC errors: what [`LearnablesService`](super::LearnablesService)
//! answers before and after it asks the knowledge.

use serde_json::Value;

use super::json_rpc::{RpcError, codes, reasons};
use crate::knowledge::{StoreError, TeachError};
use crate::untrusted::{HiddenCharacter, Untrusted};
use crate::{Lesson, LessonValue};

/// `error`, the refusal of `lesson`, logged with the authenticated
/// `principal`.
pub(super) fn refused(lesson: &Lesson, principal: &str, error: RpcError) -> RpcError {
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
pub(super) fn unknown_learnable(message: String, known: &[impl AsRef<str>]) -> RpcError {
    let known: Vec<&str> = known.iter().map(AsRef::as_ref).collect();
    let known = known.join(", ");
    RpcError::invalid_params("collection", format!("{message} {known}"))
        .because(reasons::LEARNABLE_UNKNOWN)
        .with_metadata("known", known)
}

/// Reads a `Lesson` from params, naming the field at fault. Keys a
/// lesson does not have are allowed (the spec's schema allows them) and
/// ignored: they are never stored. The lesson's fields are moved out of
/// the params, not copied.
pub(super) fn read_lesson(params: Value) -> Result<Lesson, RpcError> {
    let Value::Object(object) = params else {
        return Err(RpcError::new(
            codes::INVALID_PARAMS,
            "the params of a teach request are a Lesson object",
        ));
    };
    // One walk over the members (the reader refused any given twice);
    // members a `Lesson` does not have are dropped unread.
    let (mut collection, mut entry, mut value, mut taught_by, mut reason) =
        (None, None, None, None, None);
    for (name, member) in object {
        let slot = match name.as_str() {
            "collection" => &mut collection,
            "entry" => &mut entry,
            "value" => &mut value,
            "taughtBy" => &mut taught_by,
            "reason" => &mut reason,
            _ => continue,
        };
        *slot = Some(member);
    }
    let wrong = |field: &str, kind: &str| {
        RpcError::invalid_params(field, format!("the lesson's `{field}` must be {kind}"))
    };
    let text = |field: &str, value: Option<Value>| match value {
        Some(Value::String(text)) => Ok(text),
        _ => Err(wrong(field, "a string")),
    };
    let collection = text("collection", collection)?;
    let entry = text("entry", entry)?;
    let value = match value {
        Some(Value::Object(value)) => LessonValue::from(value),
        _ => return Err(wrong("value", "an object")),
    };
    let taught_by = text("taughtBy", taught_by)?;
    let reason = match reason {
        None => None,
        Some(Value::String(reason)) => Some(reason),
        Some(_) => return Err(wrong("reason", "a string")),
    };
    let mut lesson = Lesson::new(collection, entry, value, taught_by);
    lesson.reason = reason;
    // Bounded before any other work: the lengths the `Lesson` documents.
    if let Some((field, limit)) = lesson.too_long() {
        let text = match field {
            "collection" => &lesson.collection,
            "entry" => &lesson.entry,
            "taughtBy" => &lesson.taught_by,
            _ => lesson.reason.as_deref().unwrap_or_default(),
        };
        return Err(RpcError::invalid_params(
            field,
            format!(
                "the lesson's `{field}` (`{}`) is longer than its limit of {limit} characters",
                shown(text)
            ),
        )
        .with_metadata("maxChars", limit.to_string()));
    }
    Ok(lesson)
}

/// Client text as an error message repeats it: escaped and bounded by the
/// one path all untrusted text takes ([`Untrusted`](crate::untrusted::Untrusted)).
pub(super) fn shown(text: &str) -> String {
    crate::untrusted::Untrusted::new(text)
        .max_chars(SHOWN_CHARS)
        .to_string()
}

/// How many characters of a client's text an error message repeats.
const SHOWN_CHARS: usize = 80;

/// The JSON-RPC error of a refused lesson.
pub(super) fn teach_error(error: &TeachError) -> RpcError {
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
        TeachError::Store(store) => store_error(store),
        // The store's errors are open to new kinds of refusal.
        _ => RpcError::new(codes::INVALID_PARAMS, error.to_string()),
    }
}

/// Refuses a collection or entry that holds a character which does not
/// show as itself, naming the field and the character.
pub(super) fn hidden_characters(collection: &str, entry: &str) -> Result<(), RpcError> {
    HiddenCharacter::check("collection", collection)
        .and_then(|()| HiddenCharacter::check("entry", entry))
        .map_err(|hidden| hidden_character(&hidden))
}

/// The JSON-RPC error of a name holding a character that does not show as
/// itself: the field at fault, and the character in the metadata.
pub(super) fn hidden_character(hidden: &HiddenCharacter) -> RpcError {
    RpcError::invalid_params(hidden.field, hidden.to_string()).with_metadata(
        "character",
        format!("U+{:04X}", u32::from(hidden.character)),
    )
}

/// The JSON-RPC error of a store failure, as a client may read it: what
/// failed and whether the lesson was absorbed, never the store's own
/// message (which may name its files, its database or its host).
pub(super) fn store_error(error: &StoreError) -> RpcError {
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
