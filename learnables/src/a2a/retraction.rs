//! The retract method's params: `{collection, entry, taughtBy, reason?}`,
//! read as a lesson without a value, so that a retraction passes the same
//! checks, limits and teacher policy as a lesson.
//!
//! Our reading (the spec has no retraction): an agent that declares a
//! `retractMethod` beside its `teachMethod` serves it under the same
//! activation, token and teacher policy; the result is a `LessonResult`
//! (`learned: false` when the entry is absent already), and show-back
//! shows the entry's retraction with who made it and why.

use serde_json::Value;

use super::json_rpc::{RpcError, codes};

/// The params of a retract request as the params of a lesson with an
/// empty value, for the teach method's reader; a `value` is refused.
pub(super) fn as_lesson_params(params: Value) -> Result<Value, RpcError> {
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
    object.insert("value".to_owned(), Value::Object(serde_json::Map::new()));
    Ok(Value::Object(object))
}
