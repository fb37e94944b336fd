//! Every command's exit status for each kind of failure it can meet, run
//! through the built binary: 0 ok, 1 refused or lint violations, 2 usage,
//! 3 network or TLS, 4 an answer not understood (130, a cancelled form, is
//! in `form.rs`: it needs a terminal).

use crate::common;

use std::sync::Arc;

use common::stub::{NotHttp, Reply, Stub, closed_port_url, self_signed_localhost};
use common::{ALICE, ALICE_TOKEN, Agent, Run, run, write_json};
use serde_json::{Value, json};

const EVERY_FIELD: [&str; 6] = [
    "--set",
    "chapter=85",
    "--set",
    "desk=cold chain",
    "--set",
    "note=Keep upright",
];

fn teach_args(url: &str, token: &str) -> Vec<String> {
    [
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
    ]
    .iter()
    .chain(&EVERY_FIELD)
    .map(|arg| (*arg).to_owned())
    .collect()
}

fn show_args(url: &str, entry: &str) -> Vec<String> {
    [
        "show",
        url,
        "-c",
        "routing_rules",
        "-e",
        entry,
        "--token",
        ALICE_TOKEN,
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .collect()
}

/// Runs `args` and asserts its exit status: standard error, for a look at
/// why.
fn exits(args: &[String], code: i32, why: &str) -> String {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = run(&args);
    assert_eq!(
        result.code, code,
        "{why}: {args:?}\nstdout:\n{}\nstderr:\n{}",
        result.stdout, result.stderr
    );
    result.stderr
}

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|arg| (*arg).to_owned()).collect()
}

/// A stub serving `card` and answering every call with `result`.
fn serving(card: Value, result: Value) -> Stub {
    Stub::start(move |request| {
        if request.is_card() {
            Reply::json(&card)
        } else {
            Reply::result(result.clone())
        }
    })
}

/// A stub over TLS with a certificate no one trusts, serving `card`.
fn untrusted_tls(card: Value) -> Stub {
    let (tls, _pem) = self_signed_localhost();
    Stub::start_tls(Arc::clone(&tls), move |request| {
        if request.is_card() {
            Reply::json(&card)
        } else {
            Reply::result(json!({}))
        }
    })
}

#[test]
fn card_exits_by_kind() {
    let agent = Agent::start();
    let card = agent.card();
    exits(&owned(&["card", &agent.url]), 0, "a clean card");

    let mut broken = card.clone();
    broken["capabilities"]["extensions"][0]["params"]["learnables"][0]["how"] = json!("TODO");
    let stub = serving(broken, json!({}));
    let err = exits(&owned(&["card", &stub.url]), 1, "lint violations");
    assert!(
        err.contains("breaks the Learnables spec: 1 violation"),
        "{err}"
    );
    let bare = serving(json!({"name": "Bare"}), json!({}));
    let err = exits(&owned(&["card", &bare.url]), 1, "no declaration");
    assert!(err.contains("declares no Learnables"), "{err}");

    exits(&owned(&["card"]), 2, "clap: no URL");
    let err = exits(&owned(&["card", "ftp://agent/"]), 2, "not an http URL");
    assert!(err.contains("`ftp`"), "{err}");
    exits(
        &owned(&["card", &agent.url, "--ca-cert", "/no/such/ca.pem"]),
        2,
        "a --ca-cert that cannot be read",
    );

    let err = exits(&owned(&["card", &closed_port_url()]), 3, "a closed port");
    assert!(err.contains("cannot reach the agent"), "{err}");
    let tls = untrusted_tls(card.clone());
    let err = exits(
        &owned(&["card", &tls.url]),
        3,
        "a TLS certificate not trusted",
    );
    assert!(err.contains("does not trust"), "{err}");
    let err = exits(
        &owned(&["card", &agent.url.replace("http:", "https:")]),
        3,
        "TLS to a plain HTTP port",
    );
    assert!(err.contains("https://127.0.0.1:"), "{err}");

    let garbage = NotHttp::start();
    let err = exits(
        &owned(&["card", &garbage.url]),
        4,
        "an answer that is not HTTP",
    );
    assert!(err.contains("is not HTTP"), "{err}");
    let not_json = Stub::start(|_| Reply::streamed(common::stub::Body::Bytes(b"<html>".to_vec())));
    let err = exits(
        &owned(&["card", &not_json.url]),
        4,
        "a card that is not JSON",
    );
    assert!(err.contains("is not JSON"), "{err}");
    let missing = Stub::start(|_| Reply {
        status: 404,
        headers: vec![],
        body: common::stub::Body::Bytes(Vec::new()),
    });
    let err = exits(
        &owned(&["card", &missing.url]),
        4,
        "no card there (HTTP 404)",
    );
    assert!(err.contains("HTTP 404"), "{err}");
}

#[test]
fn check_exits_by_kind() {
    let agent = Agent::start();
    let dir = tempfile::tempdir().unwrap();
    let good = write_json(dir.path(), "good.json", &agent.card());
    exits(&owned(&["check", &good]), 0, "a clean card");
    let mut card = agent.card();
    card["capabilities"]["extensions"][0]["params"]["learnables"][0]["how"] = json!("TBD");
    let broken = write_json(dir.path(), "broken.json", &card);
    exits(&owned(&["check", &broken]), 1, "lint violations");
    let bare = write_json(dir.path(), "bare.json", &json!({"name": "x"}));
    exits(&owned(&["check", &bare]), 1, "no declaration");
    exits(&owned(&["check"]), 2, "clap: no file");
    let missing = dir.path().join("missing.json");
    exits(
        &owned(&["check", missing.to_str().unwrap()]),
        2,
        "no such file",
    );
    let text = dir.path().join("card.txt");
    std::fs::write(&text, "name: x").unwrap();
    exits(
        &owned(&["check", text.to_str().unwrap()]),
        2,
        "a file that is not JSON",
    );
}

#[test]
fn check_reads_standard_input() {
    let agent = Agent::start();
    let mut command = common::learnables(&["check", "-"]);
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(agent.card().to_string().as_bytes())
            .unwrap();
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("ok: - declares 2 learnables"));
}

#[test]
fn teach_exits_by_kind() {
    let agent = Agent::start();
    let card = agent.card();
    exits(&teach_args(&agent.url, ALICE_TOKEN), 0, "a lesson learned");

    let err = exits(
        &teach_args(&agent.url, "wrong-token"),
        1,
        "the agent refuses",
    );
    assert!(err.contains("the agent refused the lesson"), "{err}");
    let mut no_method = card.clone();
    no_method["capabilities"]["extensions"][0]["params"]
        .as_object_mut()
        .unwrap()
        .remove("teachMethod");
    let stub = serving(no_method, json!({}));
    let err = exits(
        &teach_args(&stub.url, ALICE_TOKEN),
        1,
        "the agent takes no lessons",
    );
    assert!(err.contains("names no teachMethod"), "{err}");
    let mut core = card.clone();
    core["capabilities"]["extensions"][0]["params"]["teachMethod"] = json!("SendMessage");
    let stub = serving(core, json!({}));
    exits(
        &teach_args(&stub.url, ALICE_TOKEN),
        1,
        "the lint refuses the teachMethod",
    );

    let mut unknown = teach_args(&agent.url, ALICE_TOKEN);
    unknown.extend(owned(&["--set", "desks=x"]));
    exits(&unknown, 2, "a --set of no field");
    let mut no_token = teach_args(&agent.url, ALICE_TOKEN);
    no_token.drain(8..10);
    exits(&no_token, 2, "clap: no --token");
    let mut choice = teach_args(&agent.url, ALICE_TOKEN);
    choice[13] = "desk=urgent".into();
    let err = exits(&choice, 2, "a choice that is not one");
    assert!(
        err.contains("\"urgent\" is not one of the choices"),
        "{err}"
    );
    let fields_left = owned(&[
        "teach",
        &agent.url,
        "-c",
        "routing_rules",
        "-e",
        "85",
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
        "--set",
        "chapter=85",
    ]);
    exits(&fields_left, 2, "fields without a value and no terminal");
    let mut collection = teach_args(&agent.url, ALICE_TOKEN);
    collection[3] = "routing_rule".into();
    exits(&collection, 2, "a collection the agent does not have");

    exits(
        &teach_args(&closed_port_url(), ALICE_TOKEN),
        3,
        "a closed port",
    );
    let tls = untrusted_tls(card.clone());
    exits(
        &teach_args(&tls.url, ALICE_TOKEN),
        3,
        "a TLS certificate not trusted",
    );

    let garbage = NotHttp::start();
    exits(
        &teach_args(&garbage.url, ALICE_TOKEN),
        4,
        "an answer that is not HTTP",
    );
    let stub = serving(card.clone(), json!({"learnedIt": "yes"}));
    let err = exits(
        &teach_args(&stub.url, ALICE_TOKEN),
        4,
        "a result that is no LessonResult",
    );
    assert!(err.contains("is not a LessonResult"), "{err}");
    let neither = Stub::start(move |request| {
        if request.is_card() {
            Reply::json(&card)
        } else {
            Reply::json(&json!({"jsonrpc": "2.0", "id": 1}))
        }
    });
    let err = exits(
        &teach_args(&neither.url, ALICE_TOKEN),
        4,
        "neither a result nor an error",
    );
    assert!(err.contains("neither a result nor an error"), "{err}");
}

#[test]
fn show_exits_by_kind() {
    let agent = Agent::start();
    let card = agent.card();
    exits(&teach_args(&agent.url, ALICE_TOKEN), 0, "a lesson learned");
    exits(&show_args(&agent.url, "85"), 0, "an entry shown");

    let err = exits(
        &show_args(&agent.url, "86"),
        1,
        "the agent refuses: no such entry",
    );
    assert!(
        err.contains("the agent has not been taught the routing rule \"86\" yet"),
        "{err}"
    );

    exits(
        &owned(&["show", &agent.url, "-e", "85", "--token", "t"]),
        2,
        "clap: no --collection",
    );
    exits(&show_args("http://", "85"), 2, "a URL with no host");

    exits(&show_args(&closed_port_url(), "85"), 3, "a closed port");
    let tls = untrusted_tls(card.clone());
    exits(
        &show_args(&tls.url, "85"),
        3,
        "a TLS certificate not trusted",
    );

    let garbage = NotHttp::start();
    exits(
        &show_args(&garbage.url, "85"),
        4,
        "an answer that is not HTTP",
    );
    let stub = serving(card, json!({"entry": 85}));
    let err = exits(
        &show_args(&stub.url, "85"),
        4,
        "a result that is no show-back",
    );
    assert!(err.contains("does not read as one"), "{err}");
}

#[test]
fn completions_and_man_exit_by_kind() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        exits(&owned(&["completions", shell]), 0, shell);
    }
    exits(
        &owned(&["completions", "tcsh"]),
        2,
        "clap: a shell it does not know",
    );
    exits(&owned(&["completions"]), 2, "clap: no shell");
    exits(&owned(&["man"]), 0, "the page");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let err = exits(
        &owned(&["man", "--out", file.to_str().unwrap()]),
        2,
        "--out is a file",
    );
    assert!(err.contains("cannot make"), "{err}");
}

#[test]
fn help_documents_every_exit_status() {
    for args in [
        &["--help"][..],
        &["card", "--help"],
        &["check", "--help"],
        &["teach", "--help"],
        &["show", "--help"],
    ] {
        let help = Run::of(&mut common::learnables(args)).ok();
        for line in [
            "Exit status:",
            "  0    success",
            "  1    the agent refused",
            "  2    usage",
            "  3    network or TLS",
            "  4    the agent's answer was not understood",
            "  130  cancelled",
        ] {
            assert!(help.contains(line), "{args:?}: {line:?} in\n{help}");
        }
    }
}
