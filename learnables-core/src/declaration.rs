//! The extension's entry in an agent card's `capabilities.extensions[]`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::card::CardError;
#[cfg(feature = "a2a-types")]
use crate::card::card_json;
use crate::constants::EXTENSION_URI;
use crate::learnable::Learnable;
use crate::registration::Registration;
use crate::validation::Violations;
use crate::wire::{DeclarationParams, LearnableDescriptor};

/// What an agent declares it can be taught: built from learnable types, it
/// produces the agent card's extension entry.
///
/// ```
/// # extern crate learnables_core as learnables;
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
    types: Vec<Registration>,
}

impl Declaration {
    /// A declaration with nothing to teach yet.
    pub fn new() -> Declaration {
        Declaration::default()
    }

    /// Declares the learnable type `T`: the card lists it, and the
    /// knowledge a `LearnablesService` (in `learnables`) is
    /// built with reads its lessons and stored versions as `T`.
    pub fn learnable<T: Learnable + Send + Sync + 'static>(mut self) -> Declaration {
        self.types.push(Registration::of::<T>());
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
    /// # extern crate learnables_core as learnables;
    /// use learnables::{Declaration, RETRACT_METHOD, TEACH_METHOD};
    /// let declaration = Declaration::new().teach_method(TEACH_METHOD).retract_method(RETRACT_METHOD);
    /// assert_eq!(declaration.params().retract_method.as_deref(), Some("rsaxb.learnables.Retract"));
    /// ```
    pub fn retract_method(mut self, method: impl Into<String>) -> Declaration {
        self.params.retract_method = Some(method.into());
        self
    }

    /// Names the RPC method that approves or rejects a proposed lesson of a
    /// reviewed learnable (usually [`REVIEW_METHOD`](crate::REVIEW_METHOD)),
    /// served beside the teach method under the same activation and token.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{Declaration, REVIEW_METHOD, TEACH_METHOD};
    /// let declaration = Declaration::new().teach_method(TEACH_METHOD).review_method(REVIEW_METHOD);
    /// assert_eq!(declaration.params().review_method.as_deref(), Some("rsaxb.learnables.Review"));
    /// ```
    pub fn review_method(mut self, method: impl Into<String>) -> Declaration {
        self.params.review_method = Some(method.into());
        self
    }

    /// How each type declared with [`Declaration::learnable`] is
    /// registered, in the order declared.
    #[doc(hidden)]
    pub fn registrations(&self) -> impl Iterator<Item = Registration> + '_ {
        self.types.iter().copied()
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

    /// Checks the declaration and that every skill id it names is one of
    /// the card's `skills[].id`.
    pub fn validate_for_card(&self, card: &Value) -> Result<(), Violations> {
        self.params().validate_for_card(card)
    }

    /// Puts the declaration in `card.capabilities.extensions[]`, replacing
    /// an earlier Learnables entry, after checking it against the card.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::Declaration;
    /// let mut card = serde_json::json!({
    ///     "name": "Customs agent", "capabilities": {"streaming": false},
    ///     "skills": [{"id": "route-declaration", "name": "Route", "description": "d", "tags": []}]
    /// });
    /// Declaration::new().add_to_card(&mut card).unwrap();
    /// assert_eq!(card["capabilities"]["extensions"][0]["required"], false);
    /// assert_eq!(card["capabilities"]["streaming"], false);
    /// ```
    pub fn add_to_card(&self, card: &mut Value) -> Result<(), CardError> {
        self.validate_for_card(card).map_err(CardError::Invalid)?;
        let entry = serde_json::to_value(self.agent_extension())
            .map_err(|_| CardError::Shape("extension entry", "object"))?;
        let Value::Object(card) = card else {
            return Err(CardError::Shape("body", "object"));
        };
        let Value::Object(capabilities) = card
            .entry("capabilities")
            .or_insert_with(|| Value::Object(Map::new()))
        else {
            return Err(CardError::Shape("capabilities", "object"));
        };
        let Value::Array(extensions) = capabilities
            .entry("extensions")
            .or_insert_with(|| Value::Array(Vec::new()))
        else {
            return Err(CardError::Shape("capabilities.extensions", "array"));
        };
        extensions.retain(|extension| {
            extension.get("uri").and_then(Value::as_str) != Some(EXTENSION_URI)
        });
        extensions.push(entry);
        Ok(())
    }

    #[cfg(feature = "a2a-types")]
    /// Puts the declaration in the card's `capabilities.extensions`,
    /// replacing an earlier Learnables entry, after checking it and that
    /// every skill it names is one of the card's skills, as
    /// [`Declaration::add_to_card`] does. The card is left as it was when
    /// the declaration does not fit.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use a2a::{AgentCapabilities, AgentCard, AgentInterface, AgentSkill};
    /// use learnables::{Declaration, EXTENSION_URI};
    /// let mut card = AgentCard {
    ///     name: "Customs agent".into(),
    ///     description: "Routes declarations".into(),
    ///     version: "1.0.0".into(),
    ///     supported_interfaces: vec![AgentInterface::new("http://localhost:8080/", "JSONRPC")],
    ///     capabilities: AgentCapabilities { streaming: Some(false), ..Default::default() },
    ///     default_input_modes: vec!["text/plain".into()],
    ///     default_output_modes: vec!["text/plain".into()],
    ///     skills: vec![AgentSkill {
    ///         id: "route-declaration".into(),
    ///         name: "Route".into(),
    ///         description: "Says which desk handles a declaration".into(),
    ///         tags: vec![],
    ///         examples: None,
    ///         input_modes: None,
    ///         output_modes: None,
    ///         security_requirements: None,
    ///     }],
    ///     provider: None,
    ///     documentation_url: None,
    ///     icon_url: None,
    ///     security_schemes: None,
    ///     security_requirements: None,
    ///     signatures: None,
    /// };
    /// Declaration::new().add_to_agent_card(&mut card).unwrap();
    /// let extensions = card.capabilities.extensions.as_ref().unwrap();
    /// assert_eq!(extensions[0].uri, EXTENSION_URI);
    /// assert_eq!(extensions[0].required, Some(false));
    /// assert_eq!(card.capabilities.streaming, Some(false));
    /// ```
    pub fn add_to_agent_card(&self, card: &mut a2a::AgentCard) -> Result<(), CardError> {
        let mut json = card_json(card).map_err(|_| CardError::Shape("body", "object"))?;
        self.add_to_card(&mut json)?;
        let extensions = json
            .get_mut("capabilities")
            .and_then(|capabilities| capabilities.get_mut("extensions"))
            .map(Value::take)
            .ok_or(CardError::Shape("capabilities.extensions", "array"))?;
        card.capabilities.extensions = Some(
            serde_json::from_value(extensions)
                .map_err(|_| CardError::Shape("capabilities.extensions", "array"))?,
        );
        Ok(())
    }
}

const DESCRIPTION: &str = "This agent can be taught: it publishes what it can learn, attaches \
                           a teachable proposal to the questions it asks, and absorbs a \
                           person's answer as a new version of its knowledge.";

/// An A2A `AgentExtension` declaring the Learnables extension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
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

#[cfg(feature = "a2a-types")]
impl From<AgentExtension> for a2a::AgentExtension {
    /// The SDK's extension entry with the same JSON.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{Declaration, EXTENSION_URI};
    /// let extension = a2a::AgentExtension::from(Declaration::new().agent_extension());
    /// assert_eq!(extension.uri, EXTENSION_URI);
    /// assert_eq!(extension.required, Some(false));
    /// assert_eq!(extension.params.unwrap()["learnables"], serde_json::json!([]));
    /// ```
    fn from(extension: AgentExtension) -> a2a::AgentExtension {
        // `DeclarationParams` is a struct of strings, lists and JSON values:
        // it always serializes, as an object.
        let params = match serde_json::to_value(extension.params) {
            Ok(Value::Object(params)) => Some(params.into_iter().collect()),
            _ => None,
        };
        a2a::AgentExtension {
            uri: extension.uri,
            description: extension.description,
            required: Some(extension.required),
            params,
        }
    }
}
