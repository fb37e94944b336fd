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
