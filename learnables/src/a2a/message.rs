//! A teach block on an A2A v1.0 `Message`: under the message's `metadata`,
//! keyed by the extension URI, at `teach`; and the URI listed in the
//! message's `extensions`. Messages are handled as JSON, whichever A2A SDK
//! made them.

use serde_json::{Map, Value};

use crate::constants::EXTENSION_URI;
use crate::wire::TeachBlock;

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
    UnknownField(super::UnknownField),
}

impl TeachBlock {
    /// Puts this block on an A2A message (JSON): `metadata[URI].teach`, and
    /// the URI in `extensions`. Other metadata and extensions are kept.
    ///
    /// ```
    /// use learnables::TeachBlock;
    /// let mut message = serde_json::json!({
    ///     "messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "Which desk?"}]
    /// });
    /// TeachBlock::new("routing_rules", ["85"]).attach_to(&mut message).unwrap();
    /// assert_eq!(message["extensions"][0], "https://rsaxb.com/a2a/learnables/v1");
    /// let read = TeachBlock::from_message(&message).unwrap().unwrap();
    /// assert_eq!(read.entries, ["85"]);
    /// ```
    pub fn attach_to(&self, message: &mut Value) -> Result<(), MessageError> {
        let Value::Object(message) = message else {
            return Err(MessageError::Shape(
                "body",
                "it is not a JSON object".into(),
            ));
        };
        let block = serde_json::to_value(self)
            .map_err(|error| MessageError::TeachBlock(error.to_string()))?;
        let metadata = object_at(message, "metadata")?;
        let mut ours = Map::new();
        ours.insert("teach".into(), block);
        metadata.insert(EXTENSION_URI.into(), Value::Object(ours));
        let extensions = message
            .entry("extensions")
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(extensions) = extensions else {
            return Err(MessageError::Shape(
                "extensions",
                "it is not an array".into(),
            ));
        };
        if !extensions.iter().any(|uri| uri == EXTENSION_URI) {
            extensions.push(Value::String(EXTENSION_URI.into()));
        }
        Ok(())
    }

    /// The teach block an A2A message (JSON) carries, if it carries one.
    pub fn from_message(message: &Value) -> Result<Option<TeachBlock>, MessageError> {
        let Some(block) = message
            .get("metadata")
            .and_then(|metadata| metadata.get(EXTENSION_URI))
            .and_then(|ours| ours.get("teach"))
        else {
            return Ok(None);
        };
        serde_json::from_value(block.clone())
            .map(Some)
            .map_err(|error| MessageError::TeachBlock(error.to_string()))
    }
}

fn object_at<'a>(
    parent: &'a mut Map<String, Value>,
    key: &'static str,
) -> Result<&'a mut Map<String, Value>, MessageError> {
    match parent
        .entry(key)
        .or_insert_with(|| Value::Object(Map::new()))
    {
        Value::Object(object) => Ok(object),
        _ => Err(MessageError::Shape(key, "it is not a JSON object".into())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn attaching_keeps_other_metadata_and_extensions_and_does_not_repeat_the_uri() {
        let mut message = json!({
            "messageId": "m", "role": "ROLE_AGENT", "parts": [],
            "metadata": {"other": 1}, "extensions": ["https://example.com/x"]
        });
        let block = TeachBlock::new("c", ["e"]);
        block.attach_to(&mut message).unwrap();
        block.attach_to(&mut message).unwrap();
        assert_eq!(message["metadata"]["other"], 1);
        assert_eq!(
            message["extensions"],
            json!(["https://example.com/x", EXTENSION_URI])
        );
    }

    #[test]
    fn wrong_shapes_are_reported() {
        let mut not_object = json!([]);
        assert!(
            TeachBlock::new("c", ["e"])
                .attach_to(&mut not_object)
                .is_err()
        );
        let mut bad_metadata = json!({"metadata": 3});
        assert_eq!(
            TeachBlock::new("c", ["e"])
                .attach_to(&mut bad_metadata)
                .unwrap_err(),
            MessageError::Shape("metadata", "it is not a JSON object".into())
        );
        let bad_block = json!({"metadata": {EXTENSION_URI: {"teach": {"collection": 1}}}});
        assert!(matches!(
            TeachBlock::from_message(&bad_block),
            Err(MessageError::TeachBlock(_))
        ));
        assert_eq!(TeachBlock::from_message(&json!({"parts": []})), Ok(None));
    }
}
