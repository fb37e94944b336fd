//! The declaration and teach blocks on the types of the A2A v1.0 SDK
//! `a2a-lf` (imported as `a2a`), with the feature `a2a-types`.
//!
//! Each conversion hands the part of the typed card or message it touches
//! to the JSON functions ([`Declaration::add_to_card`],
//! [`CardDeclaration::read`], [`TeachBlock::attach_to`],
//! [`TeachBlock::from_message`]) and reads the result back, so both paths
//! follow the same rules and put the same JSON on the wire.

use std::collections::HashMap;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{CardDeclaration, CardError, MessageError};
use crate::declaration::Declaration;
use crate::validation::Violations;
use crate::wire::TeachBlock;

impl Declaration {
    /// Puts the declaration in the card's `capabilities.extensions`,
    /// replacing an earlier Learnables entry, after checking it and that
    /// every skill it names is one of the card's skills, as
    /// [`Declaration::add_to_card`] does. The card is left as it was when
    /// the declaration does not fit.
    ///
    /// ```
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

impl CardDeclaration {
    /// Finds the Learnables entry of a typed agent card and reads its
    /// params, as [`CardDeclaration::read`] does: `Ok(None)` when the card
    /// declares no Learnables; `Err` with every violation, each with its
    /// path, when it declares them wrongly.
    ///
    /// ```
    /// use learnables::a2a::CardDeclaration;
    /// let card: a2a::AgentCard = serde_json::from_value(serde_json::json!({
    ///     "name": "Agent", "version": "1", "supportedInterfaces": [],
    ///     "capabilities": {"extensions": [
    ///         {"uri": "https://example.com/other/v1"},
    ///         {"uri": "https://rsaxb.com/a2a/learnables/v1", "required": false,
    ///          "params": {"learnables": []}}]}
    /// })).unwrap();
    /// let declared = CardDeclaration::read_agent_card(&card).unwrap().unwrap();
    /// assert_eq!(declared.index, 1);
    /// assert!(declared.params.learnables.is_empty());
    /// ```
    pub fn read_agent_card(card: &a2a::AgentCard) -> Result<Option<CardDeclaration>, Violations> {
        let json = card_json(card).map_err(|error| {
            Violations::one(
                "capabilities.extensions",
                format!("the card's extensions do not read as JSON: {error}"),
            )
        })?;
        CardDeclaration::read(&json)
    }
}

/// What the JSON card functions look at of a typed card: its skills and
/// its capabilities' extensions.
fn card_json(card: &a2a::AgentCard) -> serde_json::Result<Value> {
    let mut capabilities = Map::new();
    if let Some(extensions) = &card.capabilities.extensions {
        capabilities.insert("extensions".into(), serde_json::to_value(extensions)?);
    }
    let mut json = Map::new();
    json.insert("skills".into(), serde_json::to_value(&card.skills)?);
    json.insert("capabilities".into(), Value::Object(capabilities));
    Ok(Value::Object(json))
}

impl TeachBlock {
    /// Puts this block on a typed A2A message, as [`TeachBlock::attach_to`]
    /// does: `metadata[URI].teach`, and the URI in `extensions`. Other
    /// metadata and extensions are kept.
    ///
    /// ```
    /// use a2a::{Message, Part, Role};
    /// use learnables::{EXTENSION_URI, TeachBlock};
    /// let mut message = Message::new(Role::Agent, vec![Part::text("Which desk?")]);
    /// TeachBlock::new("routing_rules", ["85"]).attach_to_message(&mut message).unwrap();
    /// assert_eq!(message.extensions, Some(vec![EXTENSION_URI.to_owned()]));
    /// let teach = &message.metadata.as_ref().unwrap()[EXTENSION_URI]["teach"];
    /// assert_eq!(teach["collection"], "routing_rules");
    /// ```
    pub fn attach_to_message(&self, message: &mut a2a::Message) -> Result<(), MessageError> {
        let mut json = Map::new();
        if let Some(metadata) = &message.metadata {
            json.insert("metadata".into(), to_json("metadata", metadata)?);
        }
        if let Some(extensions) = &message.extensions {
            json.insert("extensions".into(), to_json("extensions", extensions)?);
        }
        let mut json = Value::Object(json);
        self.attach_to(&mut json)?;
        let metadata: HashMap<String, Value> = from_json("metadata", &mut json)?;
        let extensions: Vec<String> = from_json("extensions", &mut json)?;
        message.metadata = Some(metadata);
        message.extensions = Some(extensions);
        Ok(())
    }

    /// The teach block a typed A2A message carries, if it carries one, read
    /// as [`TeachBlock::from_message`] reads it.
    ///
    /// ```
    /// use a2a::{Message, Part, Role};
    /// use learnables::TeachBlock;
    /// let mut message = Message::new(Role::Agent, vec![Part::text("Which desk?")]);
    /// assert_eq!(TeachBlock::from_a2a_message(&message).unwrap(), None);
    /// let block = TeachBlock::new("routing_rules", ["85"]);
    /// block.attach_to_message(&mut message).unwrap();
    /// assert_eq!(TeachBlock::from_a2a_message(&message).unwrap(), Some(block));
    /// ```
    pub fn from_a2a_message(message: &a2a::Message) -> Result<Option<TeachBlock>, MessageError> {
        let Some(metadata) = &message.metadata else {
            return Ok(None);
        };
        let mut json = Map::new();
        json.insert("metadata".into(), to_json("metadata", metadata)?);
        TeachBlock::from_message(&Value::Object(json))
    }
}

fn to_json(field: &'static str, value: &impl Serialize) -> Result<Value, MessageError> {
    serde_json::to_value(value).map_err(|error| MessageError::Shape(field, error.to_string()))
}

fn from_json<T: DeserializeOwned>(
    field: &'static str,
    json: &mut Value,
) -> Result<T, MessageError> {
    let value = json.get_mut(field).map(Value::take).unwrap_or(Value::Null);
    serde_json::from_value(value).map_err(|error| MessageError::Shape(field, error.to_string()))
}

impl From<crate::AgentExtension> for a2a::AgentExtension {
    /// The SDK's extension entry with the same JSON.
    ///
    /// ```
    /// use learnables::{Declaration, EXTENSION_URI};
    /// let extension = a2a::AgentExtension::from(Declaration::new().agent_extension());
    /// assert_eq!(extension.uri, EXTENSION_URI);
    /// assert_eq!(extension.required, Some(false));
    /// assert_eq!(extension.params.unwrap()["learnables"], serde_json::json!([]));
    /// ```
    fn from(extension: crate::AgentExtension) -> a2a::AgentExtension {
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

#[cfg(test)]
mod tests {
    use a2a::{
        AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill, Message, Part,
        Role,
    };
    use serde_json::json;

    use super::*;
    use crate::{EXTENSION_URI, LearnableDescriptor};

    fn skill(id: &str) -> AgentSkill {
        AgentSkill {
            id: id.into(),
            name: id.into(),
            description: "d".into(),
            tags: vec![],
            examples: None,
            input_modes: None,
            output_modes: None,
            security_requirements: None,
        }
    }

    fn card(skills: &[&str], extensions: Option<Vec<AgentExtension>>) -> AgentCard {
        AgentCard {
            name: "Agent".into(),
            description: "An agent".into(),
            version: "1".into(),
            supported_interfaces: vec![AgentInterface::new("http://127.0.0.1:1/", "JSONRPC")],
            capabilities: AgentCapabilities {
                streaming: Some(false),
                extensions,
                ..Default::default()
            },
            default_input_modes: vec!["text/plain".into()],
            default_output_modes: vec!["text/plain".into()],
            skills: skills.iter().map(|id| skill(id)).collect(),
            provider: None,
            documentation_url: None,
            icon_url: None,
            security_schemes: None,
            security_requirements: None,
            signatures: None,
        }
    }

    fn descriptor(skills: &[&str]) -> LearnableDescriptor {
        serde_json::from_value(json!({
            "collection": "routing_rules", "entry": "routing rule",
            "skills": skills,
            "teaches": "Which desk handles a declaration",
            "how": "A table keyed on the HS chapter",
            "decidedBy": "rules",
            "lessonFields": [{"name": "desk", "label": "Desk", "kind": "text"}]
        }))
        .unwrap()
    }

    fn declaration() -> Declaration {
        Declaration::new()
            .descriptor(descriptor(&["route"]))
            .teach_method(crate::TEACH_METHOD)
    }

    fn other_extension() -> AgentExtension {
        AgentExtension {
            uri: "https://example.com/other/v1".into(),
            description: None,
            required: Some(true),
            params: None,
        }
    }

    #[test]
    fn a_typed_card_gets_the_same_json_as_the_json_path() {
        for extensions in [
            None,
            Some(vec![]),
            Some(vec![
                other_extension(),
                AgentExtension {
                    uri: EXTENSION_URI.into(),
                    description: None,
                    required: Some(false),
                    params: Some(HashMap::from([("learnables".into(), json!([]))])),
                },
            ]),
        ] {
            let mut typed = card(&["route", "clear"], extensions);
            let mut json = serde_json::to_value(&typed).unwrap();
            declaration().add_to_agent_card(&mut typed).unwrap();
            declaration().add_to_card(&mut json).unwrap();
            assert_eq!(serde_json::to_value(&typed).unwrap(), json);
        }
    }

    #[test]
    fn adding_replaces_an_earlier_entry_and_keeps_the_others_in_order() {
        let mut typed = card(&["route"], Some(vec![other_extension()]));
        Declaration::new().add_to_agent_card(&mut typed).unwrap();
        declaration().add_to_agent_card(&mut typed).unwrap();
        let extensions = typed.capabilities.extensions.as_ref().unwrap();
        assert_eq!(extensions.len(), 2);
        assert_eq!(extensions[0], other_extension());
        assert_eq!(
            extensions[1],
            AgentExtension::from(declaration().agent_extension())
        );
        let declared = CardDeclaration::read_agent_card(&typed).unwrap().unwrap();
        assert_eq!(declared.index, 1);
        assert_eq!(&declared.params, declaration().params());
        assert!(!declared.required);
    }

    #[test]
    fn a_skill_the_typed_card_does_not_have_is_refused_and_the_card_left_alone() {
        let mut typed = card(&["clear"], None);
        let before = typed.clone();
        let error = declaration().add_to_agent_card(&mut typed).unwrap_err();
        let CardError::Invalid(violations) = &error else {
            panic!("{error}")
        };
        let lines: Vec<String> = violations.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            ["learnables[0].skills[0]: the card has no skill `route`; its skills are: clear"]
        );
        assert_eq!(
            declaration()
                .add_to_card(&mut serde_json::to_value(&before).unwrap())
                .unwrap_err(),
            error
        );
        assert_eq!(typed, before);
    }

    #[test]
    fn reading_a_typed_card_agrees_with_reading_its_json() {
        let required = AgentExtension {
            required: Some(true),
            ..AgentExtension::from(declaration().agent_extension())
        };
        let placeholder = AgentExtension {
            params: Some(HashMap::from([(
                "learnables".into(),
                json!([{"collection": "c", "entry": "e", "teaches": "t", "how": "TBD",
                        "decidedBy": "rules", "lessonFields": []}]),
            )])),
            ..AgentExtension::from(declaration().agent_extension())
        };
        for extensions in [
            None,
            Some(vec![other_extension()]),
            Some(vec![required]),
            Some(vec![placeholder]),
        ] {
            let typed = card(&["route"], extensions);
            let json = serde_json::to_value(&typed).unwrap();
            assert_eq!(
                CardDeclaration::read_agent_card(&typed),
                CardDeclaration::read(&json)
            );
        }
        assert_eq!(CardDeclaration::read_agent_card(&card(&[], None)), Ok(None));
        assert_eq!(
            CardDeclaration::read_agent_card(&card(&[], Some(vec![other_extension()]))),
            Ok(None)
        );
    }

    #[test]
    fn the_extension_entry_converts_to_the_same_json() {
        for declaration in [Declaration::new(), declaration()] {
            let ours = declaration.agent_extension();
            let json = serde_json::to_value(&ours).unwrap();
            let theirs = AgentExtension::from(ours.clone());
            assert_eq!(serde_json::to_value(&theirs).unwrap(), json);
            // And back: the SDK's entry reads as ours.
            let back: crate::AgentExtension =
                serde_json::from_value(serde_json::to_value(&theirs).unwrap()).unwrap();
            assert_eq!(back, ours);
        }
    }

    fn block() -> TeachBlock {
        TeachBlock::new("routing_rules", ["85", "86"])
    }

    #[test]
    fn a_typed_message_gets_the_same_json_as_the_json_path() {
        let mut with_others = Message::new(Role::Agent, vec![Part::text("Which desk?")]);
        with_others.context_id = Some("c".into());
        with_others.metadata = Some(HashMap::from([("other".into(), json!({"a": 1}))]));
        with_others.extensions = Some(vec!["https://example.com/other/v1".into()]);
        for mut typed in [
            Message::new(Role::Agent, vec![Part::text("Which desk?")]),
            with_others,
        ] {
            let mut json = serde_json::to_value(&typed).unwrap();
            block().attach_to_message(&mut typed).unwrap();
            block().attach_to(&mut json).unwrap();
            assert_eq!(serde_json::to_value(&typed).unwrap(), json);
            // Attaching again changes nothing.
            let once = typed.clone();
            block().attach_to_message(&mut typed).unwrap();
            assert_eq!(typed, once);
        }
    }

    #[test]
    fn a_block_round_trips_through_a_typed_message_and_its_json() {
        let mut typed = Message::new(Role::Agent, vec![Part::text("Which desk?")]);
        block().attach_to_message(&mut typed).unwrap();
        assert_eq!(TeachBlock::from_a2a_message(&typed), Ok(Some(block())));
        // Over the wire and back into the SDK's type.
        let json = serde_json::to_value(&typed).unwrap();
        assert_eq!(TeachBlock::from_message(&json), Ok(Some(block())));
        let received: Message = serde_json::from_value(json).unwrap();
        assert_eq!(received, typed);
        assert_eq!(TeachBlock::from_a2a_message(&received), Ok(Some(block())));
        // A block put on the JSON reads from the typed message.
        let mut json = serde_json::to_value(Message::new(Role::Agent, vec![])).unwrap();
        block().attach_to(&mut json).unwrap();
        let typed: Message = serde_json::from_value(json).unwrap();
        assert_eq!(TeachBlock::from_a2a_message(&typed), Ok(Some(block())));
    }

    #[test]
    fn reading_a_typed_message_agrees_with_reading_its_json() {
        let mut other = Message::new(Role::User, vec![Part::text("hi")]);
        other.metadata = Some(HashMap::from([("other".into(), json!(1))]));
        let mut bad = Message::new(Role::Agent, vec![]);
        bad.metadata = Some(HashMap::from([(
            EXTENSION_URI.into(),
            json!({"teach": {"collection": 1}}),
        )]));
        for typed in [Message::new(Role::User, vec![]), other, bad] {
            let json = serde_json::to_value(&typed).unwrap();
            assert_eq!(
                TeachBlock::from_a2a_message(&typed),
                TeachBlock::from_message(&json)
            );
        }
    }
}
