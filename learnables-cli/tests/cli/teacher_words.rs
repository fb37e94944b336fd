//! The command without a terminal, and what it says to the teacher: an
//! optional field left out with `--yes`, a question's suggestion taken
//! without asking, and every refusal naming the field once, by its label,
//! with no key of the agent's on screen (`--json` keeps the keys).

use crate::common;

use common::{ALICE, ALICE_TOKEN, Agent, run, show, write_json};
use learnables::TeachBlock;
use serde_json::json;

fn teach(agent: &Agent, collection: &str, entry: &str, extra: &[&str]) -> common::Run {
    let mut args = vec![
        "teach",
        agent.url.as_str(),
        "-c",
        collection,
        "-e",
        entry,
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
    ];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn yes_without_a_terminal_leaves_an_optional_field_out() {
    let agent = Agent::start();
    let out = teach(
        &agent,
        "routing_rules",
        "64",
        &["--set", "desk=general", "--yes"],
    )
    .ok();
    assert!(
        out.starts_with("Learned: Chapter 64 declarations now go to the general desk\n"),
        "{out}"
    );
    let shown = show(&agent, "routing_rules", "64");
    assert!(
        shown.contains("  Note for the broker  (empty)\n"),
        "{shown}"
    );
}

#[test]
fn without_a_terminal_the_questions_suggestion_and_the_defaults_are_taken() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    let mut message = json!({"messageId": "q", "role": "ROLE_AGENT", "parts": [{"text": "?"}]});
    let mut block = TeachBlock::new("routing_rules", ["86"]);
    // Not the field's default (general): the suggestion is what is taken.
    block.suggested = Some(serde_json::from_value(json!({"desk": "cold chain"})).unwrap());
    block.attach_to(&mut message).unwrap();
    let question = write_json(dir.path(), "question.json", &message);
    let out = run(&[
        "teach",
        agent.url.as_str(),
        "--question",
        question.as_str(),
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
        "--set",
        "note=Keep cool",
    ])
    .ok();
    assert!(
        out.starts_with("Learned: Chapter 86 declarations now go to the cold chain desk\n"),
        "{out}"
    );
    // Without a question, the field's default.
    let out = teach(&agent, "routing_rules", "87", &["--set", "note=Fragile"]).ok();
    assert!(
        out.starts_with("Learned: Chapter 87 declarations now go to the general desk\n"),
        "{out}"
    );
}

#[test]
fn without_a_terminal_the_fields_left_are_named_by_their_labels() {
    let agent = Agent::start();
    let err = teach(&agent, "routing_rules", "85", &[]).failed_with(2);
    assert_eq!(
        err,
        "error: no terminal for the form, and Note for the broker has no value: give it with \
         --set note=VALUE, or leave it out with --yes\n"
    );
}

#[test]
fn a_refusal_names_the_field_once_by_its_label() {
    let agent = Agent::start();
    let err = teach(
        &agent,
        "clearance_limits",
        "broker-17",
        &["--set", "amountEur=abc", "--set", "review_after="],
    )
    .failed();
    assert_eq!(
        err,
        "error: the agent refused the lesson: Limit in euros: \"abc\" is not accepted: it must \
         be a whole number from 0 to 4,294,967,295\n"
    );
    // Two fields at fault: each on its own line, by its label.
    let err = teach(
        &agent,
        "clearance_limits",
        "broker-17",
        &["--set", "amountEur=abc", "--set", "review_after=soon"],
    )
    .failed();
    assert!(
        err.starts_with("error: the agent refused the lesson:\n  Limit in euros: \"abc\""),
        "{err}"
    );
    assert!(err.contains("\n  Review date: \"soon\""), "{err}");
    for key in [
        "`",
        "amountEur",
        "review_after",
        "value.",
        "clearance_limits",
    ] {
        assert!(!err.contains(key), "{key:?} on screen:\n{err}");
    }
}

#[test]
fn a_refusal_keeps_the_keys_in_json() {
    let agent = Agent::start();
    let document = teach(
        &agent,
        "clearance_limits",
        "broker-17",
        &["--json", "--set", "amountEur=abc", "--set", "review_after="],
    )
    .json(1);
    let error = &document["error"];
    assert_eq!(
        error["message"],
        "the agent refused the lesson: Limit in euros: \"abc\" is not accepted: it must be a \
         whole number from 0 to 4,294,967,295"
    );
    assert_eq!(error["refusal"]["field"], "value.amountEur");
    assert_eq!(error["refusal"]["problems"][0]["field"], "value.amountEur");
    assert!(
        error["refusal"]["message"]
            .as_str()
            .unwrap()
            .contains("`amountEur`"),
        "the agent's own words, as data: {document}"
    );
}

#[test]
fn set_errors_name_no_key_in_backticks() {
    let agent = Agent::start();
    let err = teach(&agent, "routing_rules", "85", &["--set", "desk=urgent"]).failed_with(2);
    assert_eq!(
        err,
        "error: --set desk: \"urgent\" is not one of the choices of Desk: general, \
         dangerous-goods, cold chain\n"
    );
}

#[test]
fn show_history_revert_and_retract_name_the_entry_in_plain_words() {
    let agent = Agent::start();
    let first = teach(
        &agent,
        "routing_rules",
        "85",
        &["--json", "--set", "desk=general", "--yes"],
    )
    .json(0);
    let first = first["result"]["versionId"].as_str().unwrap().to_owned();
    teach(
        &agent,
        "routing_rules",
        "85",
        &["--set", "desk=cold chain", "--yes"],
    )
    .ok();
    let entry = |command: &str| {
        vec![
            command.to_owned(),
            agent.url.clone(),
            "-c".into(),
            "routing_rules".into(),
            "-e".into(),
            "85".into(),
            "--token".into(),
            ALICE_TOKEN.into(),
        ]
    };
    let args = |mut args: Vec<String>, extra: &[&str]| {
        args.extend(extra.iter().map(|arg| (*arg).to_owned()));
        args
    };
    let said = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = run(&args);
        assert_eq!(run.code, 0, "{args:?}: {}{}", run.stdout, run.stderr);
        format!("{}{}", run.stdout, run.stderr)
    };
    let shown = said(entry("show"));
    assert!(
        shown.starts_with(
            "Routing rule \"85\"\n  Chapter 85 declarations now go to the cold chain desk\n"
        ),
        "{shown}"
    );
    let history = said(entry("history"));
    assert!(
        history.starts_with("History of the routing rule \"85\"\n"),
        "{history}"
    );
    let reverted = said(args(
        entry("revert"),
        &["--to", &first, "--taught-by", ALICE, "--yes"],
    ));
    assert!(
        reverted.contains("Revert the routing rule \"85\" to version 1, taught by"),
        "{reverted}"
    );
    let retracted = said(args(
        entry("retract"),
        &[
            "--taught-by",
            ALICE,
            "--reason",
            "No longer routed",
            "--yes",
        ],
    ));
    assert!(
        retracted.contains("Retract the routing rule \"85\": new tasks will not know it."),
        "{retracted}"
    );
    for (what, text) in [
        ("show", &shown),
        ("history", &history),
        ("revert", &reverted),
        ("retract", &retracted),
    ] {
        assert!(!text.contains('`'), "{what}: {text}");
        assert!(!text.contains("routing_rules"), "{what}: {text}");
    }
}
