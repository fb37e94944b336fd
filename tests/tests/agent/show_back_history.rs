//! Show-back with an entry's history over real HTTP on 127.0.0.1: pages of
//! versions newest first, each with what it changed by field label, a
//! retraction shown with who made it and why, and bad paging refused.

use learnables_tests::support::agent as agent_harness;

use agent_harness::Agent;
use learnables::Knowledge;
use learnables::a2a::json_rpc::codes;
use learnables_examples::customs_agent::BoundedTaskStore;
use serde_json::{Value, json};

const SHOW_BACK: &str = "rsaxb.learnables.ShowBack";

fn show_back(agent: &Agent, history: Value) -> agent_harness::Reply {
    agent.call(
        SHOW_BACK,
        json!({"collection": "routing_rules", "entry": "85", "history": history}),
    )
}

#[test]
fn history_pages_newest_first_with_changes_and_the_retraction() {
    let dir = tempfile::tempdir().unwrap();
    let knowledge = Knowledge::open(dir.path()).unwrap();
    let agent = Agent::start_with(knowledge.clone(), BoundedTaskStore::default());
    for desk in ["general", "cold chain", "dangerous-goods"] {
        assert_eq!(agent.teach_rule(85, desk).result()["learned"], true);
    }
    // Without `history`, the show-back is what it was.
    let plain = agent.call(
        SHOW_BACK,
        json!({"collection": "routing_rules", "entry": "85"}),
    );
    assert_eq!(plain.result().get("history"), None);
    assert_eq!(plain.result().get("retracted"), None);
    knowledge
        .retract(
            "routing_rules",
            "85",
            "bob@example.com",
            Some("no such rule"),
        )
        .unwrap();

    let first = show_back(&agent, json!({"limit": 2}));
    let shown = first.result();
    assert_eq!(shown["retracted"], true, "{shown}");
    assert_eq!(shown["taughtBy"], "bob@example.com");
    assert_eq!(shown["reason"], "no such rule");
    assert_eq!(shown["describes"], "The routing rule 85 is retracted");
    assert!(
        shown["lessonFields"]
            .as_array()
            .unwrap()
            .iter()
            .all(|field| field.get("default").is_none())
    );
    let page = &shown["history"];
    let versions = page["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0]["definitionVersion"], 4);
    assert_eq!(versions[0]["retracted"], true);
    assert_eq!(versions[0]["taughtBy"], "bob@example.com");
    assert_eq!(versions[0].get("lessonFields"), None);
    let desk_change = |version: &Value| {
        version["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|change| change["label"] == "Desk")
            .cloned()
            .unwrap_or_else(|| panic!("no change of Desk in {version}"))
    };
    assert_eq!(
        desk_change(&versions[0]),
        json!({"name": "desk", "label": "Desk", "before": "dangerous-goods"})
    );
    assert_eq!(versions[1]["definitionVersion"], 3);
    assert_eq!(
        desk_change(&versions[1]),
        json!({"name": "desk", "label": "Desk", "before": "cold chain", "after": "dangerous-goods"})
    );
    assert_eq!(versions[1]["changes"].as_array().unwrap().len(), 1);
    let next = page["next"].as_str().expect("a next page").to_owned();

    let second = show_back(&agent, json!({"limit": 2, "from": next}));
    let page = &second.result()["history"];
    let versions = page["versions"].as_array().unwrap();
    let numbers: Vec<&Value> = versions.iter().map(|v| &v["definitionVersion"]).collect();
    assert_eq!(numbers, [&json!(2), &json!(1)]);
    assert_eq!(versions[0]["versionId"], next);
    assert_eq!(page.get("next"), None, "the last page");
    assert_eq!(
        desk_change(&versions[1]),
        json!({"name": "desk", "label": "Desk", "after": "general"})
    );
    assert_eq!(versions[1]["taughtBy"], "alice@example.com");
    assert!(versions[1]["lessonFields"].is_array());

    // The default page holds all four.
    let all = show_back(&agent, json!({}));
    assert_eq!(
        all.result()["history"]["versions"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn bad_history_params_are_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    agent.teach_rule(85, "general");
    for (history, field) in [
        (json!({"limit": 0}), "history.limit"),
        (json!({"limit": 101}), "history.limit"),
        (json!({"from": "no-such-version"}), "history.from"),
        (json!("all"), "history"),
    ] {
        let reply = show_back(&agent, history.clone());
        assert_eq!(reply.code(), codes::INVALID_PARAMS, "{history}");
        assert_eq!(reply.field(), Some(field), "{history}: {}", reply.message());
    }
    let unknown = show_back(&agent, json!({"limit": 1, "page": 2}));
    assert_eq!(unknown.code(), codes::INVALID_PARAMS);
}
