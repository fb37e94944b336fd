//! The teach form, driven through a real pseudo-terminal: labels waited
//! for, answers typed, choices picked with the arrow keys, defaults
//! accepted; then what the agent learned checked with `learnables show`.

use crate::common;

use std::process::Command;

use common::{ALICE, ALICE_TOKEN, Agent, BIN, show, write_json};
use learnables::TeachBlock;
use rexpect::process::WaitStatus;
use rexpect::reader::Options;
use rexpect::session::{PtySession, spawn_with_options};
use serde_json::json;

/// Generous: a slow CI machine must not fail a test that waits on text.
const TIMEOUT_MS: u64 = 60_000;

const DOWN: &str = "\x1b[B";
const UP: &str = "\x1b[A";
const ENTER: &str = "\r";
const ESC: &str = "\x1b";

/// What a text input's help says: its prompt is drawn and reading keys.
const TEXT_READY: &str = "empty to leave out";
/// What a list's help says.
const LIST_READY: &str = "enter to pick";
/// What the review's question says.
const REVIEW_READY: &str = "enter to send";

/// The binary in a pseudo-terminal, teaching with `args`.
fn spawn(agent: &Agent, args: &[&str]) -> PtySession {
    let mut command = Command::new(BIN);
    command
        .arg("teach")
        .arg(&agent.url)
        .args(["--taught-by", ALICE])
        .args(args)
        .env("LEARNABLES_TOKEN", ALICE_TOKEN)
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color");
    spawn_with_options(
        command,
        Options::new()
            .timeout_ms(Some(TIMEOUT_MS))
            .strip_ansi_escape_codes(true),
    )
    .expect("the binary starts in a pseudo-terminal")
}

/// Waits for `label`, then for its input to be drawn and reading keys
/// (`ready`, the input's help, drawn last): what was drawn in between, the
/// input with its prefill.
fn input(session: &mut PtySession, label: &str, ready: &str) -> String {
    session
        .exp_string(label)
        .unwrap_or_else(|error| panic!("waiting for the label {label:?}: {error}"));
    session
        .exp_string(ready)
        .unwrap_or_else(|error| panic!("waiting for the input of {label:?}: {error}"))
}

/// Sends `keys` at once.
fn press(session: &mut PtySession, keys: &str) {
    session.send(keys).expect("keys are sent");
    session.flush().expect("keys are flushed");
}

/// Waits for the input of `label`, then sends `keys`.
fn answer(session: &mut PtySession, label: &str, ready: &str, keys: &str) {
    input(session, label, ready);
    press(session, keys);
}

/// Waits for `text` in the output.
fn expect(session: &mut PtySession, text: &str) {
    session
        .exp_string(text)
        .unwrap_or_else(|error| panic!("waiting for {text:?}: {error}"));
}

/// Waits for the end and returns the exit code.
fn finish(mut session: PtySession) -> i32 {
    session.exp_eof().expect("the binary ends");
    match session.process_mut().wait().expect("the binary is reaped") {
        WaitStatus::Exited(_, code) => code,
        other => panic!("the binary did not exit normally: {other:?}"),
    }
}

#[test]
fn typing_answers_and_picking_a_choice_with_the_arrow_keys() {
    let agent = Agent::start();
    let mut session = spawn(&agent, &["-c", "routing_rules", "-e", "85"]);
    expect(&mut session, "Teaching the routing rule \"85\"");
    // The chapter is the entry's key: `-e 85` gave it, so the form starts
    // at the desk. The desk list starts on the default, general; two down is cold chain.
    let list = input(&mut session, "Desk", LIST_READY);
    assert!(list.contains("> general"), "{list:?}");
    assert!(list.contains("  (leave empty)"), "{list:?}");
    // Each choice with what it means, from the variant's doc comment.
    assert!(
        list.contains("cold chain: Goods that must stay cold."),
        "{list:?}"
    );
    press(&mut session, DOWN);
    expect(&mut session, "> dangerous-goods");
    press(&mut session, DOWN);
    expect(&mut session, "> cold chain");
    press(&mut session, ENTER);
    answer(
        &mut session,
        "Note for the broker",
        TEXT_READY,
        "Lithium: keep cool\r",
    );
    answer(&mut session, "Reason", TEXT_READY, "New battery line\r");
    answer(&mut session, "Send this lesson?", REVIEW_READY, ENTER);
    expect(
        &mut session,
        "Learned: Chapter 85 declarations now go to the cold chain desk",
    );
    expect(&mut session, "Version 1 of the collection (");
    assert_eq!(finish(session), 0);
    let shown = show(&agent, "routing_rules", "85");
    assert!(
        shown.contains("  Desk                 cold chain\n"),
        "{shown}"
    );
    assert!(
        shown.contains("  Note for the broker  Lithium: keep cool\n"),
        "{shown}"
    );
    assert!(shown.contains("  Reason     New battery line\n"), "{shown}");
}

#[test]
fn the_default_is_prefilled_and_empty_answers_leave_fields_out() {
    let agent = Agent::start();
    let mut session = spawn(
        &agent,
        &["-c", "routing_rules", "-e", "84", "--reason", "Machinery"],
    );
    // Enter on the desk list takes the default it starts on.
    let list = input(&mut session, "Desk", LIST_READY);
    assert!(list.contains("> general"), "{list:?}");
    press(&mut session, ENTER);
    expect(&mut session, "> general");
    answer(&mut session, "Note for the broker", TEXT_READY, ENTER);
    answer(&mut session, "Send this lesson?", REVIEW_READY, ENTER);
    expect(
        &mut session,
        "Learned: Chapter 84 declarations now go to the general desk",
    );
    assert_eq!(finish(session), 0);
    let shown = show(&agent, "routing_rules", "84");
    assert!(
        shown.contains("  Note for the broker  (empty)\n"),
        "{shown}"
    );
    assert!(shown.contains("  Reason     Machinery\n"), "{shown}");
}

#[test]
fn an_unknown_kind_is_a_text_input() {
    let agent = Agent::start();
    let mut session = spawn(&agent, &["-c", "clearance_limits", "-e", "broker-17"]);
    answer(&mut session, "Limit in euros", TEXT_READY, "25000\r");
    expect(&mut session, "Review date");
    expect(
        &mut session,
        "When compliance looks at this limit again (YYYY-MM-DD).",
    );
    answer(
        &mut session,
        "date, typed as text",
        TEXT_READY,
        "2027-01-31\r",
    );
    answer(&mut session, "Reason", TEXT_READY, ENTER);
    answer(&mut session, "Send this lesson?", REVIEW_READY, ENTER);
    // Clearance limits are reviewed: the lesson waits for another teacher.
    expect(
        &mut session,
        "Waiting for review: another teacher must approve it",
    );
    expect(
        &mut session,
        "broker-17 may now clear up to EUR 25000 alone, until a review on 2027-01-31",
    );
    assert_eq!(finish(session), 0);
}

#[test]
fn a_question_prefills_the_form_with_its_suggestion() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    let question = write_json(dir.path(), "question.json", &agent.question(85));
    let mut session = spawn(&agent, &["--question", &question]);
    expect(
        &mut session,
        "Suggested: Unmatched chapters go to the general desk today",
    );
    // The question's entry is the chapter: the form does not ask for it.
    // The list starts on the suggested desk, general; one down is
    // dangerous-goods.
    let list = input(&mut session, "Desk", LIST_READY);
    assert!(list.contains("> general"), "{list:?}");
    press(&mut session, DOWN);
    expect(&mut session, "> dangerous-goods");
    press(&mut session, ENTER);
    answer(&mut session, "Note for the broker", TEXT_READY, ENTER);
    answer(&mut session, "Reason", TEXT_READY, ENTER);
    answer(&mut session, "Send this lesson?", REVIEW_READY, ENTER);
    expect(
        &mut session,
        "Learned: Chapter 85 declarations now go to the dangerous-goods desk",
    );
    assert_eq!(finish(session), 0);
    let shown = show(&agent, "routing_rules", "85");
    assert!(shown.contains("  HS chapter           85\n"), "{shown}");
}

#[test]
fn a_question_about_several_entries_asks_which() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    let mut message = json!({"messageId": "q", "role": "ROLE_AGENT", "parts": [{"text": "?"}]});
    TeachBlock::new("routing_rules", ["85", "86"])
        .attach_to(&mut message)
        .unwrap();
    let question = write_json(dir.path(), "question.json", &message);
    let mut session = spawn(&agent, &["--question", &question, "--set", "desk=general"]);
    answer(&mut session, "Which routing rule?", LIST_READY, DOWN);
    expect(&mut session, "> 86");
    press(&mut session, ENTER);
    // The chapter is the entry picked: only the note is asked.
    expect(&mut session, "Teaching the routing rule \"86\"");
    answer(&mut session, "Note for the broker", TEXT_READY, ENTER);
    answer(&mut session, "Reason", TEXT_READY, ENTER);
    answer(&mut session, "Send this lesson?", REVIEW_READY, ENTER);
    expect(
        &mut session,
        "Learned: Chapter 86 declarations now go to the general desk",
    );
    assert_eq!(finish(session), 0);
}

#[test]
fn escape_cancels_and_nothing_is_taught() {
    let agent = Agent::start();
    let mut session = spawn(&agent, &["-c", "routing_rules", "-e", "85"]);
    answer(&mut session, "Desk", LIST_READY, UP);
    expect(&mut session, "> (leave empty)");
    press(&mut session, ESC);
    expect(&mut session, "cancelled: nothing was sent to the agent");
    assert_eq!(finish(session), 130, "a cancelled form exits 130");
    let err = common::run(&[
        "show",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--token",
        ALICE_TOKEN,
    ])
    .failed();
    assert!(
        err.contains("the agent has not been taught the routing rule \"85\" yet"),
        "{err}"
    );
}

#[test]
fn ctrl_c_in_the_form_cancels_with_130_and_nothing_is_taught() {
    let agent = Agent::start();
    for (keys_before, at) in [("", "Desk"), ("\r", "Note for the broker")] {
        let mut session = spawn(&agent, &["-c", "routing_rules", "-e", "85"]);
        if keys_before.is_empty() {
            input(&mut session, at, LIST_READY);
        } else {
            answer(&mut session, "Desk", LIST_READY, keys_before);
            input(&mut session, at, TEXT_READY);
        }
        press(&mut session, "\x03");
        expect(&mut session, "cancelled: nothing was sent to the agent");
        assert_eq!(finish(session), 130, "Ctrl-C at {at}");
    }
    let err = common::run(&[
        "show",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--token",
        ALICE_TOKEN,
    ])
    .failed();
    assert!(
        err.contains("the agent has not been taught the routing rule \"85\" yet"),
        "{err}"
    );
}

#[test]
fn with_json_no_form_is_shown_even_on_a_terminal() {
    let agent = Agent::start();
    let mut session = spawn(&agent, &["-c", "routing_rules", "-e", "85", "--json"]);
    let drawn = session.exp_eof().expect("the binary ends without asking");
    assert!(!drawn.contains("Desk"), "{drawn}");
    assert!(drawn.contains("\"kind\": \"usage\""), "{drawn}");
    assert!(drawn.contains("--json shows no form"), "{drawn}");
    assert_eq!(finish(session), 2);
}

/// Whether `text` holds an SGR (colour or weight) escape sequence.
fn styled(text: &str) -> bool {
    text.match_indices("\x1b[").any(|(at, _)| {
        text[at + 2..]
            .chars()
            .find(|c| !c.is_ascii_digit() && *c != ';')
            == Some('m')
    })
}

#[test]
fn colour_on_a_terminal_unless_no_color_is_set() {
    let agent = Agent::start();
    for (no_color, expect_styled) in [(None, true), (Some("1"), false)] {
        let mut command = Command::new(BIN);
        command
            .args(["card", &agent.url])
            .env("TERM", "xterm-256color");
        match no_color {
            Some(value) => command.env("NO_COLOR", value),
            None => command.env_remove("NO_COLOR"),
        };
        let mut session = spawn_with_options(
            command,
            Options::new()
                .timeout_ms(Some(TIMEOUT_MS))
                .strip_ansi_escape_codes(false),
        )
        .expect("the binary starts in a pseudo-terminal");
        let output = session.exp_eof().expect("the card is shown");
        assert!(output.contains("routing_rules"), "{output:?}");
        assert_eq!(
            styled(&output),
            expect_styled,
            "NO_COLOR={no_color:?}: {output:?}"
        );
    }
}

#[test]
fn the_review_shows_the_lesson_and_no_sends_nothing() {
    let agent = Agent::start();
    let mut session = spawn(
        &agent,
        &["-c", "routing_rules", "-e", "85", "--reason", "Batteries"],
    );
    answer(&mut session, "Desk", LIST_READY, ENTER);
    answer(
        &mut session,
        "Note for the broker",
        TEXT_READY,
        " Keep upright \r",
    );
    let review = session
        .exp_string("Send this lesson?")
        .expect("the review is shown");
    expect(&mut session, REVIEW_READY);
    // The chapter, from the entry, shown once; what was typed, trimmed.
    assert_eq!(review.matches("HS chapter: 85").count(), 1, "{review:?}");
    assert!(review.contains("Desk: general"), "{review:?}");
    assert!(
        review.contains("Note for the broker: Keep upright\r\n"),
        "{review:?}"
    );
    assert!(review.contains("Reason: Batteries"), "{review:?}");
    press(&mut session, "n\r");
    assert_eq!(finish(session), 130, "a lesson not sent is cancelled");
    let err = common::run(&[
        "show",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--token",
        ALICE_TOKEN,
    ])
    .failed();
    assert!(
        err.contains("the agent has not been taught the routing rule \"85\" yet"),
        "{err}"
    );
}

#[test]
fn a_refused_value_is_asked_again_keeping_the_other_answers() {
    let agent = Agent::start();
    let mut session = spawn(
        &agent,
        &[
            "-c",
            "clearance_limits",
            "-e",
            "broker-17",
            "--reason",
            "New broker",
        ],
    );
    answer(&mut session, "Limit in euros", TEXT_READY, "lots\r");
    answer(&mut session, "Review date", TEXT_READY, "2027-01-31\r");
    answer(&mut session, "Send this lesson?", REVIEW_READY, ENTER);
    // The agent refuses the amount: only it is asked again, with what was
    // typed in it.
    expect(
        &mut session,
        "The agent refused: Limit in euros: \"lots\" is not accepted",
    );
    let again = input(&mut session, "Limit in euros", TEXT_READY);
    assert!(again.contains("lots"), "{again:?}");
    press(&mut session, &"\x7f".repeat(20));
    press(&mut session, "25000\r");
    let review = session
        .exp_string("Send this lesson?")
        .expect("the review is shown");
    expect(&mut session, REVIEW_READY);
    assert!(review.contains("Review date: 2027-01-31"), "{review:?}");
    assert!(review.contains("Limit in euros: 25000"), "{review:?}");
    press(&mut session, ENTER);
    // Clearance limits are reviewed: the lesson waits for another teacher.
    expect(
        &mut session,
        "Waiting for review: another teacher must approve it",
    );
    expect(
        &mut session,
        "broker-17 may now clear up to EUR 25000 alone, until a review on 2027-01-31",
    );
    assert_eq!(finish(session), 0);
}

#[test]
fn the_form_speaks_in_labels_and_plain_words() {
    let agent = Agent::start();
    let mut session = spawn(
        &agent,
        &[
            "-c",
            "clearance_limits",
            "-e",
            "broker-17",
            "--reason",
            "New broker",
        ],
    );
    // The header: the entry's noun and what the learnable teaches, no key.
    let header = session
        .exp_string("Limit in euros")
        .expect("the first field is asked");
    expect(&mut session, TEXT_READY);
    assert!(
        header.contains("Teaching the broker \"broker-17\"\r\n"),
        "{header:?}"
    );
    assert!(
        header.contains("How much a broker may clear without a second signature"),
        "{header:?}"
    );
    assert!(!header.contains('`'), "{header:?}");
    assert!(!header.contains("clearance_limits"), "{header:?}");
    press(&mut session, "lots\r");
    answer(&mut session, "Review date", TEXT_READY, "2027-01-31\r");
    answer(&mut session, "Send this lesson?", REVIEW_READY, ENTER);
    // The refusal names the field once, by its label.
    expect(&mut session, "The agent refused");
    let refusal = session.exp_string("\r\n").expect("the refusal's line ends");
    assert_eq!(
        refusal,
        ": Limit in euros: \"lots\" is not accepted: it must be a whole number from 0 to \
         4,294,967,295"
    );
    input(&mut session, "Limit in euros", TEXT_READY);
    press(&mut session, ESC);
    assert_eq!(finish(session), 130);
}
