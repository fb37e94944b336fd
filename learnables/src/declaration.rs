//! The extension's entry in an agent card's `capabilities.extensions[]`.

use serde::{Deserialize, Serialize};

use crate::validation::Violations;
use crate::{DeclarationParams, EXTENSION_URI, Learnable, LearnableDescriptor};

/// What an agent declares it can be taught: built from learnable types, it
/// produces the agent card's extension entry.
///
/// ```
/// use learnables::{Declaration, Learnable, TEACH_METHOD};
/// # #[derive(Learnable)]
/// # #[learnable(collection = "routing_rules", entry = "routing rule",
/// #     teaches = "Which desk handles a declaration",
/// #     how = "A table keyed on the HS chapter", decided_by = "rules",
/// #     describes = "Chapter {chapter} goes to desk {desk}")]
/// # struct RoutingRule { /// HS chapter
/// #     chapter: u8, /// Desk
/// #     desk: String }
/// let declaration = Declaration::new()
///     .learnable::<RoutingRule>()
///     .teach_method(TEACH_METHOD);
/// let extension = serde_json::to_value(declaration.agent_extension()).unwrap();
/// assert_eq!(extension["uri"], "https://rsaxb.com/a2a/learnables/v1");
/// assert_eq!(extension["required"], false);
/// assert_eq!(extension["params"]["learnables"][0]["collection"], "routing_rules");
/// assert_eq!(extension["params"]["teachMethod"], "rsaxb.learnables.Teach");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declaration {
    params: DeclarationParams,
}

impl Declaration {
    /// A declaration with nothing to teach yet.
    pub fn new() -> Declaration {
        Declaration::default()
    }

    /// Declares the learnable type `T`.
    pub fn learnable<T: Learnable>(self) -> Declaration {
        self.descriptor(T::descriptor().clone())
    }

    /// Declares a learnable described by hand.
    pub fn descriptor(mut self, descriptor: LearnableDescriptor) -> Declaration {
        self.params.learnables.push(descriptor);
        self
    }

    /// Names the RPC method that accepts a lesson (usually
    /// [`TEACH_METHOD`](crate::TEACH_METHOD)).
    pub fn teach_method(mut self, method: impl Into<String>) -> Declaration {
        self.params.teach_method = Some(method.into());
        self
    }

    /// The declaration's `params`.
    pub fn params(&self) -> &DeclarationParams {
        &self.params
    }

    /// Checks the spec's rules on every declared learnable.
    pub fn validate(&self) -> Result<(), Violations> {
        self.params.validate()
    }

    /// The entry for the agent card's `capabilities.extensions[]`.
    pub fn agent_extension(&self) -> AgentExtension {
        AgentExtension {
            uri: EXTENSION_URI.to_owned(),
            description: Some(DESCRIPTION.to_owned()),
            required: false,
            params: self.params.clone(),
        }
    }
}

const DESCRIPTION: &str = "This agent can be taught: it publishes what it can learn, attaches \
                           a teachable proposal to the questions it asks, and absorbs a \
                           person's answer as a new version of its knowledge.";

/// An A2A `AgentExtension` declaring the Learnables extension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentExtension {
    /// The extension's URI.
    pub uri: String,
    /// What the extension does for this agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Always `false`: a client that does not know the extension can still
    /// talk to the agent.
    #[serde(default)]
    pub required: bool,
    /// The learnables and the teach method.
    pub params: DeclarationParams,
}
