//! The card's Learnables entry: the spec's `DeclarationParams`.

use serde::{Deserialize, Serialize};

use super::LearnableDescriptor;

/// The `params` of the extension's entry in `capabilities.extensions[]`.
///
/// ```
/// use learnables::DeclarationParams;
/// let params = DeclarationParams { learnables: vec![], teach_method: None, retract_method: None };
/// assert_eq!(serde_json::to_string(&params).unwrap(), r#"{"learnables":[]}"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclarationParams {
    /// What the agent can be taught.
    pub learnables: Vec<LearnableDescriptor>,
    /// The RPC method that accepts a `Lesson`, for an agent that owns its
    /// knowledge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teach_method: Option<String>,
    /// The RPC method that retracts an entry (`{collection, entry,
    /// taughtBy, reason?}`), served beside `teachMethod` under the same
    /// activation, token and teacher policy; our addition to the spec,
    /// which clients that do not know it ignore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retract_method: Option<String>,
}
