//! Retracting an entry over real HTTP on 127.0.0.1 through the card's
//! `retractMethod`: under the same activation, token and teacher policy as
//! the teach method; the entry is absent for new tasks, show-back shows
//! the retraction with who and why, and a later lesson teaches it again.

use learnables_tests::support::agent as agent_harness;

use agent_harness::{ACTIVATED, AS_ALICE, AS_BOT, Agent};
use learnables::a2a::CardDeclaration;
use learnables::a2a::json_rpc::codes;
use serde_json::{Value, json};

const RETRACT: &str = "rsaxb.learnables.Retract";

fn retraction(entry: &str, by: &str) -> Value {
    json!({"collection": "routing_rules", "entry": entry, "taughtBy": by, "reason": "no such rule"})
}

#[test]
fn a_retraction_over_the_wire_makes_the_entry_absent_until_taught_again() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let declared = CardDeclaration::read(&agent.card()).unwrap().unwrap();
    assert_eq!(declared.params.retract_method.as_deref(), Some(RETRACT));
    agent.teach_rule(85, "cold chain");
    assert_eq!(
        agent.route(85, None, &[ACTIVATED])["status"]["state"],
        "TASK_STATE_COMPLETED"
    );

    let retracted = agent.call(RETRACT, retraction("85", "alice@example.com"));
    let result = retracted.result();
    assert_eq!(result["learned"], true, "{result}");
    assert_eq!(result["definitionVersion"], 2);
    assert_eq!(result["describes"], "The routing rule 85 is retracted");
    // A new task no longer knows the rule: it asks.
    assert_eq!(
        agent.route(85, None, &[ACTIVATED])["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    let shown = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "85"}),
    );
    assert_eq!(shown.result()["retracted"], true);
    assert_eq!(shown.result()["taughtBy"], "alice@example.com");
    assert_eq!(shown.result()["reason"], "no such rule");
    // Again: nothing new.
    let again = agent.call(RETRACT, retraction("85", "alice@example.com"));
    assert_eq!(again.result()["learned"], false);
    assert_eq!(again.result()["versionId"], result["versionId"]);
    // A later lesson teaches it again, and the retraction survives a restart.
    agent.stop();
    let agent = Agent::start(dir.path());
    assert_eq!(
        agent.route(85, None, &[ACTIVATED])["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    assert_eq!(agent.teach_rule(85, "general").result()["learned"], true);
    assert_eq!(
        agent.route(85, None, &[ACTIVATED])["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[test]
fn a_retraction_is_refused_as_a_lesson_would_be() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    agent.teach_rule(85, "cold chain");
    let not_activated =
        agent.call_with(RETRACT, retraction("85", "alice@example.com"), &[AS_ALICE]);
    assert_eq!(not_activated.code(), codes::EXTENSION_NOT_ACTIVATED);
    let anonymous = agent.call_with(RETRACT, retraction("85", "alice@example.com"), &[ACTIVATED]);
    assert_eq!(anonymous.code(), codes::UNAUTHENTICATED);
    let someone_else = agent.call(RETRACT, retraction("85", "mallory@example.com"));
    assert_eq!(someone_else.code(), codes::FORBIDDEN);
    assert_eq!(someone_else.field(), Some("taughtBy"));
    let bot = agent.call_with(
        RETRACT,
        retraction("85", "deploy-bot@example.com"),
        &[ACTIVATED, AS_BOT],
    );
    assert_eq!(bot.code(), codes::FORBIDDEN, "{}", bot.message());
    let mut with_value = retraction("85", "alice@example.com");
    with_value["value"] = json!({});
    let with_value = agent.call(RETRACT, with_value);
    assert_eq!(with_value.code(), codes::INVALID_PARAMS);
    assert_eq!(with_value.field(), Some("value"));
    let never_taught = agent.call(RETRACT, retraction("86", "alice@example.com"));
    assert_eq!(never_taught.code(), codes::INVALID_PARAMS);
    assert_eq!(never_taught.field(), Some("entry"));
    let unknown = agent.call(
        RETRACT,
        json!({"collection": "tariffs", "entry": "85", "taughtBy": "alice@example.com"}),
    );
    assert_ne!(unknown.code(), 0);
    // Nothing was retracted.
    assert_eq!(
        agent.route(85, None, &[ACTIVATED])["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}
