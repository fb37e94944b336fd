//! A hostile agent: its card, refusals, show-backs and lesson results hold
//! terminal escape sequences (OSC 52 clipboard writes, OSC 0 titles, OSC 8
//! links, CSI screen clears and cursor moves, DCS), C1 controls, BEL,
//! bidi overrides and zero-width characters. Every command is run against
//! it, in pipes and on a pseudo-terminal, and nothing of it may reach the
//! screen raw: only the command's own colour (SGR) and the spinner's line
//! clear are let through.

use crate::common;

use std::process::Command;
use std::sync::{Arc, Mutex};

use common::stub::{Reply, Request, Stub, teach_rules};
use common::{ALICE, BIN, Run, learnables, write_json};
use learnables::untrusted::is_hazard;
use learnables::{EXTENSION_URI, TEACH_METHOD, TeachBlock};
use rexpect::reader::Options;
use rexpect::session::{PtySession, spawn_with_options};
use serde_json::{Value, json};

/// Every attack at once.
const ATTACK: &str = concat!(
    "\x1b]52;c;cm0gLXJmIH4K\x07", // OSC 52: write the clipboard
    "\x1b]0;owned\x07",           // OSC 0: the window title
    "\x1b[2J\x1b[42A",            // CSI: clear the screen, cursor up
    "\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\", // OSC 8: a hidden link
    "\x1bP1$r\x1b\\",             // DCS
    "\u{9b}31m\u{9d}0;c1\u{9c}",  // C1 CSI, OSC, ST
    "\u{202e}txt.exe\u{2066}\u{200b}\u{feff}", // bidi override, isolate, invisibles
    "\r\x07"                      // carriage return, bell
);

/// What the start of [`ATTACK`] looks like, escaped.
const SHOWN: &str = r"\u{1b}]52;c;cm0gLXJmIH4K\u{7}\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[42A";

/// A hostile text for a card, with a word in front to find it by.
fn hostile(word: &str) -> String {
    format!("{word} {ATTACK}")
}

fn hostile_card() -> Value {
    json!({
        "name": hostile("Agent"),
        "skills": [{"id": "route", "name": hostile("Skill")}],
        "capabilities": {"extensions": [{"uri": EXTENSION_URI, "params": {
            "teachMethod": TEACH_METHOD,
            "learnables": [{
                "collection": "rules", "entry": hostile("rule"),
                "teaches": hostile("Teaches"), "how": hostile("A table kept by the team"),
                "decidedBy": hostile("rules"), "skills": ["route"],
                "lessonFields": [
                    {"name": "desk", "label": hostile("Desk"), "kind": "choice",
                     "help": hostile("Help"), "choices": ["general", ATTACK], "default": ATTACK},
                    {"name": "note", "label": hostile("Note"), "kind": "text",
                     "help": hostile("Note help"), "default": ATTACK},
                    {"name": "when", "label": hostile("When"), "kind": hostile("date")}
                ]
            }]
        }}]}
    })
}

fn hostile_result() -> Value {
    json!({"learned": true, "describes": hostile("Learned"), "definitionVersion": 1,
           "versionId": hostile("v1"), "previousVersionId": hostile("v0")})
}

fn hostile_refusal() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": hostile("Refused"),
           "data": [{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [
               {"field": hostile("field"), "description": hostile("bad field")},
               {"field": hostile("a"), "description": hostile("bad a")},
               {"description": hostile("bad")}]},
               {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": hostile("REASON")}]}})
}

fn hostile_show_back() -> Value {
    json!({"collection": hostile("rules"), "entry": hostile("entry"),
           "describes": hostile("Describes"),
           "lessonFields": [{"name": "desk", "label": hostile("Desk"), "kind": "text",
                             "default": hostile("value")}],
           "definitionVersion": 1, "versionId": hostile("v1"), "previousVersionId": hostile("v0"),
           "collectionVersion": 2, "taughtBy": hostile("who"), "reason": hostile("why"),
           "taughtAt": hostile("when")})
}

/// The hostile agent: the card; a lesson result, or a refusal for the
/// token `refuse`; a show-back. Every request is kept.
fn hostile_agent() -> (Stub, Arc<Mutex<Vec<Request>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&seen);
    let stub = Stub::start(move |request| {
        kept.lock().unwrap().push(request.clone());
        if request.is_card() {
            return Reply::json(&hostile_card());
        }
        let refuse = request
            .headers
            .iter()
            .any(|(name, value)| name == "authorization" && value == "Bearer refuse");
        match request.rpc_method().as_deref() {
            _ if refuse => Reply::json(&hostile_refusal()),
            Some(TEACH_METHOD) => Reply::result(hostile_result()),
            _ => Reply::result(hostile_show_back()),
        }
    });
    (stub, seen)
}

fn teach(url: &str, token: &str) -> Vec<String> {
    let sets = [
        "--set",
        "desk=general",
        "--set",
        "note=plain",
        "--set",
        "when=",
    ];
    teach_rules(url, token, &sets)
}

/// Every command against the hostile agent, with the text each must show
/// (escaped), and whether it succeeds.
fn every_command(url: &str, dir: &std::path::Path) -> Vec<(Vec<String>, &'static str, bool)> {
    // A card whose learnable names a skill the card lacks: the lint quotes it.
    let mut broken = hostile_card();
    broken["capabilities"]["extensions"][0]["params"]["learnables"][0]["skills"] =
        json!([hostile("Skill id")]);
    let card = write_json(dir, "card.json", &broken);
    let mut question = json!({"messageId": "q", "role": "ROLE_AGENT", "parts": []});
    let mut block = TeachBlock::new("rules", [hostile("e1"), hostile("e2")]);
    block.suggestion_label = Some(hostile("Suggested"));
    block.attach_to(&mut question).unwrap();
    let question = write_json(dir, "question.json", &question);
    let owned = |args: &[&str]| args.iter().map(|arg| (*arg).to_owned()).collect::<Vec<_>>();
    vec![
        // Shown escaped, and failing the lint: its declaration hides characters.
        (owned(&["card", url]), "Agent ", false),
        (owned(&["check", &card]), "no skill `Skill id ", false),
        (teach(url, "tok"), "Learned ", true),
        (teach(url, "refuse"), "bad field ", false),
        (
            owned(&["show", url, "-c", "rules", "-e", "r1", "--token", "tok"]),
            "Describes ",
            true,
        ),
        (
            owned(&["show", url, "-c", "rules", "-e", "r1", "--token", "refuse"]),
            "bad field ",
            false,
        ),
        (
            owned(&[
                "teach",
                url,
                "--question",
                &question,
                "--taught-by",
                ALICE,
                "--token",
                "tok",
                "-y",
            ]),
            "e1 ",
            false,
        ),
    ]
}

/// Asserts that `output` holds nothing of the attack raw: after the
/// command's own SGR sequences and the spinner's `\r` and line clear are
/// taken out, no control character but `\n`, no bidi or invisible
/// character.
fn assert_inert(output: &str, context: &str) {
    let mut rest = output.replace("\r\x1b[2K", "").replace("\r\n", "\n");
    // The spinner's frames start with `\r`: drop them, they are ours.
    rest = rest.replace('\r', "");
    let mut cleaned = String::new();
    let mut chars = rest.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == '\x1b' {
            let tail = &rest[at + 1..];
            if let Some(params) = tail.strip_prefix('[')
                && let Some(end) = params.find(|p: char| !p.is_ascii_digit() && p != ';')
                && params[end..].starts_with('m')
            {
                for _ in 0..end + 2 {
                    chars.next();
                }
                continue;
            }
        }
        cleaned.push(c);
    }
    let raw: Vec<char> = cleaned
        .chars()
        .filter(|c| *c != '\n' && is_hazard(*c))
        .collect();
    assert!(raw.is_empty(), "{context}: raw {raw:?} in {output:?}");
}

/// Asserts that none of the attack's sequences is in what a form drew
/// (a form moves the cursor and clears lines itself, so the strict
/// [`assert_inert`] does not apply).
fn assert_no_attack(drawn: &str) {
    for raw in [
        "\x1b]", "\x1bP", "\x1b\\", "\x1b[2J", "\x1b[42A", "\x07", "\u{9b}", "\u{9d}", "\u{9c}",
        "\u{202e}", "\u{2066}", "\u{200b}", "\u{feff}",
    ] {
        assert!(!drawn.contains(raw), "{raw:?} drawn raw: {drawn:?}");
    }
}

#[test]
fn nothing_hostile_reaches_a_pipe() {
    let (agent, _) = hostile_agent();
    let dir = tempfile::tempdir().unwrap();
    for (args, word, succeeds) in every_command(&agent.url, dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = Run::of(&mut learnables(&args));
        let context = format!("{args:?}");
        assert_eq!(
            run.code == 0,
            succeeds,
            "{context}: {}{}",
            run.stdout,
            run.stderr
        );
        for output in [&run.stdout, &run.stderr] {
            assert!(
                output.chars().all(|c| c == '\n' || !is_hazard(c)),
                "{context}: {output:?}"
            );
        }
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(all.contains(&format!("{word}{SHOWN}")), "{context}: {all}");
    }
}

/// What the terminal received, as UTF-8: the pseudo-terminal's reader
/// hands each byte over as a char.
fn utf8(received: &str) -> String {
    let bytes: Vec<u8> = received
        .chars()
        .map(|c| u8::try_from(u32::from(c)).expect("one byte a char"))
        .collect();
    String::from_utf8(bytes).expect("the command writes UTF-8")
}

/// Sends `keys` at once.
fn press(session: &mut PtySession, keys: &str) {
    session.send(keys).expect("keys are sent");
    session.flush().expect("keys are flushed");
}

/// The binary with `args` on a pseudo-terminal, colour on unless
/// `no_color`.
fn on_a_terminal(args: &[&str], no_color: bool) -> PtySession {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env("TERM", "xterm-256color")
        .env_remove("LEARNABLES_TOKEN");
    if no_color {
        command.env("NO_COLOR", "1");
    } else {
        command.env_remove("NO_COLOR");
    }
    spawn_with_options(
        command,
        Options::new()
            .timeout_ms(Some(60_000))
            .strip_ansi_escape_codes(false),
    )
    .expect("the binary starts in a pseudo-terminal")
}

#[test]
fn nothing_hostile_reaches_a_terminal() {
    let (agent, _) = hostile_agent();
    let dir = tempfile::tempdir().unwrap();
    for no_color in [true, false] {
        for (args, word, _) in every_command(&agent.url, dir.path()) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            // Standard input is the terminal too: the question about two
            // entries asks which (a list of the escaped entries); every
            // field is given or taken from its default.
            let mut session = on_a_terminal(&args, no_color);
            let mut output = String::new();
            let form = args.contains(&"--question");
            if form {
                output.push_str(&session.exp_string("enter to pick").expect("the list"));
                press(&mut session, "\r");
            }
            output.push_str(&session.exp_eof().expect("the command ends"));
            let output = utf8(&output);
            let context = format!("{args:?}, NO_COLOR {no_color}");
            if form {
                assert_no_attack(&output);
            } else {
                assert_inert(&output, &context);
            }
            assert!(
                output.contains(&format!("{word}{SHOWN}")),
                "{context}: {output:?}"
            );
        }
    }
}

/// The form draws the card's labels, help, kinds and choices: escaped.
/// A picked choice is sent as the card wrote it; a prefill is put in the
/// input escaped, and sent as shown.
#[test]
fn the_form_shows_a_hostile_card_escaped() {
    let (agent, seen) = hostile_agent();
    let args = teach_rules(&agent.url, "tok", &["--reason", "because"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut session = on_a_terminal(&args, false);
    let mut drawn = String::new();
    let mut wait = |session: &mut PtySession, text: &str| {
        drawn.push_str(
            &session
                .exp_string(text)
                .unwrap_or_else(|error| panic!("waiting for {text:?}: {error}")),
        );
        drawn.push_str(text);
    };
    wait(&mut session, &format!("Desk {SHOWN}"));
    wait(&mut session, &format!("Help {SHOWN}"));
    wait(&mut session, "enter to pick");
    press(&mut session, "\r");
    wait(&mut session, &format!("Note {SHOWN}"));
    wait(&mut session, "empty to leave out");
    press(&mut session, "\r");
    wait(&mut session, &format!("When {SHOWN}"));
    wait(&mut session, "typed as text");
    press(&mut session, "\r");
    // The review repeats the labels and values: escaped too.
    wait(&mut session, "enter to send");
    press(&mut session, "\r");
    wait(&mut session, &format!("Learned {SHOWN}"));
    drawn.push_str(&session.exp_eof().expect("the command ends"));
    let drawn = utf8(&drawn);
    assert_no_attack(&drawn);
    let lesson = seen
        .lock()
        .unwrap()
        .iter()
        .find(|request| request.rpc_method().as_deref() == Some(TEACH_METHOD))
        .map(|request| serde_json::from_str::<Value>(&request.body).unwrap())
        .expect("the lesson was sent");
    let value = &lesson["params"]["value"];
    assert_eq!(
        value["desk"], ATTACK,
        "the picked choice, as the card wrote it"
    );
    assert_eq!(
        value["note"],
        learnables::untrusted::Untrusted::new(ATTACK).to_string(),
        "the prefill, as it was shown"
    );
}

/// Every string in a JSON document.
fn strings(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::String(text) => into.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings(item, into)),
        Value::Object(map) => map.values().for_each(|item| strings(item, into)),
        _ => {}
    }
}

/// With `--json` the hostile text is data: the document holds it as the
/// agent sent it (JSON's own escaping keeps every C0 control out of the
/// bytes printed), and only an error's sentence shows it escaped, as on
/// standard error.
#[test]
fn with_json_hostile_text_is_data() {
    let (agent, _) = hostile_agent();
    let dir = tempfile::tempdir().unwrap();
    for (mut args, word, succeeds) in every_command(&agent.url, dir.path()) {
        args.push("--json".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = Run::of(&mut learnables(&args));
        let context = format!("{args:?}");
        assert_eq!(run.code == 0, succeeds, "{context}: {}", run.stdout);
        assert_eq!(run.stderr, "", "{context}");
        assert!(
            !run.stdout
                .chars()
                .any(|c| c != '\n' && c.is_ascii_control()),
            "{context}: {:?}",
            run.stdout
        );
        let document: Value = serde_json::from_str(&run.stdout).expect("one JSON document");
        let mut all = Vec::new();
        strings(&document, &mut all);
        if run.code == 2 {
            // A usage error's sentence, built for a person.
            let message = document["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(&format!("{word}{SHOWN}")),
                "{context}: {message}"
            );
        } else {
            let raw = format!("{word}{ATTACK}");
            assert!(
                all.iter().any(|text| text.contains(&raw)),
                "{context}: {document}"
            );
        }
    }
}
