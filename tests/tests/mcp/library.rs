//! The library's elicitation form and its reading, over MCP with rmcp's own
//! client: the example server (`learnables_examples::mcp_teacher`) asks the
//! client's person for a routing rule, in memory through a duplex pipe, and
//! learns it. The client's elicitation handler stands for the person: it
//! keeps each form it was shown and answers from a list.

use std::sync::{Arc, Mutex};

use learnables::Knowledge;
use learnables_examples::mcp_teacher::RoutingTeacher;
use learnables_examples::{Desk, RoutingRule};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// The person: each form's message and schema kept, each answered with the
/// next answer (`None` declines).
#[derive(Clone, Default)]
pub struct Person {
    pub answers: Arc<Mutex<Vec<Option<Value>>>>,
    pub asked: Arc<Mutex<Vec<(String, Value)>>>,
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("a person's host", "1"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let schema = serde_json::to_value(&requested_schema).unwrap();
        self.asked.lock().unwrap().push((message, schema));
        let mut answers = self.answers.lock().unwrap();
        let answer = if answers.is_empty() {
            None
        } else {
            answers.remove(0)
        };
        Ok(match answer {
            Some(content) => ElicitResult::new(ElicitationAction::Accept).with_content(content),
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }
}

/// Runs the example server over `knowledge` and calls its tool for chapter
/// `chapter` as `person`; the tool's text.
fn teach(knowledge: &Knowledge, person: &Person, chapter: &str) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (server_side, client_side) = tokio::io::duplex(64 * 1024);
        let server = RoutingTeacher::new(knowledge.clone(), "alice@example.com");
        let serving = tokio::spawn(async move {
            let running = server.serve(server_side).await.unwrap();
            running.waiting().await.unwrap();
        });
        let client = person.clone().serve(client_side).await.unwrap();
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(tools.len(), 1);
        let arguments = json!({"chapter": chapter}).as_object().cloned().unwrap();
        let result = client
            .call_tool(CallToolRequestParams::new("teach_routing_rule").with_arguments(arguments))
            .await
            .unwrap();
        client.cancel().await.unwrap();
        serving.await.unwrap();
        result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|text| text.text.clone()))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

fn knowledge() -> Knowledge {
    let knowledge = Knowledge::in_memory();
    knowledge.register::<RoutingRule>().unwrap();
    knowledge
}

#[test]
fn the_person_answers_the_learnables_form_and_the_agent_learns_it() {
    let knowledge = knowledge();
    let person = Person::default();
    person
        .answers
        .lock()
        .unwrap()
        .push(Some(json!({"desk": "cold chain", "note": "Keep cold"})));
    let said = teach(&knowledge, &person, "85");
    assert!(said.starts_with("Learned:"), "{said}");
    let rule: RoutingRule = knowledge.pin().get("85").expect("the rule is learned");
    assert_eq!(rule.desk, Desk::Perishables);
    assert_eq!(rule.note.as_deref(), Some("Keep cold"));

    let asked = person.asked.lock().unwrap();
    let (_, schema) = &asked[0];
    let desk = &schema["properties"]["desk"];
    assert_eq!(desk["title"], "Desk");
    assert_eq!(desk["default"], "general");
    let consts: Vec<&str> = desk["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|option| option["const"].as_str().unwrap())
        .collect();
    assert_eq!(consts, ["general", "dangerous-goods", "cold chain"]);
    assert_eq!(
        desk["oneOf"][2]["title"],
        "cold chain — Goods that must stay cold."
    );
    assert!(schema["properties"].get("chapter").is_none(), "{schema}");
    // The desk has a default and the note is an Option: neither required.
    assert!(schema.get("required").is_none(), "{schema}");
}

#[test]
fn a_field_problem_is_said_in_words_and_the_form_asked_again() {
    let knowledge = knowledge();
    let person = Person::default();
    person.answers.lock().unwrap().extend([
        Some(json!({"desk": "attic", "colour": "red"})),
        Some(json!({"desk": "dangerous-goods"})),
    ]);
    let said = teach(&knowledge, &person, "28");
    assert!(said.starts_with("Learned:"), "{said}");
    let asked = person.asked.lock().unwrap();
    assert_eq!(asked.len(), 2);
    let (again, _) = &asked[1];
    assert!(again.contains("`desk` (Desk)"), "{again}");
    assert!(again.contains("\"attic\""), "{again}");
    assert!(again.contains("colour"), "{again}");
    let rule: RoutingRule = knowledge.pin().get("28").unwrap();
    assert_eq!(rule.desk, Desk::DangerousGoods);
}

#[test]
fn a_declined_form_teaches_nothing() {
    let knowledge = knowledge();
    let person = Person::default();
    person.answers.lock().unwrap().push(None);
    let said = teach(&knowledge, &person, "85");
    assert_eq!(said, "Not taught: the user declined.");
    assert!(knowledge.pin().get::<RoutingRule>("85").is_none());
}
