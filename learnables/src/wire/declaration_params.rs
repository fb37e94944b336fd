//! The card's Learnables entry: the spec's `DeclarationParams`.

use serde::{Deserialize, Serialize};

use super::LearnableDescriptor;

/// The `params` of the extension's entry in `capabilities.extensions[]`.
///
/// ```
/// use learnables::DeclarationParams;
/// let params = DeclarationParams::new(vec![]);
/// assert_eq!(serde_json::to_string(&params).unwrap(), r#"{"learnables":[]}"#);
/// ```
///
/// It is `#[non_exhaustive]`, so that a field the spec adds is not a
/// breaking change: build one with [`DeclarationParams::new`] (or
/// `Default`) and [`DeclarationParams::with_teach_method`] (its fields stay
/// public to read and to set).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
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

impl DeclarationParams {
    /// The params declaring `learnables`, with no teach method.
    ///
    /// ```
    /// use learnables::{DeclarationParams, Learnable, LearnableDescriptor};
    /// let params = DeclarationParams::new(vec![]);
    /// assert!(params.learnables.is_empty());
    /// assert_eq!(params.teach_method, None);
    /// ```
    pub fn new(learnables: Vec<LearnableDescriptor>) -> DeclarationParams {
        DeclarationParams {
            learnables,
            teach_method: None,
            retract_method: None,
        }
    }

    /// The same, with the RPC method that accepts a `Lesson`.
    ///
    /// ```
    /// use learnables::{DeclarationParams, TEACH_METHOD};
    /// let params = DeclarationParams::new(vec![]).with_teach_method(TEACH_METHOD);
    /// assert_eq!(params.teach_method.as_deref(), Some(TEACH_METHOD));
    /// ```
    pub fn with_teach_method(mut self, method: impl Into<String>) -> DeclarationParams {
        self.teach_method = Some(method.into());
        self
    }

    /// The same, with the RPC method that retracts an entry.
    ///
    /// ```
    /// use learnables::{DeclarationParams, RETRACT_METHOD};
    /// let params = DeclarationParams::new(vec![]).with_retract_method(RETRACT_METHOD);
    /// assert_eq!(params.retract_method.as_deref(), Some(RETRACT_METHOD));
    /// ```
    pub fn with_retract_method(mut self, method: impl Into<String>) -> DeclarationParams {
        self.retract_method = Some(method.into());
        self
    }
}
