//! Names that do not read as they are: an entry or collection holding a
//! control, bidi or invisible character is refused over HTTP on 127.0.0.1
//! (teach, show-back, retract) and by `Knowledge` itself (teach, revert,
//! retract), with an error naming the field, the name and the character,
//! escaped.

use learnables_tests::support::agent as agent_harness;

use agent_harness::Agent;
use learnables::a2a::json_rpc::codes;
use learnables::{Knowledge, Lesson, LessonValue, TeachError};
use learnables_examples::customs_agent::{self, BoundedTaskStore};
use serde_json::{Value, json};

const TEACH: &str = "rsaxb.learnables.Teach";
const RETRACT: &str = "rsaxb.learnables.Retract";
const SHOW_BACK: &str = "rsaxb.learnables.ShowBack";

/// Names a person cannot tell from others, each with the character that
/// gives it away, escaped as the refusal shows it.
const HIDDEN: &[(&str, &str)] = &[
    ("\u{202e}gnp.exe", r"\u{202e}"),
    ("a\u{0}b", r"\u{0}"),
    ("broker\u{200b}17", r"\u{200b}"),
    ("broker-17\u{2066}", r"\u{2066}"),
    ("\u{feff}broker", r"\u{feff}"),
    ("broker\u{85}", r"\u{85}"),
    ("broker\u{e0041}", r"\u{e0041}"),
];

fn agent() -> (Agent, Knowledge) {
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    (
        Agent::start_with(knowledge.clone(), BoundedTaskStore::default()),
        knowledge,
    )
}

fn limit(entry: &str) -> Value {
    json!({
        "collection": "clearance_limits",
        "entry": entry,
        "value": {"amountEur": "9000"},
        "taughtBy": "alice@example.com"
    })
}

/// Asserts `reply` refuses `field` for holding `escaped`, naming it
/// escaped and nowhere raw.
fn assert_refused(reply: &agent_harness::Reply, field: &str, name: &str, escaped: &str) {
    assert_eq!(
        reply.code(),
        codes::INVALID_PARAMS,
        "{name:?}: {}",
        reply.message()
    );
    assert_eq!(reply.field(), Some(field), "{name:?}: {}", reply.message());
    let message = reply.message();
    assert!(
        message.contains(&format!("the {field} `"))
            && message.contains(escaped)
            && message.contains("does not show as itself"),
        "{name:?}: {message}"
    );
    let character = name
        .chars()
        .find(|c| learnables::untrusted::is_hazard(*c))
        .unwrap();
    let code_point = format!("U+{:04X}", u32::from(character));
    assert_eq!(
        reply.metadata("character"),
        Some(code_point.as_str()),
        "{name:?}"
    );
    assert!(!message.contains(name), "the name raw in {message:?}");
    assert!(
        !message.chars().any(learnables::untrusted::is_hazard),
        "{message:?}"
    );
}

#[test]
fn entries_with_hidden_characters_are_refused_over_http_at_every_method() {
    let (agent, knowledge) = agent();
    for (entry, escaped) in HIDDEN {
        let taught = agent.call(TEACH, limit(entry));
        assert_refused(&taught, "entry", entry, escaped);
        let shown = agent.call(
            SHOW_BACK,
            json!({"collection": "clearance_limits", "entry": entry}),
        );
        assert_refused(&shown, "entry", entry, escaped);
        let retracted = agent.call(
            RETRACT,
            json!({"collection": "clearance_limits", "entry": entry,
                   "taughtBy": "alice@example.com"}),
        );
        assert_refused(&retracted, "entry", entry, escaped);
    }
    // Nothing was stored.
    assert!(knowledge.history("clearance_limits").is_empty());
    // The same names as collections: refused as such, not as unknown.
    for (collection, escaped) in HIDDEN {
        let mut lesson = limit("broker-17");
        lesson["collection"] = json!(collection);
        let taught = agent.call(TEACH, lesson);
        assert_refused(&taught, "collection", collection, escaped);
        let shown = agent.call(
            SHOW_BACK,
            json!({"collection": collection, "entry": "broker-17"}),
        );
        assert_refused(&shown, "collection", collection, escaped);
    }
    // An ordinary entry, in any script, is taken (clearance limits are
    // reviewed: as a proposal).
    let taught = agent.call(TEACH, limit("Größe-中-17"));
    assert!(
        taught.result()["proposalId"].is_string(),
        "{}",
        taught.message()
    );
}

/// Asserts `refused` is the refusal of `name` as a `field` holding a
/// character that does not show as itself, escaped as `escaped`.
fn assert_refused_by_knowledge<T: std::fmt::Debug>(
    refused: Result<T, TeachError>,
    field: &str,
    name: &str,
    escaped: &str,
) {
    let message = match refused {
        Err(error) => error.to_string(),
        Ok(taken) => panic!("{name:?} was taken as a {field}: {taken:?}"),
    };
    assert!(
        message.starts_with(&format!("the {field} `"))
            && message.contains(escaped)
            && message.contains("does not show as itself")
            && !message.contains(name),
        "{name:?}: {message:?}"
    );
}

#[test]
fn knowledge_itself_stores_no_such_name() {
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    let value = LessonValue::try_from(json!({"amountEur": "9000"})).unwrap();
    let lesson = |entry: &str| {
        Lesson::new(
            "clearance_limits",
            entry,
            value.clone(),
            "alice@example.com",
        )
    };
    // Clearance limits are reviewed: bob's approval makes the version.
    let proposed = knowledge.teach(&lesson("broker-17")).unwrap();
    let first = knowledge
        .review(&learnables::Review {
            collection: "clearance_limits".into(),
            entry: "broker-17".into(),
            proposal_id: proposed.proposal_id.unwrap(),
            decision: learnables::Decision::Approve,
            reviewed_by: "bob@example.com".into(),
            reason: None,
        })
        .unwrap();
    let version = first.version_id.as_deref().unwrap();
    for (name, escaped) in HIDDEN {
        let taught = knowledge.teach(&lesson(name));
        assert_refused_by_knowledge(taught, "entry", name, escaped);
        let retracted = knowledge.retract("clearance_limits", name, "alice@example.com", None);
        assert_refused_by_knowledge(retracted, "entry", name, escaped);
        let reverted =
            knowledge.revert("clearance_limits", name, version, "alice@example.com", None);
        assert_refused_by_knowledge(reverted, "entry", name, escaped);
        let mut in_collection = lesson("broker-18");
        in_collection.collection = format!("clearance_limits{name}");
        let taught = knowledge.teach(&in_collection);
        assert_refused_by_knowledge(taught, "collection", name, escaped);
    }
    assert_eq!(knowledge.history("clearance_limits").len(), 1);
}
