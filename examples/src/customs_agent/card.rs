//! The customs agent's A2A v1.0 card, before the Learnables declaration is
//! added to it, made with the SDK's types.

use std::collections::HashMap;

use a2a::{
    AgentCapabilities, AgentCard, AgentInterface, AgentProvider, AgentSkill,
    HttpAuthSecurityScheme, SecurityScheme, TRANSPORT_PROTOCOL_GRPC, TRANSPORT_PROTOCOL_JSONRPC,
};

/// The card of an agent reachable at `base_url` (ending in `/`).
pub fn agent_card(base_url: &str) -> AgentCard {
    agent_card_with_grpc(base_url, None)
}

/// The card of an agent reachable at `base_url` on JSON-RPC and, when
/// given, at `grpc` (`HOST:PORT`, plain HTTP/2) on gRPC: its
/// `supportedInterfaces` name both, JSON-RPC first (where the Learnables
/// methods are).
pub fn agent_card_with_grpc(base_url: &str, grpc: Option<&str>) -> AgentCard {
    let mut interfaces = vec![AgentInterface::new(base_url, TRANSPORT_PROTOCOL_JSONRPC)];
    if let Some(grpc) = grpc {
        interfaces.push(AgentInterface::new(grpc, TRANSPORT_PROTOCOL_GRPC));
    }
    AgentCard {
        name: "Customs agent".into(),
        description: "Routes customs declarations to the desk that handles them, and asks a \
                      person when it has no rule for a declaration's HS chapter."
            .into(),
        version: env!("CARGO_PKG_VERSION").into(),
        supported_interfaces: interfaces,
        capabilities: AgentCapabilities {
            // The SDK streams `SendStreamingMessage` and `SubscribeToTask`;
            // the layer passes the events one by one, each question's teach
            // block only to a client that activated Learnables.
            streaming: Some(true),
            push_notifications: Some(true),
            ..AgentCapabilities::default()
        },
        // What it reads: text, and data parts, which it answers as a
        // message without a chapter.
        default_input_modes: vec!["text/plain".into(), "application/json".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![
            skill(
                "route-declaration",
                "Route a declaration",
                "Says which customs desk handles a declaration, by its HS chapter.",
                &["customs", "routing"],
                Some(vec!["Route a declaration for HS chapter 85".into()]),
            ),
            skill(
                "clear-declaration",
                "Clear a declaration",
                "Says whether a broker may clear a declaration alone.",
                &["customs", "clearance"],
                None,
            ),
        ],
        provider: Some(AgentProvider {
            organization: "learnables examples".into(),
            url: "https://rsaxb.com/".into(),
        }),
        documentation_url: None,
        icon_url: None,
        security_schemes: Some(HashMap::from([(
            "teacher".to_owned(),
            SecurityScheme::HttpAuth(HttpAuthSecurityScheme {
                scheme: "Bearer".into(),
                description: Some(
                    "The credentials of the people who teach the agent: the Learnables methods \
                     (rsaxb.learnables.Teach and rsaxb.learnables.ShowBack) need them; the A2A \
                     methods take none"
                        .into(),
                ),
                bearer_format: None,
            }),
        )])),
        // Either no credentials (every A2A method) or a teacher's (the
        // Learnables methods, which refuse a request without them): the
        // requirements are alternatives, as in OpenAPI.
        security_requirements: Some(vec![
            HashMap::new(),
            HashMap::from([("teacher".to_owned(), Vec::new())]),
        ]),
        signatures: None,
    }
}

fn skill(
    id: &str,
    name: &str,
    description: &str,
    tags: &[&str],
    examples: Option<Vec<String>>,
) -> AgentSkill {
    AgentSkill {
        id: id.into(),
        name: name.into(),
        description: description.into(),
        tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
        examples,
        input_modes: None,
        output_modes: None,
        security_requirements: None,
    }
}
