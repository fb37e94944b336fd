//! The customs agent's A2A v1.0 card, before the Learnables declaration is
//! added to it.

use serde_json::{Value, json};

/// The card of an agent reachable at `base_url` (ending in `/`).
pub fn agent_card(base_url: &str) -> Value {
    json!({
        "name": "Customs agent",
        "description": "Routes customs declarations to the desk that handles them, and asks a \
                        person when it has no rule for a declaration's HS chapter.",
        "supportedInterfaces": [
            {"url": base_url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "provider": {"organization": "learnables examples", "url": "https://rsaxb.com/"},
        "version": env!("CARGO_PKG_VERSION"),
        "capabilities": {"streaming": false, "pushNotifications": false},
        "securitySchemes": {
            "teacher": {"httpAuthSecurityScheme": {
                "scheme": "Bearer",
                "description": "Teachers' tokens, for the learnables methods"
            }}
        },
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {
                "id": "route-declaration",
                "name": "Route a declaration",
                "description": "Says which customs desk handles a declaration, by its HS chapter.",
                "tags": ["customs", "routing"],
                "examples": ["Route a declaration for HS chapter 85"]
            },
            {
                "id": "clear-declaration",
                "name": "Clear a declaration",
                "description": "Says whether a broker may clear a declaration alone.",
                "tags": ["customs", "clearance"]
            }
        ]
    })
}
