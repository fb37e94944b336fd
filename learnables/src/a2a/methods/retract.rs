//! The retract method (the declaration's `retractMethod`): its params,
//! `{collection, entry, taughtBy, reason?}`, read once as a lesson without
//! a value, so that a retraction passes the same checks, limits and
//! teacher policy as a lesson; and the retraction made.
//!
//! Our reading (the spec has no retraction): an agent that declares a
//! `retractMethod` beside its `teachMethod` serves it under the same
//! activation, token and teacher policy; the result is a `LessonResult`
//! (`learned: false` when the entry is absent already), and show-back
//! shows the entry's retraction with who made it and why.

use serde_json::{Map, Value};

use super::Reply;
use super::teach::lesson_from;
use crate::a2a::LearnablesService;
use crate::a2a::json_rpc::{RpcError, codes};
use crate::knowledge::{Knowledge, TeachError};
use crate::{Lesson, LessonResult};

/// Reads the params of a retract request as a lesson with an empty
/// value; a `value` is refused.
pub(super) fn read(params: Value) -> Result<Lesson, RpcError> {
    let Value::Object(mut object) = params else {
        return Err(RpcError::new(
            codes::INVALID_PARAMS,
            "the params of a retract request are `{collection, entry, taughtBy, reason?}`",
        ));
    };
    if object.contains_key("value") {
        return Err(RpcError::invalid_params(
            "value",
            "a retraction carries no `value`: it makes the entry absent",
        ));
    }
    object.insert("value".to_owned(), Value::Object(Map::new()));
    lesson_from(object)
}

/// Retracts the entry `lesson` names.
fn retract(knowledge: &Knowledge, lesson: &Lesson) -> Result<LessonResult, TeachError> {
    knowledge.retract(
        &lesson.collection,
        &lesson.entry,
        &lesson.taught_by,
        lesson.reason.as_deref(),
    )
}

impl LearnablesService {
    /// Retracts the entry `lesson` names, blocking while it is made durable.
    pub(in crate::a2a) fn retract(&self, lesson: &Lesson) -> Result<Reply, RpcError> {
        self.taught(lesson, retract(self.knowledge(), lesson))
    }

    /// Retracts the entry `lesson` names on tokio's blocking pool.
    #[cfg(feature = "tokio")]
    pub(in crate::a2a) async fn retract_async(&self, lesson: &Lesson) -> Result<Reply, RpcError> {
        let knowledge = self.knowledge().clone();
        let retracting = lesson.clone();
        let result = tokio::task::spawn_blocking(move || retract(&knowledge, &retracting)).await;
        let result = result.unwrap_or_else(|error| {
            Err(TeachError::Store(
                crate::knowledge::StoreError::OutcomeUnknown(
                    format!("the retraction did not finish: {error}").into(),
                ),
            ))
        });
        self.taught(lesson, result)
    }
}
