//! `--json` on every command, through the built binary: standard output is
//! exactly one JSON document with the facts the text says, standard error
//! stays empty, and a failure is an error document with the same exit
//! status as in text.

use crate::common;

use common::stub::{NotHttp, closed_port_url};
use common::{ALICE, ALICE_TOKEN, Agent, run, write_json};
use serde_json::{Value, json};

const EVERY_FIELD: [&str; 6] = [
    "--set",
    "chapter=85",
    "--set",
    "desk=cold chain",
    "--set",
    "note=Keep upright",
];

fn teach(url: &str, token: &str, extra: &[&str]) -> common::Run {
    let mut args = vec![
        "--json",
        "teach",
        url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--taught-by",
        ALICE,
        "--token",
        token,
    ];
    args.extend_from_slice(extra);
    run(&args)
}

fn show(url: &str, entry: &str) -> common::Run {
    run(&[
        "show",
        url,
        "-c",
        "routing_rules",
        "-e",
        entry,
        "--token",
        ALICE_TOKEN,
        "--json",
    ])
}

#[test]
fn card_json_carries_the_declaration_and_the_lint() {
    let agent = Agent::start();
    let document = run(&["card", &agent.url, "--json"]).json(0);
    assert_eq!(document["url"], agent.url);
    assert_eq!(document["name"], "Customs agent");
    assert_eq!(document["lint"], json!({"ok": true, "violations": []}));
    let declaration = &document["declaration"];
    assert_eq!(declaration["teachMethod"], "rsaxb.learnables.Teach");
    let learnables = declaration["learnables"].as_array().unwrap();
    assert_eq!(learnables.len(), 2);
    assert_eq!(learnables[0]["collection"], "routing_rules");
    assert_eq!(learnables[0]["decidedBy"], "rules");
    assert_eq!(learnables[0]["lessonFields"][1]["name"], "desk");
    assert_eq!(learnables[0]["lessonFields"][1]["default"], "general");
    assert_eq!(
        learnables[0]["lessonFields"][1]["choices"],
        json!(["general", "dangerous-goods", "cold chain"])
    );
    assert!(
        document["skills"]
            .as_array()
            .unwrap()
            .contains(&json!({"id": "route-declaration", "name": "Route a declaration"})),
        "{document}"
    );

    // The same card, broken: the document still, with the violations, and
    // exit 1.
    let mut card = agent.card();
    card["capabilities"]["extensions"][0]["params"]["learnables"][0]["how"] = json!("TODO");
    let stub = common::stub::Stub::start(move |_| common::stub::Reply::json(&card));
    let document = run(&["--json", "card", &stub.url]).json(1);
    assert_eq!(document["lint"]["ok"], false);
    assert_eq!(
        document["lint"]["violations"],
        json!([{"path": "learnables[0].how", "message": "`how` is a placeholder (`TODO`)"}])
    );
    assert_eq!(document["declaration"]["learnables"][0]["how"], "TODO");
}

#[test]
fn card_json_errors_are_documents_with_the_exit_status() {
    let message = run(&["card", &closed_port_url(), "--json"]).json_error("network", 3);
    assert!(
        message.starts_with("cannot reach the agent at "),
        "{message}"
    );
    let garbage = NotHttp::start();
    let message = run(&["card", &garbage.url, "--json"]).json_error("notUnderstood", 4);
    assert!(message.contains("is not HTTP"), "{message}");
    let message = run(&["card", "ftp://x/", "--json"]).json_error("usage", 2);
    assert!(message.contains("`ftp`"), "{message}");
    // clap's own refusal, too.
    let message = run(&["card", "--json"]).json_error("usage", 2);
    assert!(message.contains("<URL>"), "{message}");
    let message = run(&["--json", "card", "http://x/", "--no-such-flag"]).json_error("usage", 2);
    assert!(message.contains("--no-such-flag"), "{message}");
}

#[test]
fn check_json_says_ok_or_lists_the_violations() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    let good = write_json(dir.path(), "good.json", &agent.card());
    assert_eq!(
        run(&["check", &good, "--json"]).json(0),
        json!({"file": good, "ok": true, "learnables": 2, "violations": []})
    );
    let mut card = agent.card();
    let learnables = &mut card["capabilities"]["extensions"][0]["params"]["learnables"];
    learnables[0]["how"] = json!("TBD");
    learnables[1]["lessonFields"][0]["label"] = json!("");
    let broken = write_json(dir.path(), "broken.json", &card);
    let document = run(&["check", &broken, "--json"]).json(1);
    assert_eq!(document["ok"], false);
    assert_eq!(document["file"], broken);
    let paths: Vec<&str> = document["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|violation| violation["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        ["learnables[0].how", "learnables[1].lessonFields[0].label"]
    );
    let bare = write_json(dir.path(), "bare.json", &json!({"name": "x"}));
    let message = run(&["check", &bare, "--json"]).json_error("lint", 1);
    assert!(message.contains("declares no Learnables"), "{message}");
    let message = run(&["check", "/no/such/card.json", "--json"]).json_error("usage", 2);
    assert!(
        message.starts_with("cannot read /no/such/card.json"),
        "{message}"
    );
}

#[test]
fn teach_json_carries_the_lesson_and_the_result() {
    let agent = Agent::start();
    let document = teach(
        &agent.url,
        ALICE_TOKEN,
        &[&EVERY_FIELD[..], &["-r", "Cold"]].concat(),
    )
    .json(0);
    assert_eq!(
        document["lesson"],
        json!({"collection": "routing_rules", "entry": "85", "taughtBy": ALICE,
               "reason": "Cold",
               "value": {"chapter": "85", "desk": "cold chain", "note": "Keep upright"}})
    );
    let result = &document["result"];
    assert_eq!(result["learned"], true);
    assert_eq!(
        result["describes"],
        "Chapter 85 declarations now go to the cold chain desk"
    );
    assert_eq!(result["definitionVersion"], 1);
    let first = result["versionId"].as_str().unwrap().to_owned();
    assert!(!first.is_empty());
    assert_eq!(document["warnings"], json!([]));

    let again = teach(&agent.url, ALICE_TOKEN, &EVERY_FIELD).json(0);
    assert_eq!(again["result"]["learned"], false);
    assert_eq!(again["result"]["versionId"], first.as_str());

    // With --json no form is shown, even with fields left: a usage error.
    let message = teach(&agent.url, ALICE_TOKEN, &["--set", "chapter=85"]).json_error("usage", 2);
    assert!(
        message.starts_with("--json shows no form, and Note for the broker has no value"),
        "{message}"
    );
    let taken = teach(&agent.url, ALICE_TOKEN, &["--set", "chapter=85", "-y"]).json(0);
    assert_eq!(
        taken["lesson"]["value"],
        json!({"chapter": "85", "desk": "general"})
    );
}

#[test]
fn teach_json_refusals_keep_the_agents_words() {
    let agent = Agent::start();
    let document = teach(&agent.url, "wrong-token", &EVERY_FIELD).json(1);
    let error = &document["error"];
    assert_eq!(error["kind"], "refused");
    assert_eq!(error["exitCode"], 1);
    assert_eq!(
        error["message"],
        "the agent refused the lesson: the bearer token is not valid"
    );
    assert_eq!(error["refusal"]["what"], "the lesson");
    assert_eq!(error["refusal"]["message"], "the bearer token is not valid");
    assert!(error["refusal"]["code"].as_i64().unwrap() < 0, "{document}");
    assert!(!document.to_string().contains("wrong-token"));

    let document = run(&[
        "--json",
        "teach",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--taught-by",
        "bob@example.com",
        "--token",
        ALICE_TOKEN,
        "--set",
        "chapter=85",
        "--set",
        "desk=general",
        "--set",
        "note=",
    ])
    .json(1);
    let refusal = &document["error"]["refusal"];
    assert_eq!(refusal["field"], "taughtBy");
    assert_eq!(refusal["problems"][0]["field"], "taughtBy");
    assert!(
        refusal["problems"][0]["description"]
            .as_str()
            .unwrap()
            .contains("bob@example.com"),
        "{document}"
    );
    let message = teach(&closed_port_url(), ALICE_TOKEN, &EVERY_FIELD).json_error("network", 3);
    assert!(message.starts_with("cannot reach the agent"), "{message}");
}

#[test]
fn show_json_carries_the_show_back() {
    let agent = Agent::start();
    teach(
        &agent.url,
        ALICE_TOKEN,
        &[&EVERY_FIELD[..], &["-r", "Ships cold"]].concat(),
    )
    .json(0);
    let document = show(&agent.url, "85").json(0);
    let shown = &document["showBack"];
    assert_eq!(shown["collection"], "routing_rules");
    assert_eq!(shown["entry"], "85");
    assert_eq!(
        shown["describes"],
        "Chapter 85 declarations now go to the cold chain desk"
    );
    assert_eq!(shown["taughtBy"], ALICE);
    assert_eq!(shown["reason"], "Ships cold");
    assert_eq!(shown["definitionVersion"], 1);
    let fields: Vec<(&str, &Value)> = shown["lessonFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|field| (field["label"].as_str().unwrap(), &field["default"]))
        .collect();
    assert_eq!(
        fields,
        [
            ("HS chapter", &json!("85")),
            ("Desk", &json!("cold chain")),
            ("Note for the broker", &json!("Keep upright"))
        ]
    );
    assert_eq!(document["warnings"], json!([]));

    let document = show(&agent.url, "86").json(1);
    assert_eq!(document["error"]["kind"], "refused");
    assert!(
        document["error"]["refusal"]["message"]
            .as_str()
            .unwrap()
            .contains("has no routing rule `86` yet"),
        "{document}"
    );
}

#[test]
fn show_json_puts_a_broken_cards_warning_in_the_document() {
    let agent = Agent::start();
    teach(&agent.url, ALICE_TOKEN, &EVERY_FIELD).json(0);
    let mut card = agent.card();
    card["capabilities"]["extensions"][0]["params"]["learnables"][0]["how"] = json!("TODO");
    let target = agent.url.clone();
    // The broken card in front of the real agent: each call passed on.
    let proxy = common::stub::Stub::start(move |request| {
        if request.is_card() {
            return common::stub::Reply::json(&card);
        }
        learnables_examples::install_crypto_provider();
        let mut call = reqwest::blocking::Client::new()
            .post(&target)
            .body(request.body.clone());
        for (name, value) in &request.headers {
            if name != "host" && name != "content-length" && name != "connection" {
                call = call.header(name, value);
            }
        }
        let answer: Value = call.send().unwrap().json().unwrap();
        common::stub::Reply::json(&answer)
    });
    let document = show(&proxy.url, "85").json(0);
    assert_eq!(document["showBack"]["entry"], "85");
    let warnings = document["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{document}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .starts_with("the agent's card breaks the Learnables spec (1 violation)"),
        "{document}"
    );
    // In text, the same warning goes to standard error.
    let run = run(&[
        "show",
        &proxy.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--token",
        ALICE_TOKEN,
    ]);
    assert!(
        run.stderr
            .starts_with("warning: the agent's card breaks the Learnables spec (1 violation)"),
        "{}",
        run.stderr
    );
}

#[test]
fn completions_and_man_json() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let document = run(&["completions", shell, "--json"]).json(0);
        assert_eq!(document["shell"], shell);
        let script = document["script"].as_str().unwrap();
        for command in ["card", "check", "teach", "show", "man"] {
            assert!(script.contains(command), "{shell}: {command}");
        }
    }
    let document = run(&["--json", "man"]).json(0);
    assert!(
        document["page"]
            .as_str()
            .unwrap()
            .lines()
            .any(|line| line.starts_with(".TH learnables 1"))
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    let document = run(&["--json", "man", "--out", out.to_str().unwrap()]).json(0);
    let written: Vec<&str> = document["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file.as_str().unwrap())
        .collect();
    // One page for the command and one for each of its subcommands.
    let commands = <learnables_cli::cli::Cli as clap::CommandFactory>::command();
    assert_eq!(
        written.len(),
        commands.get_subcommands().count() + 1,
        "{document}"
    );
    assert!(
        written
            .iter()
            .any(|file| file.ends_with("learnables-history.1"))
    );
    for file in written {
        assert!(std::path::Path::new(file).is_file(), "{file}");
    }
    run(&["completions", "tcsh", "--json"]).json_error("usage", 2);
}

#[test]
fn help_and_version_print_as_usual_with_json() {
    let help = run(&["--json", "--help"]).ok();
    assert!(
        help.starts_with("The teacher's command-line client"),
        "{help}"
    );
    assert!(help.contains("Exit status:"), "{help}");
    let version = run(&["--json", "--version"]).ok();
    assert!(version.starts_with("learnables "), "{version}");
}
