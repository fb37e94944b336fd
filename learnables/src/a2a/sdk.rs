//! The tests that every typed path of the A2A SDK's types (feature
//! `a2a-types`: a typed card, a typed message) puts the same JSON on the
//! wire as the JSON path it hands its part to.

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use crate::Declaration;
    use crate::a2a::TeachBlock;
    use crate::a2a::{CardDeclaration, CardError};
    use a2a::{
        AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill, Message, Part,
        Role,
    };
    use serde_json::json;

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
