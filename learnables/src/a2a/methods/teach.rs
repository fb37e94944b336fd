//! The teach method (the declaration's `teachMethod`): its params, a
//! `Lesson`, read once; the checks a lesson passes before the knowledge
//! sees it (its names, its collection, its teacher, the policy); and the
//! answer to what the knowledge made of it, logged. A revert is served
//! here too: it is the earlier value taught again.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::Reply;
use super::refusals::{hidden_characters, refused, shown, store_error, teach_error};
use crate::a2a::LearnablesService;
use crate::a2a::json_rpc::{RpcError, codes};
use crate::a2a::teachers::Principal;
use crate::knowledge::TeachError;
use crate::untrusted::Untrusted;
use crate::{Lesson, LessonResult, LessonValue};

/// Reads the params of a teach request, a `Lesson` object, naming the
/// field at fault.
pub(super) fn read(params: Value) -> Result<Lesson, RpcError> {
    let Value::Object(object) = params else {
        return Err(RpcError::new(
            codes::INVALID_PARAMS,
            "the params of a teach request are a Lesson object",
        ));
    };
    lesson_from(object)
}

/// Reads a `Lesson` from the members of params. Keys a lesson does not
/// have are allowed (the spec's schema allows them) and ignored: they are
/// never stored. The lesson's fields are moved out of the params, not
/// copied.
pub(super) fn lesson_from(object: Map<String, Value>) -> Result<Lesson, RpcError> {
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

impl LearnablesService {
    /// `lesson`, once its names, its collection, its teacher and the
    /// policy allow it: what a teach and a retract request both pass.
    pub(in crate::a2a) fn allowed(
        &self,
        lesson: Lesson,
        principal: &Principal,
    ) -> Result<Lesson, RpcError> {
        self.allowed_as(lesson, principal, None)
    }

    /// [`LearnablesService::allowed`] for a lesson that is a review
    /// `decision` of a proposal when one is given (the policy is told so).
    pub(in crate::a2a) fn allowed_as(
        &self,
        mut lesson: Lesson,
        principal: &Principal,
        decision: Option<crate::Decision>,
    ) -> Result<Lesson, RpcError> {
        // Before the collection is looked up: a name that does not show as
        // itself is refused as such, not as a learnable this agent lacks.
        if let Err(error) = hidden_characters(&lesson.collection, &lesson.entry) {
            return Err(refused(&lesson, principal.id(), error));
        }
        // A collection the declaration does not list is refused as
        // show-back refuses it, whatever the knowledge has registered.
        self.descriptor(&lesson.collection)?;
        // Stricter than the canonical form: the name as written (ASCII case
        // aside), so that a look-alike of the teacher is refused, not taken.
        if !lesson.taught_by.eq_ignore_ascii_case(principal.id()) {
            let message = format!(
                "`taughtBy` is `{}`, but the authenticated teacher is `{}`: a lesson names the \
                 person who teaches it",
                shown(&lesson.taught_by),
                principal.id()
            );
            let error =
                RpcError::new(codes::FORBIDDEN, message.clone()).at_field("taughtBy", message);
            return Err(refused(&lesson, principal.id(), error));
        }
        // The lesson keeps the teacher's identity as it was authenticated,
        // not in the letter case the request happened to use.
        if lesson.taught_by != principal.id() {
            lesson.taught_by = principal.id().to_owned();
        }
        let judged = match decision {
            None => self.policy().allow(principal, &lesson),
            Some(decision) => self.policy().allow_decision(principal, &lesson, decision),
        };
        if let Err(reason) = judged {
            let error = RpcError::new(codes::FORBIDDEN, reason);
            return Err(refused(&lesson, principal.id(), error));
        }
        Ok(lesson)
    }

    /// Teaches `lesson`, blocking while it is made durable.
    pub(in crate::a2a) fn teach(&self, lesson: &Lesson) -> Result<Reply, RpcError> {
        self.taught(lesson, self.knowledge().teach(lesson))
    }

    /// Teaches `lesson`, the task waiting while it is made durable; then
    /// resumes the tasks it answers, if the agent gave a resumer.
    #[cfg(feature = "tokio")]
    pub(in crate::a2a) async fn teach_async(&self, lesson: &Lesson) -> Result<Reply, RpcError> {
        let result = self.knowledge().teach_borrowed_async(lesson).await;
        let outcome = self.taught(lesson, result);
        // The tasks waiting on the question the lesson answers continue
        // before the teacher hears back, so that what reads a task next
        // sees it answered.
        #[cfg(feature = "a2a-server")]
        if let (Ok(Reply::Taught(taught)), Some(resumer)) = (&outcome, self.resumer()) {
            crate::a2a::sdk::resume_apart(resumer, lesson, taught).await;
        }
        outcome
    }

    /// The answer to a lesson the knowledge was taught (or a retraction
    /// it made), logged.
    pub(in crate::a2a) fn taught(
        &self,
        lesson: &Lesson,
        result: Result<LessonResult, TeachError>,
    ) -> Result<Reply, RpcError> {
        match result {
            Ok(mut result) => {
                // Stored by the learnable's own phrasing (a `describes_with`
                // function may repeat a value raw): escaped for the teacher.
                if let Cow::Owned(describes) = crate::untrusted::escaped(&result.describes) {
                    result.describes = describes;
                }
                tracing::info!(
                    collection = %Untrusted::new(&lesson.collection),
                    entry = %Untrusted::new(&lesson.entry),
                    taught_by = %Untrusted::new(&lesson.taught_by),
                    learned = result.learned,
                    version = result.definition_version,
                    "lesson accepted"
                );
                Ok(Reply::Taught(result))
            }
            Err(TeachError::Store(error)) => {
                // The full error, which may name the store's files or
                // database, is for the log; the client is told what failed.
                tracing::error!(
                    collection = %Untrusted::new(&lesson.collection),
                    entry = %Untrusted::new(&lesson.entry),
                    taught_by = %Untrusted::new(&lesson.taught_by),
                    error = %Untrusted::new(&error.to_string()),
                    "the knowledge store failed while a lesson was taught"
                );
                Err(store_error(&error))
            }
            Err(error) => Err(refused(lesson, &lesson.taught_by, teach_error(&error))),
        }
    }
}
