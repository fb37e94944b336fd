//! The extension's entry in an agent card's `capabilities.extensions[]`.

use std::any::TypeId;

use serde::{Deserialize, Serialize};

use crate::constants::EXTENSION_URI;
use crate::knowledge::{Knowledge, KnowledgeError};
use crate::knowledge::{OnUnreadable, UnreadableReport};
use crate::learnable::Learnable;
use crate::validation::Violations;
use crate::wire::{DeclarationParams, LearnableDescriptor};

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
    /// How the knowledge reads each type declared with
    /// [`Declaration::learnable`]: the one list the service registers.
    types: Vec<DeclaredType>,
}

/// Registers a declared type: [`Knowledge::register_with`] of it.
pub(crate) type RegisterFn =
    fn(&Knowledge, OnUnreadable) -> Result<UnreadableReport, KnowledgeError>;

/// A type declared with [`Declaration::learnable`].
#[derive(Clone, Copy)]
struct DeclaredType {
    type_id: TypeId,
    type_name: &'static str,
    register: RegisterFn,
}

impl PartialEq for DeclaredType {
    fn eq(&self, other: &DeclaredType) -> bool {
        self.type_id == other.type_id
    }
}

impl Eq for DeclaredType {}

impl std::fmt::Debug for DeclaredType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.type_name)
    }
}

impl Declaration {
    /// A declaration with nothing to teach yet.
    pub fn new() -> Declaration {
        Declaration::default()
    }

    /// Declares the learnable type `T`: the card lists it, and the
    /// knowledge a [`LearnablesService`](crate::a2a::LearnablesService) is
    /// built with reads its lessons and stored versions as `T`.
    pub fn learnable<T: Learnable + Send + Sync + 'static>(mut self) -> Declaration {
        self.types.push(DeclaredType {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            register: Knowledge::register_with::<T>,
        });
        self.descriptor(T::descriptor().clone())
    }

    /// Declares a learnable described by hand. A service built on it needs
    /// a type registered for it (`Knowledge::register::<T>()` of a type with
    /// this descriptor), or it is not built: prefer
    /// [`Declaration::learnable`].
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

    /// Names the RPC method that retracts an entry (usually
    /// [`RETRACT_METHOD`](crate::RETRACT_METHOD)), served beside the teach
    /// method under the same activation, token and teacher policy.
    ///
    /// ```
    /// use learnables::{Declaration, RETRACT_METHOD, TEACH_METHOD};
    /// let declaration = Declaration::new().teach_method(TEACH_METHOD).retract_method(RETRACT_METHOD);
    /// assert_eq!(declaration.params().retract_method.as_deref(), Some("rsaxb.learnables.Retract"));
    /// ```
    pub fn retract_method(mut self, method: impl Into<String>) -> Declaration {
        self.params.retract_method = Some(method.into());
        self
    }

    /// How each type declared with [`Declaration::learnable`] is
    /// registered, in the order declared.
    pub(crate) fn registrations(&self) -> impl Iterator<Item = RegisterFn> + '_ {
        self.types.iter().map(|declared| declared.register)
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
