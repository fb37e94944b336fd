//! `learnables history` and `learnables revert`, run through the built
//! binary against the example customs agent: the table of versions with
//! what each changed, a revert that shows the change and asks first, and
//! `--yes` for scripts.

use crate::common;

use std::io::Write;
use std::process::Stdio;

use common::{ALICE, ALICE_TOKEN, Agent, learnables, run, show};

fn teach(agent: &Agent, desk: &str, reason: &str) -> String {
    run(&[
        "teach",
        &agent.url,
        "--collection",
        "routing_rules",
        "--entry",
        "85",
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
        "--set",
        "chapter=85",
        "--set",
        &format!("desk={desk}"),
        "--set",
        "note=",
        "--reason",
        reason,
    ])
    .ok()
}

/// The version id a `teach` printed ("Version N (ID)...").
fn version_id(taught: &str) -> String {
    let line = taught
        .lines()
        .find(|line| line.starts_with("Version "))
        .unwrap();
    let start = line.find('(').unwrap() + 1;
    let end = line.find(')').unwrap();
    line[start..end].to_owned()
}

fn history(agent: &Agent, extra: &[&str]) -> common::Run {
    let mut args = vec![
        "history",
        agent.url.as_str(),
        "--collection",
        "routing_rules",
        "--entry",
        "85",
        "--token",
        ALICE_TOKEN,
    ];
    args.extend_from_slice(extra);
    run(&args)
}

fn revert_args<'a>(agent: &'a Agent, to: &'a str) -> Vec<&'a str> {
    vec![
        "revert",
        agent.url.as_str(),
        "--collection",
        "routing_rules",
        "--entry",
        "85",
        "--to",
        to,
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
    ]
}

#[test]
fn history_is_a_table_of_versions_newest_first_with_what_changed() {
    let agent = Agent::start();
    teach(&agent, "general", "first rule");
    teach(&agent, "cold chain", "batteries \x1b[2J ship cold");
    let out = history(&agent, &[]).ok();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "History of the routing rule \"85\"");
    assert!(lines[2].starts_with("  Version"), "{out}");
    assert!(lines[2].contains("What changed"), "{out}");
    assert!(lines[3].starts_with("  2        0"), "{out}");
    assert!(lines[3].contains(ALICE), "{out}");
    assert!(lines[3].contains(r"batteries \u{1b}[2J ship cold"), "{out}");
    assert!(lines[3].ends_with("Desk: general → cold chain"), "{out}");
    assert!(lines[4].starts_with("  1        0"), "{out}");
    assert!(lines[4].contains("Desk: (empty) → general"), "{out}");
    assert!(!out.contains('\x1b'), "{out:?}");
    // Paged.
    let first = history(&agent, &["--limit", "1"]).ok();
    let more = first
        .lines()
        .find_map(|line| line.strip_prefix("Older versions: add --from "))
        .expect("a next page")
        .to_owned();
    let second = history(&agent, &["--limit", "1", "--from", &more]).ok();
    assert!(second.contains("\n  1        0"), "{second}");
    assert!(!second.contains("Older versions"), "{second}");
}

#[test]
fn revert_shows_the_change_and_teaches_only_when_confirmed() {
    let agent = Agent::start();
    let first = version_id(&teach(&agent, "general", "first rule"));
    teach(&agent, "cold chain", "oops");
    // No answer: nothing taught, and the command says it was cancelled.
    let refused = run(&revert_args(&agent, &first)).failed_with(130);
    assert!(refused.contains("Desk: cold chain → general"), "{refused}");
    assert!(refused.contains("not confirmed"), "{refused}");
    assert!(show(&agent, "routing_rules", "85").contains("Desk                 cold chain"));
    // Answered yes on standard input.
    let mut child = learnables(&revert_args(&agent, &first))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"y\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.starts_with("Learned: Chapter 85 declarations now go to the general desk"),
        "{stdout}"
    );
    assert!(show(&agent, "routing_rules", "85").contains("Desk                 general"));
    // --yes again: nothing new to learn.
    let again = run(&[&revert_args(&agent, &first)[..], &["--yes"]].concat()).ok();
    assert!(again.starts_with("Nothing new:"), "{again}");
    let out = history(&agent, &[]).ok();
    assert!(out.contains("Revert to version 1"), "{out}");
    // A version that is not the entry's is refused by the agent.
    let err = run(&[&revert_args(&agent, "no-such-version")[..], &["--yes"]].concat()).failed();
    assert!(err.contains("not a version of this entry"), "{err}");
}

#[test]
fn retract_asks_then_makes_the_entry_absent_and_history_shows_who_and_why() {
    let agent = Agent::start();
    teach(&agent, "general", "first rule");
    let args = [
        "retract",
        agent.url.as_str(),
        "--collection",
        "routing_rules",
        "--entry",
        "85",
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
        "--reason",
        "no such rule",
    ];
    let refused = run(&args).failed_with(130);
    assert!(refused.contains("not confirmed"), "{refused}");
    let retracted = run(&[&args[..], &["--yes"]].concat()).ok();
    assert!(
        retracted.starts_with("Learned: The routing rule 85 is retracted"),
        "{retracted}"
    );
    let out = history(&agent, &[]).ok();
    let newest = out.lines().nth(3).unwrap();
    assert!(newest.contains("no such rule"), "{out}");
    assert!(newest.ends_with("retracted"), "{out}");
    // Reverting to the first version teaches it again.
    let first = out
        .lines()
        .nth(4)
        .and_then(|line| line.split_whitespace().nth(1))
        .map(str::to_owned)
        .unwrap();
    let taught = run(&[&revert_args(&agent, &first)[..], &["--yes"]].concat()).ok();
    assert!(taught.starts_with("Learned:"), "{taught}");
    assert!(show(&agent, "routing_rules", "85").contains("Desk                 general"));
}

#[test]
fn retract_without_a_reason_sends_none() {
    let agent = Agent::start();
    teach(&agent, "general", "first rule");
    let retracted = run(&[
        "retract",
        agent.url.as_str(),
        "--collection",
        "routing_rules",
        "--entry",
        "85",
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
        "--yes",
    ])
    .ok();
    assert!(
        retracted.starts_with("Learned: The routing rule 85 is retracted"),
        "{retracted}"
    );
}
