//! `learnables review`, run through the built binary against the example
//! customs agent, whose clearance limits are reviewed: the list of lessons
//! waiting for review with what each would change, the author's own
//! approval refused, another teacher's approval after a confirmation, a
//! rejection with its reason, and `--json`.

use crate::common;

use common::{ALICE, ALICE_TOKEN, Agent, BOB_TOKEN, run, show};

/// Alice proposes a limit of `euros` for broker-17: what `teach` printed.
fn propose(agent: &Agent, euros: &str) -> String {
    run(&[
        "teach",
        &agent.url,
        "--collection",
        "clearance_limits",
        "--entry",
        "broker-17",
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
        "--set",
        &format!("amountEur={euros}"),
        "--set",
        "review_after=",
        "--reason",
        "the ministry's letter",
    ])
    .ok()
}

/// The id `teach` printed for a proposal ("... (proposal ID).").
fn proposal_id(taught: &str) -> String {
    let start = taught.find("(proposal ").expect("a proposal id") + "(proposal ".len();
    let end = start + taught[start..].find(')').unwrap();
    taught[start..end].to_owned()
}

fn review(agent: &Agent, token: &str, extra: &[&str]) -> common::Run {
    let mut args = vec!["review", agent.url.as_str(), "--token", token];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn a_lesson_waits_for_another_teachers_approval() {
    let agent = Agent::start();
    let taught = propose(&agent, "25000");
    assert!(
        taught.starts_with("Waiting for review: another teacher must approve it"),
        "{taught}"
    );
    let id = proposal_id(&taught);

    // Bob's list shows who proposed it, why, and what it would change.
    let listed = review(&agent, BOB_TOKEN, &[]).ok();
    assert!(
        listed.starts_with("1 lesson waiting for review:"),
        "{listed}"
    );
    assert!(listed.contains("Broker \"broker-17\""), "{listed}");
    assert!(listed.contains(&format!("(proposal {id})")), "{listed}");
    assert!(listed.contains("alice@example.com"), "{listed}");
    assert!(listed.contains("the ministry's letter"), "{listed}");
    assert!(
        listed.contains("Limit in euros  (none) → 25000"),
        "{listed}"
    );
    // Alice is told she cannot decide her own, and the agent refuses it.
    let own = review(&agent, ALICE_TOKEN, &[]).ok();
    assert!(own.contains("you proposed it"), "{own}");
    let refused = review(&agent, ALICE_TOKEN, &["--approve", &id, "--yes"]).failed();
    assert!(refused.contains("another teacher"), "{refused}");

    // Without a yes nothing is approved; with it bob's approval teaches it.
    let cancelled = review(&agent, BOB_TOKEN, &["--approve", &id]).failed_with(130);
    assert!(cancelled.contains("not confirmed"), "{cancelled}");
    let approved = review(
        &agent,
        BOB_TOKEN,
        &["--approve", &id, "--yes", "-r", "checked"],
    )
    .ok();
    assert!(
        approved.starts_with("Learned: broker-17 may now clear up to EUR 25000 alone"),
        "{approved}"
    );
    assert!(show(&agent, "clearance_limits", "broker-17").contains("25000"));
    let empty = review(&agent, BOB_TOKEN, &[]).ok();
    assert_eq!(empty, "No lesson is waiting for review.\n");

    // The history names the approver; show lists what waits beside the value.
    let history = run(&[
        "history",
        &agent.url,
        "-c",
        "clearance_limits",
        "-e",
        "broker-17",
        "--token",
        ALICE_TOKEN,
    ])
    .ok();
    assert!(
        history.contains("alice@example.com, approved by bob@example.com"),
        "{history}"
    );
    propose(&agent, "30000");
    let shown = show(&agent, "clearance_limits", "broker-17");
    assert!(
        shown.contains("Waiting for review: proposed by alice@example.com"),
        "{shown}"
    );
    assert!(shown.contains("Limit in euros: 25000 → 30000"), "{shown}");
}

#[test]
fn a_rejection_says_why_and_json_lists_and_decides() {
    let agent = Agent::start();
    let first = proposal_id(&propose(&agent, "25000"));
    review(&agent, BOB_TOKEN, &["--approve", &first, "--yes"]).ok();
    let id = proposal_id(&propose(&agent, "30000"));
    let listed = review(&agent, BOB_TOKEN, &["--json"]).json(0);
    assert_eq!(listed["proposals"][0]["proposalId"], id.as_str());
    assert_eq!(listed["proposals"][0]["mayDecide"], true);
    // A rejection needs a reason (clap says so), then learns nothing.
    let usage = review(&agent, BOB_TOKEN, &["--reject", &id]).failed_with(2);
    assert!(usage.contains("--reason"), "{usage}");
    let decided = review(
        &agent,
        BOB_TOKEN,
        &["--reject", &id, "--reason", "not signed", "--json"],
    )
    .json(0);
    assert_eq!(decided["result"]["learned"], false, "{decided}");
    let listed = review(&agent, BOB_TOKEN, &["--json"]).json(0);
    assert_eq!(listed["proposals"], serde_json::json!([]), "{listed}");
    // Nothing was learned; the history says who said no and why.
    let history = run(&[
        "history",
        &agent.url,
        "-c",
        "clearance_limits",
        "-e",
        "broker-17",
        "--token",
        ALICE_TOKEN,
    ])
    .ok();
    assert!(
        history.contains("Rejected: proposed by alice@example.com"),
        "{history}"
    );
    assert!(history.contains("rejected by bob@example.com"), "{history}");
    assert!(history.contains("(\"not signed\")"), "{history}");
    // An id the agent does not list is refused before anything is sent.
    let unknown = review(&agent, BOB_TOKEN, &["--approve", &id, "--yes"]).failed();
    assert!(unknown.contains("lists no open proposal"), "{unknown}");
}

/// How many proposals the paging agent holds: their listing, unpaged,
/// would be past the command's 1 MiB bound on an answer.
const MANY: usize = 3000;

/// A card whose one learnable is reviewed.
fn reviewed_card() -> serde_json::Value {
    serde_json::json!({"name": "Paging agent", "capabilities": {"extensions": [{
        "uri": learnables::EXTENSION_URI, "params": {
            "teachMethod": "rsaxb.learnables.Teach",
            "reviewMethod": "rsaxb.learnables.Review",
            "learnables": [{"collection": "clearance_limits", "entry": "broker",
                "teaches": "How much a broker clears alone", "how": "A table kept by the team",
                "decidedBy": "rules", "review": {"approvals": 1},
                "lessonFields": [{"name": "amountEur", "label": "Limit in euros", "kind": "text"}]}]}}]}})
}

/// The proposal number `n`, about 400 bytes of JSON.
fn open_proposal(n: usize) -> serde_json::Value {
    serde_json::json!({"collection": "clearance_limits", "entry": format!("broker-{n}"),
        "proposalId": format!("p{n}"), "proposedBy": "alice@example.com",
        "proposedAt": "2026-12-05T10:00:00Z",
        "reason": format!("the ministry's letter number {n} of this year, received on Monday"),
        "describes": format!("Broker {n} may now clear up to EUR 25,000 alone, without a second look"),
        "changes": [{"name": "amountEur", "label": "Limit in euros", "before": null, "after": "25000"}],
        "approvedBy": [], "approvalsNeeded": 1, "mayDecide": true})
}

/// An agent that pages its Review listing as the contract says: `{limit?,
/// from?}` (limit 1..=100, 20 by default), `{proposals, next?}`; a
/// decision on any of its proposals is learned.
fn paging_agent() -> common::stub::Stub {
    use common::stub::{Reply, Stub};
    use serde_json::{Value, json};
    Stub::start(|request| {
        if request.is_card() {
            return Reply::json(&reviewed_card());
        }
        let body: Value = serde_json::from_str(&request.body).unwrap_or_default();
        let params = &body["params"];
        match body["method"].as_str().unwrap_or_default() {
            "rsaxb.learnables.Teacher" => Reply::result(json!({"teacher": "bob@example.com"})),
            "rsaxb.learnables.Review" if params.get("proposalId").is_some() => {
                Reply::result(json!({"learned": true, "describes": "Learned it",
                    "definitionVersion": 1, "versionId": "v1"}))
            }
            "rsaxb.learnables.Review" => {
                let limit = params["limit"].as_u64().unwrap_or(20);
                assert!((1..=100).contains(&limit), "a limit of {limit}");
                let from = params["from"]
                    .as_str()
                    .and_then(|from| from.strip_prefix('p'))
                    .and_then(|n| n.parse::<usize>().ok())
                    .unwrap_or(0);
                let end = (from + limit as usize).min(MANY);
                let proposals: Vec<Value> = (from..end).map(open_proposal).collect();
                let mut page = json!({"proposals": proposals});
                if end < MANY {
                    page["next"] = json!(format!("p{end}"));
                }
                Reply::result(page)
            }
            other => panic!("no method {other}"),
        }
    })
}

#[test]
fn thousands_of_proposals_are_listed_and_decided_a_page_at_a_time() {
    let agent = paging_agent();
    let listed = run(&["review", &agent.url, "--token", BOB_TOKEN]).ok();
    assert!(
        listed.starts_with(&format!("{MANY} lessons waiting for review:")),
        "{}",
        &listed[..200.min(listed.len())]
    );
    assert!(listed.contains(&format!("(proposal p{})", MANY - 1)));
    // The last page's proposal is found, and decided.
    let last = format!("p{}", MANY - 1);
    let approved = run(&[
        "review",
        &agent.url,
        "--token",
        BOB_TOKEN,
        "--approve",
        &last,
        "--yes",
    ]);
    let approved = approved.ok();
    assert!(approved.contains("Learned it"), "{approved}");
    let requests = agent.requests();
    let decided = requests
        .iter()
        .filter_map(|request| serde_json::from_str::<serde_json::Value>(&request.body).ok())
        .filter(|body| body["params"]["proposalId"] == last.as_str())
        .count();
    assert_eq!(decided, 1, "the decision named the proposal");
}

/// `teacher` (by `token`) proposes a limit for `entry`.
fn propose_for(agent: &Agent, entry: &str, teacher: &str, token: &str) {
    let taught = run(&[
        "teach",
        &agent.url,
        "--collection",
        "clearance_limits",
        "--entry",
        entry,
        "--taught-by",
        teacher,
        "--token",
        token,
        "--set",
        "amountEur=25000",
        "--set",
        "review_after=",
        "--reason",
        "the ministry's letter",
    ])
    .ok();
    assert!(taught.starts_with("Waiting for review"), "{taught}");
}

#[test]
fn the_example_agents_paged_listing_is_read_whole_and_decided() {
    let agent = Agent::start();
    // As many as two teachers may have open: 20 each.
    for n in 0..20 {
        propose_for(&agent, &format!("broker-a{n}"), ALICE, ALICE_TOKEN);
        propose_for(&agent, &format!("broker-b{n}"), common::BOB, BOB_TOKEN);
    }
    let listed = review(&agent, BOB_TOKEN, &[]).ok();
    assert!(
        listed.starts_with("40 lessons waiting for review:"),
        "{listed}"
    );
    let document = run(&["--json", "review", &agent.url, "--token", BOB_TOKEN]).json(0);
    let proposals = document["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 40);
    let last = proposals
        .iter()
        .rfind(|proposal| proposal["proposedBy"] == ALICE)
        .unwrap();
    let id = last["proposalId"].as_str().unwrap();
    let approved = review(&agent, BOB_TOKEN, &["--approve", id, "--yes"]).ok();
    assert!(approved.contains("25000"), "{approved}");
    let listed = review(&agent, BOB_TOKEN, &[]).ok();
    assert!(
        listed.starts_with("39 lessons waiting for review:"),
        "{listed}"
    );
}
