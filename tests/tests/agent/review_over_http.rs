//! Review before learning over real HTTP on 127.0.0.1, on the example
//! agent (its embedded store in a temporary directory) whose clearance
//! limits are reviewed: a lesson becomes a proposal, show-back shows the
//! old value and the proposal, the author's own approval is refused, and
//! after a restart another teacher's approval makes the version; a stale
//! proposal and a rejected one teach nothing.

use learnables_tests::support::agent as agent_harness;

use agent_harness::{ACTIVATED, AS_ALICE, AS_BOB, Agent, Reply};
use learnables::a2a::CardDeclaration;
use learnables::a2a::json_rpc::codes;
use serde_json::{Value, json};

const REVIEW: &str = "rsaxb.learnables.Review";
const TEACH: &str = "rsaxb.learnables.Teach";
const SHOW_BACK: &str = "rsaxb.learnables.ShowBack";
const BROKER: &str = "broker-17";

/// `who` teaches broker-17 a limit of `euros`.
fn propose(agent: &Agent, euros: u32, who: (&str, &str), email: &str) -> Reply {
    let lesson = json!({"collection": "clearance_limits", "entry": BROKER,
        "value": {"amountEur": euros.to_string()}, "taughtBy": email,
        "reason": format!("the ministry's letter sets {euros}")});
    agent.call_with(TEACH, lesson, &[ACTIVATED, who])
}

/// `who` decides the proposal `id`.
fn decide(agent: &Agent, id: &str, decision: &str, who: (&str, &str), email: &str) -> Reply {
    let params = json!({"collection": "clearance_limits", "entry": BROKER, "proposalId": id,
        "decision": decision, "reviewedBy": email, "reason": format!("{email} checked it")});
    agent.call_with(REVIEW, params, &[ACTIVATED, who])
}

fn show_back(agent: &Agent) -> Value {
    let params = json!({"collection": "clearance_limits", "entry": BROKER, "history": {}});
    agent.call(SHOW_BACK, params).result().clone()
}

/// A proposal's id, from the lesson's answer (a reviewed learnable learns
/// nothing at once).
fn proposal_id(reply: &Reply) -> String {
    let result = reply.result();
    assert_eq!(result["learned"], false, "{result}");
    result["proposalId"]
        .as_str()
        .unwrap_or_else(|| panic!("no proposalId: {result}"))
        .to_owned()
}

#[test]
fn a_reviewed_lesson_is_learned_on_another_teachers_approval_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let declared = CardDeclaration::read(&agent.card()).unwrap().unwrap();
    assert_eq!(declared.params.review_method.as_deref(), Some(REVIEW));
    let card = agent.card().to_string();
    assert!(card.contains(r#""review":{"approvals":1}"#), "{card}");

    // The first limit: proposed by alice, approved by bob.
    let first = proposal_id(&propose(&agent, 25_000, AS_ALICE, "alice@example.com"));
    let learned = decide(&agent, &first, "approve", AS_BOB, "bob@example.com");
    assert_eq!(learned.result()["learned"], true, "{}", learned.result());

    // A new limit waits: show-back keeps the old value and lists it.
    let proposed = propose(&agent, 30_000, AS_ALICE, "alice@example.com");
    let id = proposal_id(&proposed);
    let definition = proposed.result()["definitionVersion"].clone();
    assert_eq!(definition, learned.result()["definitionVersion"]);
    let shown = show_back(&agent);
    assert_eq!(
        shown["describes"],
        "broker-17 may now clear up to EUR 25000 alone"
    );
    let proposals = shown["proposals"].as_array().expect("open proposals");
    assert_eq!(proposals.len(), 1, "{shown}");
    assert_eq!(proposals[0]["proposalId"], id.as_str());
    assert_eq!(proposals[0]["proposedBy"], "alice@example.com");
    assert_eq!(proposals[0]["reason"], "the ministry's letter sets 30000");
    let change = &proposals[0]["changes"][0];
    assert_eq!(
        (&change["before"], &change["after"]),
        (&json!("25000"), &json!("30000")),
        "{shown}"
    );
    // Bob is offered it; alice is not, and her own approval is refused.
    let listed = agent.call_with(REVIEW, json!({}), &[ACTIVATED, AS_BOB]);
    assert_eq!(listed.result()["proposals"][0]["mayDecide"], true);
    let listed = agent.call_with(REVIEW, json!({}), &[ACTIVATED, AS_ALICE]);
    assert_eq!(listed.result()["proposals"][0]["mayDecide"], false);
    let own = decide(&agent, &id, "approve", AS_ALICE, "alice@example.com");
    assert_eq!(own.code(), codes::FORBIDDEN, "{}", own.message());
    assert_eq!(own.reason(), Some("SELF_APPROVAL"));

    // After a restart the proposal is still there, and bob's approval
    // makes the version: alice taught it, bob approved it.
    agent.stop();
    let agent = Agent::start(dir.path());
    let approved = decide(&agent, &id, "approve", AS_BOB, "bob@example.com");
    let result = approved.result();
    assert_eq!(result["learned"], true, "{result}");
    let shown = show_back(&agent);
    assert_eq!(
        shown["describes"],
        "broker-17 may now clear up to EUR 30000 alone"
    );
    assert_eq!(shown["taughtBy"], "alice@example.com");
    assert_eq!(shown["versionId"], result["versionId"]);
    assert!(shown.get("proposals").is_none(), "{shown}");
    let newest = &shown["history"]["versions"][0];
    assert_eq!(newest["taughtBy"], "alice@example.com", "{newest}");
    assert_eq!(newest["approvedBy"], json!(["bob@example.com"]), "{newest}");
    // A second approval of a learned proposal is refused.
    let again = decide(&agent, &id, "approve", AS_BOB, "bob@example.com");
    assert_eq!(
        again.reason(),
        Some("PROPOSAL_CLOSED"),
        "{}",
        again.message()
    );
}

#[test]
fn a_stale_proposal_and_a_rejected_one_teach_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let first = proposal_id(&propose(&agent, 25_000, AS_ALICE, "alice@example.com"));
    decide(&agent, &first, "approve", AS_BOB, "bob@example.com");

    // Two proposals on the same version: once one is learned, the other
    // is stale, and approving it is refused saying what changed.
    let older = proposal_id(&propose(&agent, 40_000, AS_ALICE, "alice@example.com"));
    let newer = proposal_id(&propose(&agent, 35_000, AS_BOB, "bob@example.com"));
    let learned = decide(&agent, &newer, "approve", AS_ALICE, "alice@example.com");
    assert_eq!(learned.result()["learned"], true, "{}", learned.result());
    let stale = decide(&agent, &older, "approve", AS_BOB, "bob@example.com");
    assert_eq!(
        stale.reason(),
        Some("PROPOSAL_STALE"),
        "{}",
        stale.message()
    );
    assert!(stale.message().contains("stale"), "{}", stale.message());
    assert_eq!(
        show_back(&agent)["describes"],
        "broker-17 may now clear up to EUR 35000 alone"
    );

    // A rejection closes the proposal with nothing learned.
    let rejected = proposal_id(&propose(&agent, 50_000, AS_ALICE, "alice@example.com"));
    let no = decide(&agent, &rejected, "reject", AS_BOB, "bob@example.com");
    assert_eq!(no.result()["learned"], false, "{}", no.result());
    let shown = show_back(&agent);
    assert_eq!(
        shown["describes"],
        "broker-17 may now clear up to EUR 35000 alone"
    );
    assert!(shown.get("proposals").is_none(), "{shown}");
    // The history lists it with who proposed it and who rejected it, why.
    let listed = &shown["history"]["rejected"][0];
    assert_eq!(listed["proposalId"], rejected.as_str(), "{shown}");
    assert_eq!(listed["proposedBy"], "alice@example.com");
    assert_eq!(listed["rejectedBy"], "bob@example.com");
    assert_eq!(listed["rejection"], "bob@example.com checked it");
    let after = decide(&agent, &rejected, "approve", AS_BOB, "bob@example.com");
    assert_eq!(
        after.reason(),
        Some("PROPOSAL_CLOSED"),
        "{}",
        after.message()
    );
    // A rejection says why; a decision names the token's teacher.
    let open = proposal_id(&propose(&agent, 60_000, AS_ALICE, "alice@example.com"));
    let params = json!({"collection": "clearance_limits", "entry": BROKER, "proposalId": open,
        "decision": "reject", "reviewedBy": "bob@example.com"});
    let silent = agent.call_with(REVIEW, params, &[ACTIVATED, AS_BOB]);
    assert_eq!(silent.field(), Some("reason"));
    let posing = decide(&agent, &open, "approve", AS_BOB, "carol@example.com");
    assert_eq!(posing.code(), codes::FORBIDDEN);
    assert_eq!(posing.field(), Some("reviewedBy"));
}
