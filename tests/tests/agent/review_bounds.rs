//! One teacher cannot stop all review: over HTTP on 127.0.0.1, the example
//! agent refuses a proposal past the open proposals an entry (5) or a
//! teacher (20) may have, with its own reason, and lists the open ones a
//! page at a time, each page whole, the pages together every proposal
//! once.

use std::collections::HashSet;

use learnables_tests::support::agent as agent_harness;

use agent_harness::{ACTIVATED, AS_ALICE, AS_BOB, Agent, Reply};
use serde_json::json;

const REVIEW: &str = "rsaxb.learnables.Review";
const TEACH: &str = "rsaxb.learnables.Teach";

fn propose(agent: &Agent, entry: &str, euros: u32) -> Reply {
    let lesson = json!({"collection": "clearance_limits", "entry": entry,
        "value": {"amountEur": euros.to_string()}, "taughtBy": "alice@example.com"});
    agent.call_with(TEACH, lesson, &[ACTIVATED, AS_ALICE])
}

#[test]
fn proposals_past_an_entrys_or_a_teachers_limit_are_refused_with_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    for euros in 1..=5 {
        let proposed = propose(&agent, "FR", euros * 1_000);
        assert_eq!(proposed.result()["learned"], false);
    }
    let sixth = propose(&agent, "FR", 6_000);
    assert_eq!(
        sixth.reason(),
        Some("TOO_MANY_PROPOSALS"),
        "{}",
        sixth.message()
    );
    assert!(
        sixth.message().contains("the entry `FR`"),
        "{}",
        sixth.message()
    );
    for broker in 0..15 {
        let proposed = propose(&agent, &format!("broker-{broker}"), 1_000);
        assert_eq!(proposed.result()["learned"], false);
    }
    let past = propose(&agent, "DE", 1_000);
    assert_eq!(
        past.reason(),
        Some("TOO_MANY_PROPOSALS"),
        "{}",
        past.message()
    );
    assert!(
        past.message()
            .contains("alice@example.com has 20 proposals"),
        "{}",
        past.message()
    );
    // A rejection makes room again.
    let listed = agent.call_with(REVIEW, json!({"limit": 1}), &[ACTIVATED, AS_BOB]);
    let first = &listed.result()["proposals"][0];
    let rejected = agent.call_with(
        REVIEW,
        json!({"collection": "clearance_limits", "entry": first["entry"],
               "proposalId": first["proposalId"], "decision": "reject",
               "reviewedBy": "bob@example.com", "reason": "not this one"}),
        &[ACTIVATED, AS_BOB],
    );
    assert!(rejected.result().is_object(), "{}", rejected.result());
    assert_eq!(propose(&agent, "DE", 1_000).result()["learned"], false);
}

#[test]
fn the_open_proposals_are_listed_a_page_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let mut made = HashSet::new();
    for broker in 0..18 {
        let proposed = propose(&agent, &format!("broker-{broker}"), 1_000);
        made.insert(proposed.result()["proposalId"].as_str().unwrap().to_owned());
    }
    let mut seen = Vec::new();
    let mut from = None;
    let mut pages = 0;
    loop {
        let mut params = json!({"limit": 7});
        if let Some(from) = &from {
            params["from"] = json!(from);
        }
        let page = agent.call_with(REVIEW, params, &[ACTIVATED, AS_BOB]);
        let proposals = page.result()["proposals"].as_array().unwrap().clone();
        pages += 1;
        assert!(proposals.len() <= 7);
        seen.extend(
            proposals
                .iter()
                .map(|proposal| proposal["proposalId"].as_str().unwrap().to_owned()),
        );
        match page.result().get("next") {
            Some(next) => from = Some(next.as_str().unwrap().to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(seen.len(), 18, "each once");
    assert_eq!(seen.iter().cloned().collect::<HashSet<_>>(), made);
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted, "in the order they were made");
    let too_many = agent.call_with(REVIEW, json!({"limit": 500}), &[ACTIVATED, AS_BOB]);
    assert_eq!(too_many.field(), Some("limit"), "{}", too_many.message());
}
