//! Every non-interactive command, and every refusal, run through the built
//! binary against the example customs agent.

use crate::common;

use common::{ALICE, ALICE_TOKEN, Agent, BOT, BOT_TOKEN, learnables, run, show, write_json};
use learnables::TeachBlock;
use serde_json::{Value, json};

const EVERY_FIELD: [&str; 6] = [
    "--set",
    "chapter=85",
    "--set",
    "desk=cold chain",
    "--set",
    "note=Keep upright",
];

fn teach(agent: &Agent, extra: &[&str]) -> common::Run {
    common::teach_as_alice(agent, "routing_rules", "85", extra)
}

fn pointer_mut<'a>(card: &'a mut Value, pointer: &str) -> &'a mut Value {
    card.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("the card has {pointer}"))
}

#[test]
fn card_renders_the_learnables_and_lints_clean() {
    let agent = Agent::start();
    let out = run(&["card", &agent.url]).ok();
    for expected in [
        "Customs agent can be taught 2 collections.",
        "Lessons go to the method `rsaxb.learnables.Teach`.",
        "routing_rules\n  Entry       routing rule\n",
        "  Teaches     Which desk handles a declaration\n",
        "  Today       A table keyed on the HS chapter; anything unmatched goes to the general desk\n",
        "  Decided by  rules\n",
        "  Skills      route-declaration (Route a declaration)\n",
        "    HS chapter  (chapter; text)\n      Two-digit chapter of the Harmonized System.\n",
        "    Desk  (desk; choice: general, dangerous-goods, cold chain; default general)\n",
        "    Review date  (review_after; date (entered as text))\n",
        "\nLint: ok, the declaration follows the Learnables spec\n",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in\n{out}");
    }
}

#[test]
fn no_colour_when_the_output_is_not_a_terminal() {
    let agent = Agent::start();
    let mut command = learnables(&["card", &agent.url]);
    command.env_remove("NO_COLOR").env("TERM", "xterm-256color");
    let run = common::Run::of(&mut command);
    assert!(!run.stdout.contains('\x1b'), "{:?}", run.stdout);
    assert!(!run.stderr.contains('\x1b'), "{:?}", run.stderr);
    let out = run.ok();
    assert!(out.contains("Lint: ok"), "{out}");
}

#[test]
fn card_of_an_agent_that_is_not_there_fails() {
    let agent = Agent::start();
    let url = agent.url.clone();
    drop(agent);
    let err = run(&["card", &url, "--timeout", "5"]).failed_with(3);
    assert!(err.contains("cannot reach the agent"), "{err}");
}

#[test]
fn check_passes_a_good_card() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    let file = write_json(dir.path(), "card.json", &agent.card());
    let out = run(&["check", &file]).ok();
    assert_eq!(
        out,
        format!("ok: {file} declares 2 learnables and follows the Learnables spec\n")
    );
}

#[test]
fn check_names_every_violation_by_its_path() {
    let agent = Agent::start();
    let mut card = agent.card();
    let learnables = "/capabilities/extensions/0/params/learnables";
    *pointer_mut(&mut card, &format!("{learnables}/0/how")) = json!("TBD");
    *pointer_mut(&mut card, &format!("{learnables}/0/lessonFields/1/default")) = json!("urgent");
    *pointer_mut(&mut card, &format!("{learnables}/1/lessonFields/0/label")) = json!("");
    let dir = tempfile::tempdir().unwrap();
    let file = write_json(dir.path(), "card.json", &card);
    let run = run(&["check", &file]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        "learnables[0].how: `how` is a placeholder (`TBD`)\n\
         learnables[0].lessonFields[1].default: the default \"urgent\" is not one of the \
         choices: general, dangerous-goods, cold chain\n\
         learnables[1].lessonFields[0].label: the label is empty; it needs at least one \
         character\n"
    );
    assert_eq!(
        run.stderr,
        format!("error: {file} breaks the Learnables spec: 3 violations\n")
    );
}

#[test]
fn check_accepts_a_required_declaration_and_refuses_a_core_teach_method_and_a_wrong_shape() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    // `required: true` is the agent's choice, not a violation.
    let mut card = agent.card();
    *pointer_mut(&mut card, "/capabilities/extensions/0/required") = json!(true);
    let file = write_json(dir.path(), "required.json", &card);
    let run1 = run(&["check", &file]);
    assert_eq!(run1.code, 0, "{}", run1.stdout);
    let mut card = agent.card();
    *pointer_mut(&mut card, "/capabilities/extensions/0/params/teachMethod") = json!("SendMessage");
    let file = write_json(dir.path(), "core.json", &card);
    let run3 = run(&["check", &file]);
    assert_eq!(run3.code, 1);
    assert!(
        run3.stdout
            .starts_with("teachMethod: `teachMethod` is the core A2A method `SendMessage`"),
        "{}",
        run3.stdout
    );
    let mut card = agent.card();
    *pointer_mut(&mut card, "/capabilities/extensions/0/params") = json!({"learnables": 3});
    let file = write_json(dir.path(), "shape.json", &card);
    let run2 = run(&["check", &file]);
    assert_eq!(run2.code, 1);
    assert!(run2.stdout.starts_with("params: "), "{}", run2.stdout);
}

#[test]
fn check_says_when_a_file_is_not_json_or_declares_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let not_json = dir.path().join("card.txt");
    std::fs::write(&not_json, "name: customs").unwrap();
    let err = run(&["check", not_json.to_str().unwrap()]).failed_with(2);
    assert!(
        err.starts_with(&format!("error: {} is not JSON: ", not_json.display())),
        "{err}"
    );
    let bare = write_json(
        dir.path(),
        "bare.json",
        &json!({"name": "Agent", "skills": []}),
    );
    let err = run(&["check", &bare]).failed();
    assert_eq!(
        err,
        format!(
            "error: {bare} declares no Learnables: no entry of capabilities.extensions has the \
             uri https://rsaxb.com/a2a/learnables/v1\n"
        )
    );
    let missing = dir.path().join("missing.json");
    let err = run(&["check", missing.to_str().unwrap()]).failed_with(2);
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn teach_with_every_field_set_asks_nothing_and_says_what_was_learned() {
    let agent = Agent::start();
    let out = teach(&agent, &EVERY_FIELD).ok();
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("Learned: Chapter 85 declarations now go to the cold chain desk")
    );
    let version = lines.next().unwrap();
    assert!(
        version.starts_with("Version 1 of the collection ("),
        "{out}"
    );
    assert!(version.ends_with(')') && version.len() > "Version 1 of the collection ()".len());
    assert_eq!(lines.next(), None);
}

#[test]
fn teaching_what_the_agent_knows_is_nothing_new() {
    let agent = Agent::start();
    let first = teach(&agent, &EVERY_FIELD).ok();
    let again = teach(&agent, &EVERY_FIELD).ok();
    assert!(
        again.starts_with(
            "Nothing new: the agent already knew this.\n\
             Chapter 85 declarations now go to the cold chain desk\n"
        ),
        "{again}"
    );
    assert_eq!(first.lines().last(), again.lines().last(), "same version");
    let changed = teach(
        &agent,
        &[
            "--set",
            "chapter=85",
            "--set",
            "desk=general",
            "--set",
            "note=",
        ],
    )
    .ok();
    assert!(
        changed.contains("Version 2 of the collection ("),
        "{changed}"
    );
    assert!(!changed.contains("after"), "{changed}");
}

#[test]
fn a_wrong_token_is_refused_with_the_agents_message_and_never_echoed() {
    let agent = Agent::start();
    let run = run(&[
        "teach",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--taught-by",
        ALICE,
        "--token",
        "guessed-token-123",
        "--set",
        "chapter=85",
        "--set",
        "desk=general",
        "--set",
        "note=",
    ]);
    let err = run.failed();
    assert_eq!(
        err,
        "error: the agent refused the lesson: the bearer token is not valid\n"
    );
    assert!(!err.contains("guessed-token-123"));
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
fn an_unknown_collection_names_the_collections_there_are() {
    let agent = Agent::start();
    let err = run(&[
        "teach",
        &agent.url,
        "-c",
        "routing_rule",
        "-e",
        "85",
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
    ])
    .failed_with(2);
    assert_eq!(
        err,
        "error: the agent has no learnable routing_rule; it has: routing_rules, \
         clearance_limits\n"
    );
}

#[test]
fn a_set_of_no_field_names_the_fields() {
    let agent = Agent::start();
    let err = teach(&agent, &["--set", "chapters=85"]).failed_with(2);
    assert_eq!(
        err,
        "error: --set chapters: no field has that name; the fields are: chapter (HS chapter), \
         desk (Desk), note (Note for the broker)\n"
    );
    let err = teach(&agent, &["--set", "desk=urgent"]).failed_with(2);
    assert!(
        err.contains("\"urgent\" is not one of the choices"),
        "{err}"
    );
}

#[test]
fn a_forged_taught_by_is_refused_naming_the_field() {
    let agent = Agent::start();
    let mut args = vec![
        "teach",
        agent.url.as_str(),
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--taught-by",
        "bob@example.com",
        "--token",
        ALICE_TOKEN,
    ];
    args.extend_from_slice(&EVERY_FIELD);
    let err = run(&args).failed();
    assert_eq!(
        err,
        "error: the agent refused the lesson: `taughtBy` is `bob@example.com`, but the \
         authenticated teacher is `alice@example.com`: a lesson names the person who teaches \
         it\n"
    );
}

#[test]
fn a_service_account_may_not_teach() {
    let agent = Agent::start();
    let mut args = vec![
        "teach",
        agent.url.as_str(),
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--taught-by",
        BOT,
        "--token",
        BOT_TOKEN,
    ];
    args.extend_from_slice(&EVERY_FIELD);
    let err = run(&args).failed();
    assert!(err.contains("looks like a service account"), "{err}");
}

#[test]
fn a_value_the_learnable_refuses_names_its_field() {
    let agent = Agent::start();
    let err = teach(
        &agent,
        &[
            "--set",
            "chapter=eighty-five",
            "--set",
            "desk=general",
            "--set",
            "note=",
        ],
    )
    .failed();
    assert!(
        err.starts_with("error: the agent refused the lesson: "),
        "{err}"
    );
    // By the field's label, in the agent's words for a teacher.
    assert!(
        err.starts_with(
            "error: the agent refused the lesson: HS chapter: \"eighty-five\" is not accepted"
        ),
        "{err}"
    );
}

#[test]
fn without_a_terminal_the_fields_left_are_named() {
    let agent = Agent::start();
    let err = teach(&agent, &["--set", "chapter=85"]).failed_with(2);
    assert!(
        err.contains("no terminal for the form, and Note for the broker has no value"),
        "{err}"
    );
}

#[test]
fn defaults_can_be_taken_without_asking() {
    let agent = Agent::start();
    let out = teach(&agent, &["--set", "chapter=85", "--accept-defaults"]).ok();
    assert!(
        out.starts_with("Learned: Chapter 85 declarations now go to the general desk\n"),
        "{out}"
    );
}

#[test]
fn show_renders_the_entry_as_learned() {
    let agent = Agent::start();
    teach(
        &agent,
        &[
            &EVERY_FIELD[..],
            &["--reason", "Lithium batteries ship cold"],
        ]
        .concat(),
    )
    .ok();
    let out = show(&agent, "routing_rules", "85");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "Routing rule \"85\"");
    assert_eq!(
        lines[1],
        "  Chapter 85 declarations now go to the cold chain desk"
    );
    assert_eq!(lines[3], "  HS chapter           85");
    assert_eq!(lines[4], "  Desk                 cold chain");
    assert_eq!(lines[5], "  Note for the broker  Keep upright");
    assert!(
        lines[7].starts_with("  Version    the entry's 1st; collection version 1 ("),
        "{out}"
    );
    assert_eq!(lines[8], "  Taught by  alice@example.com");
    assert!(lines[9].starts_with("  When       20"), "{out}");
    assert_eq!(lines[10], "  Reason     Lithium batteries ship cold");
}

#[test]
fn show_can_go_back_to_an_earlier_version() {
    let agent = Agent::start();
    let first = teach(&agent, &EVERY_FIELD).ok();
    let version_id = first
        .lines()
        .nth(1)
        .and_then(|line| line.strip_prefix("Version 1 of the collection ("))
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap()
        .to_owned();
    teach(
        &agent,
        &[
            "--set",
            "chapter=85",
            "--set",
            "desk=general",
            "--set",
            "note=",
        ],
    )
    .ok();
    let now = show(&agent, "routing_rules", "85");
    assert!(now.contains("  Desk                 general\n"), "{now}");
    let then = run(&[
        "show",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--token",
        ALICE_TOKEN,
        "--as-of",
        &version_id,
    ])
    .ok();
    assert!(
        then.contains("  Desk                 cold chain\n"),
        "{then}"
    );
    run(&[
        "teach",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "86",
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
        "--set",
        "chapter=86",
        "-y",
    ])
    .ok();
    let later = show(&agent, "routing_rules", "85");
    assert!(
        later.contains("  Version    the entry's 2nd; collection version 2 (")
            && later.contains("; the collection is now at version 3"),
        "{later}"
    );
    let err = run(&[
        "show",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--token",
        ALICE_TOKEN,
        "--as-of",
        "no-such-version",
    ])
    .failed();
    assert!(err.contains("no version has the id"), "{err}");
}

#[test]
fn the_token_may_come_from_the_environment() {
    let agent = Agent::start();
    let mut command = learnables(&[
        "teach",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--taught-by",
        ALICE,
    ]);
    command
        .args(EVERY_FIELD)
        .env("LEARNABLES_TOKEN", ALICE_TOKEN);
    let out = common::Run::of(&mut command).ok();
    assert!(out.starts_with("Learned: "), "{out}");
    let mut command = learnables(&["show", &agent.url, "-c", "routing_rules", "-e", "85"]);
    command.env("LEARNABLES_TOKEN", ALICE_TOKEN);
    let out = common::Run::of(&mut command).ok();
    assert!(out.contains("Keep upright"), "{out}");
    let err = run(&["show", &agent.url, "-c", "routing_rules", "-e", "85"]);
    assert_eq!(err.code, 2, "clap's usage error: {}", err.stderr);
    assert!(err.stderr.contains("--token <TOKEN>"), "{}", err.stderr);
}

#[test]
fn a_question_prefills_the_lesson() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    let question = write_json(dir.path(), "question.json", &agent.question(85));
    let out = run(&[
        "teach",
        &agent.url,
        "--question",
        &question,
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
        "--accept-defaults",
    ])
    .ok();
    assert!(
        out.starts_with("Learned: Chapter 85 declarations now go to the general desk\n"),
        "{out}"
    );
    let shown = show(&agent, "routing_rules", "85");
    assert!(shown.contains("  HS chapter           85\n"), "{shown}");
}

#[test]
fn a_question_about_several_entries_needs_one_picked() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    let mut message = json!({"messageId": "q", "role": "ROLE_AGENT", "parts": [{"text": "?"}]});
    let mut block = TeachBlock::new("routing_rules", ["85", "86"]);
    block.suggested = Some(serde_json::from_value(json!({"desk": "cold chain"})).unwrap());
    block.attach_to(&mut message).unwrap();
    let question = write_json(dir.path(), "question.json", &message);
    let base = [
        "teach",
        agent.url.as_str(),
        "--question",
        question.as_str(),
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
        "--set",
        "chapter=86",
        "-y",
    ];
    let err = run(&base).failed_with(2);
    assert!(
        err.contains("the question is about several entries (85, 86): pick one with --entry"),
        "{err}"
    );
    let out = run(&[&base[..], &["--entry", "86"]].concat()).ok();
    assert!(
        out.starts_with("Learned: Chapter 86 declarations now go to the cold chain desk\n"),
        "{out}"
    );
    let err = run(&[
        &base[..],
        &["--entry", "86", "--collection", "clearance_limits"],
    ]
    .concat())
    .failed_with(2);
    assert!(
        err.contains("the question is about routing_rules, not clearance_limits"),
        "{err}"
    );
}

#[test]
fn a_file_that_is_no_question_says_so() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    let file = write_json(dir.path(), "message.json", &json!({"parts": []}));
    let err = run(&[
        "teach",
        &agent.url,
        "--question",
        &file,
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
    ])
    .failed_with(2);
    assert!(err.contains("carries no teach block"), "{err}");
}

#[test]
fn every_command_has_help_and_no_help_shows_the_token() {
    for args in [
        &["--help"][..],
        &["card", "--help"],
        &["check", "--help"],
        &["teach", "--help"],
        &["show", "--help"],
    ] {
        let mut command = learnables(args);
        command.env("LEARNABLES_TOKEN", "secret-in-env-42");
        let out = common::Run::of(&mut command).ok();
        assert!(out.contains("Usage: learnables"), "{args:?}: {out}");
        assert!(!out.contains("secret-in-env-42"), "{args:?}: {out}");
    }
    let help = run(&["teach", "--help"]).ok();
    for option in [
        "--collection",
        "--entry",
        "--taught-by",
        "--token",
        "--reason",
        "--set",
        "--ca-cert",
        "--timeout",
    ] {
        assert!(help.contains(option), "{option}: {help}");
    }
}

#[test]
fn without_taught_by_the_lesson_names_the_person_the_agent_says_the_token_names() {
    let agent = Agent::start();
    let taught = run(&[
        "--json",
        "teach",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--token",
        ALICE_TOKEN,
        "--set",
        "chapter=85",
        "--set",
        "desk=general",
        "--set",
        "note=",
    ])
    .json(0);
    assert_eq!(taught["lesson"]["taughtBy"], ALICE);
    assert_eq!(taught["result"]["learned"], true);

    // A token the agent does not know names nobody: nothing is sent.
    let err = run(&[
        "teach",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--token",
        "guessed-token-123",
        "--set",
        "chapter=85",
        "--set",
        "desk=cold chain",
        "--set",
        "note=",
    ])
    .failed();
    assert!(err.contains("the bearer token is not valid"), "{err}");
    assert!(!err.contains("guessed-token-123"));
}

#[test]
fn a_question_is_read_from_the_answer_the_task_or_the_page_link() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    // Three questions: each lesson answers its own (and closes it).
    let answer = agent.question_answer(61);
    let task = agent.question_answer(63)["result"]["task"].clone();
    let link = format!(
        "{}learnables/#task={}",
        agent.url,
        agent.question_answer(64)["result"]["task"]["id"]
            .as_str()
            .unwrap()
    );
    let sources = [
        (write_json(dir.path(), "answer.json", &answer), "61"),
        (write_json(dir.path(), "task.json", &task), "63"),
        (link.clone(), "64"),
    ];
    for (source, entry) in &sources {
        let taught = run(&[
            "--json",
            "teach",
            &agent.url,
            "--question",
            source,
            "--token",
            ALICE_TOKEN,
            "--accept-defaults",
        ])
        .json(0);
        assert_eq!(taught["lesson"]["collection"], "routing_rules", "{source}");
        assert_eq!(taught["lesson"]["entry"], *entry, "{source}");
    }
    // The link of a question answered already says so, with its own exit
    // status: not a usage error, since the command line was right.
    let err = run(&[
        "teach",
        &agent.url,
        "--question",
        &link,
        "--token",
        ALICE_TOKEN,
        "-y",
    ])
    .failed_with(5);
    assert!(
        err.contains("the agent's question is answered already: Chapter 64 declarations go to the general desk."),
        "{err}"
    );
    let message = run(&[
        "--json",
        "teach",
        &agent.url,
        "--question",
        &link,
        "--token",
        ALICE_TOKEN,
        "-y",
    ])
    .json_error("answered", 5);
    assert!(message.contains("answered already"), "{message}");
    let help = run(&["teach", "--help"]).ok();
    assert!(
        help.contains("\n  5    the agent's question is answered already"),
        "{help}"
    );
}

#[test]
fn a_lesson_that_answers_the_question_says_so_with_the_agents_answer() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    let by_link = agent.question_answer(61);
    let link = format!(
        "{}learnables/#task={}",
        agent.url,
        by_link["result"]["task"]["id"].as_str().unwrap()
    );
    let by_file = write_json(dir.path(), "answer.json", &agent.question_answer(62));
    for (source, chapter) in [(link, 61), (by_file, 62)] {
        let out = run(&[
            "teach",
            &agent.url,
            "--question",
            &source,
            "--token",
            ALICE_TOKEN,
            "--set",
            "desk=cold chain",
            "-y",
        ])
        .ok();
        assert!(
            out.ends_with(&format!(
                "The agent's question is answered: Chapter {chapter} declarations go to the cold chain desk.\n"
            )),
            "{out}"
        );
    }
    // A question answered already says nothing of the kind again.
    let again = run(&[
        "--json",
        "teach",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "61",
        "--token",
        ALICE_TOKEN,
        "--set",
        "desk=general",
        "-y",
    ])
    .json(0);
    assert_eq!(again["answered"], serde_json::Value::Null);
}
