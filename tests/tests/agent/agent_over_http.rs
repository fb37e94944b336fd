//! The example customs agent driven over real HTTP on 127.0.0.1: the whole
//! Learnables flow, activation and its echo, and every refusal.

use learnables_tests::support::agent as agent_harness;

use agent_harness::{ACTIVATED, AS_ALICE, AS_BOT, Agent};
use learnables::a2a::CardDeclaration;
use learnables::a2a::json_rpc::codes;
use learnables::{EXTENSION_URI, TeachBlock};
use learnables_examples::customs_agent::POSITION_KEY;
use serde_json::json;

fn agent() -> (Agent, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (Agent::start(dir.path()), dir)
}

#[test]
fn the_whole_flow_from_question_to_new_knowledge_and_restart() {
    let (agent, dir) = agent();

    // The card declares the learnables, valid against the spec's rules.
    let card = agent.card();
    let declared = CardDeclaration::read(&card)
        .unwrap()
        .expect("a declaration");
    assert_eq!(declared.params.learnables[0].collection, "routing_rules");
    assert_eq!(
        declared.params.teach_method.as_deref(),
        Some("rsaxb.learnables.Teach")
    );

    // Asked about a chapter it has no rule for, the agent asks, with a teach block.
    let first = agent.route(85, None, &[ACTIVATED]);
    assert_eq!(first["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let question = &first["status"]["message"];
    assert_eq!(question["role"], "ROLE_AGENT");
    assert!(
        question["extensions"]
            .as_array()
            .unwrap()
            .contains(&json!(EXTENSION_URI))
    );
    let block = TeachBlock::from_message(question)
        .unwrap()
        .expect("a teach block");
    assert_eq!(block.collection, "routing_rules");
    assert_eq!(block.entries, ["85"]);
    assert_eq!(block.suggested.as_ref().unwrap()["desk"], "general");
    block
        .validate(&declared.params.learnables[0])
        .expect("the block fits the declared learnable");
    let first_task = first["id"].as_str().unwrap().to_owned();
    assert_eq!(first["metadata"][POSITION_KEY], "0");

    // The teacher answers through the teach method.
    let taught = agent.teach_rule(85, "cold chain");
    let result = taught.result();
    assert_eq!(result["learned"], true);
    assert_eq!(result["definitionVersion"], 1);
    assert_eq!(
        result["describes"],
        "Chapter 85 declarations now go to the cold chain desk"
    );
    let version_id = result["versionId"].as_str().unwrap().to_owned();

    // Show-back: the entry as learned.
    let shown = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "85"}),
    );
    let shown = shown.result();
    assert_eq!(shown.get("value"), None, "the lesson value stays opaque");
    assert_eq!(shown["lessonFields"][0]["default"], "85");
    assert_eq!(shown["lessonFields"][1]["default"], "cold chain");
    assert_eq!(shown["lessonFields"][2].get("default"), None);
    assert_eq!(shown["versionId"], version_id);
    assert_eq!(shown["taughtBy"], "alice@example.com");
    assert_eq!(shown["lessonFields"][1]["choices"][2], "cold chain");
    assert_eq!(
        shown["describes"],
        "Chapter 85 declarations now go to the cold chain desk"
    );

    // A new task is answered from the new knowledge ...
    let second = agent.route(85, None, &[ACTIVATED]);
    assert_eq!(second["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        second["status"]["message"]["parts"][0]["text"],
        "Chapter 85 declarations go to the cold chain desk."
    );
    assert_eq!(second["metadata"][POSITION_KEY], "1");
    // ... and the task that asked took the lesson it asked for: complete,
    // re-pinned where it waited.
    let answered = agent.call("GetTask", json!({"id": first_task}));
    let answered = answered.result();
    assert_eq!(answered["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        answered["status"]["message"]["parts"][0]["text"],
        "Chapter 85 declarations go to the cold chain desk."
    );
    assert_eq!(answered["metadata"][POSITION_KEY], "1");

    // Teaching the same again learns nothing.
    let again = agent.teach_rule(85, "cold chain");
    assert_eq!(again.result()["learned"], false);
    assert_eq!(again.result()["versionId"], version_id);

    // A restart keeps what was learned.
    agent.stop();
    let restarted = Agent::start(dir.path());
    let third = restarted.route(85, None, &[ACTIVATED]);
    assert_eq!(third["status"]["state"], "TASK_STATE_COMPLETED");
    let shown = restarted.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "85", "versionId": version_id}),
    );
    assert_eq!(shown.result()["versionId"], version_id);
}

#[test]
fn the_card_is_readable_without_activation_and_questions_carry_no_block_without_it() {
    let (agent, _dir) = agent();
    assert!(CardDeclaration::read(&agent.card()).unwrap().is_some());
    let task = agent.route(85, None, &[]);
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let question = &task["status"]["message"];
    assert_eq!(TeachBlock::from_message(question).unwrap(), None);
    assert!(question.get("extensions").is_none());
}

#[test]
fn activation_is_echoed_only_when_asked_for() {
    let (agent, _dir) = agent();
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}).to_string();
    let asked = agent.post(body.clone(), &[ACTIVATED]);
    assert_eq!(asked.echoed, [EXTENSION_URI]);
    let not_asked = agent.post(body.clone(), &[]);
    assert!(not_asked.echoed.is_empty());
    let other = agent.post(
        body.clone(),
        &[("A2A-Extensions", "https://example.com/other/v1")],
    );
    assert!(
        other.echoed.is_empty(),
        "only the extensions the agent supports"
    );
    // A list with spaces, over two header lines, in any letter case of the name.
    let listed = agent.post(
        body,
        &[
            ("a2a-extensions", " https://example.com/other/v1 ,"),
            ("A2A-EXTENSIONS", &format!("{EXTENSION_URI} ")),
        ],
    );
    assert_eq!(listed.echoed, [EXTENSION_URI]);
    let teach = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "1"}),
    );
    assert_eq!(teach.echoed, [EXTENSION_URI]);
}

#[test]
fn the_learnables_methods_are_refused_without_activation() {
    let (agent, _dir) = agent();
    for method in ["rsaxb.learnables.Teach", "rsaxb.learnables.ShowBack"] {
        let refused = agent.call_with(method, json!({}), &[AS_ALICE]);
        assert_eq!(refused.code(), codes::EXTENSION_NOT_ACTIVATED);
        assert!(
            refused
                .message()
                .contains(&format!("A2A-Extensions: {EXTENSION_URI}")),
            "{}",
            refused.message()
        );
    }
}

#[test]
fn json_rpc_envelope_errors() {
    let (agent, _dir) = agent();
    let parse = agent.post("{not json", &[ACTIVATED]);
    assert_eq!(parse.code(), codes::PARSE_ERROR);
    let invalid = agent.post(
        r#"{"jsonrpc": "1.0", "id": 3, "method": "x"}"#,
        &[ACTIVATED],
    );
    assert_eq!(invalid.code(), codes::INVALID_REQUEST);
    assert_eq!(invalid.body["id"], 3);
    let batch = agent.post("[]", &[ACTIVATED]);
    assert_eq!(batch.code(), codes::INVALID_REQUEST);
    let unknown = agent.call("NoSuchMethod", json!({}));
    assert_eq!(unknown.code(), codes::METHOD_NOT_FOUND);
    let too_deep = format!(
        r#"{{"jsonrpc": "2.0", "id": 1, "method": "rsaxb.learnables.Teach", "params": {}1{}}}"#,
        "[".repeat(64),
        "]".repeat(64)
    );
    let deep = agent.post(too_deep, &[ACTIVATED, AS_ALICE]);
    assert_eq!(deep.code(), codes::INVALID_REQUEST);
    assert!(deep.message().contains("deep"), "{}", deep.message());
    let huge = format!(
        r#"{{"jsonrpc": "2.0", "id": 1, "method": "rsaxb.learnables.Teach", "params": {{"reason": "{}"}}}}"#,
        "x".repeat(200_000)
    );
    let large = agent.post(huge, &[ACTIVATED, AS_ALICE]);
    assert_eq!(large.status, 413);
    assert_eq!(large.code(), codes::INVALID_REQUEST);
}

#[test]
fn invalid_params_name_the_field_at_fault() {
    let (agent, _dir) = agent();
    let lesson = |value: serde_json::Value| {
        let mut params = json!({
            "collection": "routing_rules", "entry": "85",
            "value": {"chapter": "85", "desk": "general"}, "taughtBy": "alice@example.com"
        });
        for (key, value) in value.as_object().unwrap() {
            if value.is_null() {
                params.as_object_mut().unwrap().remove(key);
            } else {
                params[key] = value.clone();
            }
        }
        agent.call("rsaxb.learnables.Teach", params)
    };
    for (change, field) in [
        (json!({"taughtBy": null}), "taughtBy"),
        (json!({"collection": 5}), "collection"),
        (json!({"value": "general"}), "value"),
        (json!({"entry": null}), "entry"),
        (json!({"reason": []}), "reason"),
        (json!({"collection": "tariffs"}), "collection"),
        (json!({"entry": ""}), "entry"),
        (
            json!({"value": {"chapter": "85", "desk": "urgent"}}),
            "value.desk",
        ),
        (json!({"value": {"chapter": "x"}}), "value.chapter"),
    ] {
        let refused = lesson(change.clone());
        assert_eq!(
            refused.code(),
            codes::INVALID_PARAMS,
            "{change}: {}",
            refused.body
        );
        assert_eq!(refused.field(), Some(field), "{change}: {}", refused.body);
    }
    let bad_value = lesson(json!({"value": {"chapter": "x", "desk": "urgent"}}));
    // Every field at fault is named, each with its own description, and
    // the refusal says why in a word a client can match on.
    let violations = bad_value.violations();
    let fields: Vec<&str> = violations.iter().map(|(field, _)| *field).collect();
    assert_eq!(
        fields,
        ["value.chapter", "value.desk"],
        "{}",
        bad_value.body
    );
    assert!(
        violations
            .iter()
            .all(|(_, description)| !description.is_empty())
    );
    assert_eq!(bad_value.reason(), Some("LESSON_INVALID"));
    // Keys a lesson does not have are allowed, ignored and never stored.
    let extra = lesson(json!({"note": {"for": "later"}, "x-trace": 1}));
    assert_eq!(extra.result()["learned"], true, "{}", extra.body);
    let shown = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "85"}),
    );
    let stored = shown.result().to_string();
    assert!(
        !stored.contains("x-trace") && !stored.contains("later"),
        "{stored}"
    );
    let unknown_entry = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "42"}),
    );
    assert_eq!(unknown_entry.code(), codes::NOT_FOUND);
    assert_eq!(unknown_entry.field(), Some("entry"));
    let unknown_version = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "42", "versionId": "nope"}),
    );
    assert_eq!(unknown_version.field(), Some("versionId"));
    let bad_show = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules"}),
    );
    assert_eq!(bad_show.code(), codes::INVALID_PARAMS);
}

#[test]
fn who_may_teach() {
    let (agent, _dir) = agent();
    let params = json!({
        "collection": "routing_rules", "entry": "85",
        "value": {"chapter": "85", "desk": "general"}, "taughtBy": "alice@example.com"
    });
    let anonymous = agent.call_with("rsaxb.learnables.Teach", params.clone(), &[ACTIVATED]);
    assert_eq!(anonymous.code(), codes::UNAUTHENTICATED);
    assert!(anonymous.message().contains("Authorization: Bearer"));
    let wrong = agent.call_with(
        "rsaxb.learnables.Teach",
        params.clone(),
        &[ACTIVATED, ("Authorization", "Bearer guess")],
    );
    assert_eq!(wrong.code(), codes::UNAUTHENTICATED);
    let mut forged = params.clone();
    forged["taughtBy"] = json!("bob@example.com");
    let forged = agent.call("rsaxb.learnables.Teach", forged);
    assert_eq!(forged.code(), codes::FORBIDDEN);
    assert_eq!(forged.field(), Some("taughtBy"));
    let mut by_bot = params;
    by_bot["taughtBy"] = json!("deploy-bot@example.com");
    let bot = agent.call_with("rsaxb.learnables.Teach", by_bot, &[ACTIVATED, AS_BOT]);
    assert_eq!(bot.code(), codes::FORBIDDEN);
    assert!(
        bot.message().contains("service account"),
        "{}",
        bot.message()
    );
    let shown = agent.call_with(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "85"}),
        &[ACTIVATED],
    );
    assert_eq!(shown.code(), codes::UNAUTHENTICATED);
    // None of the refused lessons was absorbed.
    let nothing = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "85"}),
    );
    assert_eq!(nothing.code(), codes::NOT_FOUND);
}

#[test]
fn push_notifications_are_registered_only_by_clients_that_activated() {
    let (agent, _dir) = agent();
    assert_eq!(agent.card()["capabilities"]["pushNotifications"], true);
    let task = agent.route(85, None, &[ACTIVATED]);
    let config = json!({"taskId": task["id"], "url": "https://client.example/hook"});
    // Its pushes would carry the question's teach block: refused, saying why.
    let refused = agent.call_with("CreateTaskPushNotificationConfig", config.clone(), &[]);
    assert_eq!(refused.code(), -32008, "{:?}", refused.message());
    assert!(
        refused.message().contains(EXTENSION_URI),
        "{}",
        refused.message()
    );
    let saved = agent.call_with("CreateTaskPushNotificationConfig", config, &[ACTIVATED]);
    assert_eq!(saved.result()["url"], "https://client.example/hook");
}

/// The events of a `SendStreamingMessage` asking about chapter 85, with
/// `headers`: each `data:` line's JSON.
fn streamed_question(agent: &Agent, headers: &[(&str, &str)]) -> Vec<serde_json::Value> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {
        "message": {"messageId": "m-stream", "role": "ROLE_USER",
                    "parts": [{"text": "Route a declaration for HS chapter 85"}]}}});
    learnables_examples::install_crypto_provider();
    let mut request = reqwest::blocking::Client::new()
        .post(&agent.base_url)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let text = response.text().unwrap();
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect()
}

#[test]
fn the_example_streams_and_its_streamed_question_carries_a_teach_block_only_when_activated() {
    let (agent, _dir) = agent();
    let card = agent.card();
    assert_eq!(card["capabilities"]["streaming"], true, "{card}");

    let activated = streamed_question(&agent, &[ACTIVATED]);
    let last = activated.last().expect("at least one event");
    let status = &last["result"]["statusUpdate"]["status"];
    let task_status = if status.is_null() {
        &last["result"]["task"]["status"]
    } else {
        status
    };
    assert_eq!(task_status["state"], "TASK_STATE_INPUT_REQUIRED", "{last}");
    let block = TeachBlock::from_message(&task_status["message"])
        .unwrap()
        .expect("the streamed question carries a teach block");
    assert_eq!(block.collection, "routing_rules");

    let plain = streamed_question(&agent, &[]);
    assert!(!plain.is_empty());
    for event in &plain {
        assert!(
            !event.to_string().contains(EXTENSION_URI),
            "a client that did not activate got {event}"
        );
    }
}

#[test]
fn the_teacher_method_names_the_person_the_token_was_issued_to() {
    let (agent, _dir) = agent();
    let alice = agent.call(learnables::TEACHER_METHOD, json!({}));
    assert_eq!(alice.result(), &json!({"teacher": "alice@example.com"}));
    assert_eq!(alice.echoed, [EXTENSION_URI]);
    let bot = agent.call_with(learnables::TEACHER_METHOD, json!({}), &[ACTIVATED, AS_BOT]);
    assert_eq!(bot.result(), &json!({"teacher": "deploy-bot@example.com"}));

    // It says nothing without a valid token, or without activation.
    let nobody = agent.call_with(learnables::TEACHER_METHOD, json!({}), &[ACTIVATED]);
    assert_eq!(nobody.code(), codes::UNAUTHENTICATED);
    let wrong = agent.call_with(
        learnables::TEACHER_METHOD,
        json!({}),
        &[ACTIVATED, ("Authorization", "Bearer not-a-token")],
    );
    assert_eq!(wrong.code(), codes::UNAUTHENTICATED);
    let unactivated = agent.call_with(learnables::TEACHER_METHOD, json!({}), &[AS_ALICE]);
    assert_eq!(unactivated.code(), codes::EXTENSION_NOT_ACTIVATED);
}

#[test]
fn what_a_teacher_sees_beside_a_field_names_it_by_its_label_in_plain_words() {
    let (agent, _data) = agent();
    let teach = |entry: &str, value: serde_json::Value| {
        agent.call(
            learnables::TEACH_METHOD,
            json!({"collection": "routing_rules", "entry": entry, "value": value,
                   "taughtBy": "alice@example.com"}),
        )
    };
    let cases = [
        (
            teach("85", json!({"chapter": "12"})),
            "value.chapter",
            "HS chapter says \"12\", but the lesson is about \"85\": leave HS chapter out, or teach \"12\" instead",
        ),
        (
            teach("eighty-six", json!({"desk": "general"})),
            "value.chapter",
            "HS chapter: \"eighty-six\" is not accepted: an HS chapter is a number from 1 to 97",
        ),
        (
            teach("85", json!({"desk": "urgent"})),
            "value.desk",
            "Desk: \"urgent\" is not one of the choices (general, dangerous-goods, cold chain)",
        ),
    ];
    for (reply, field, words) in &cases {
        assert_eq!(reply.violations(), vec![(*field, *words)]);
        // The message, for the developer, still names the key.
        assert!(reply.message().contains('`'), "{}", reply.message());
    }
    let limit = agent.call(
        learnables::TEACH_METHOD,
        json!({"collection": "clearance_limits", "entry": "broker-17", "value": {},
               "taughtBy": "alice@example.com"}),
    );
    assert_eq!(
        limit.violations(),
        vec![("value.amountEur", "Limit in euros is needed")]
    );
    let unknown = agent.call(
        learnables::SHOW_BACK_METHOD,
        json!({"collection": "routing_rules", "entry": "62"}),
    );
    assert_eq!(
        unknown.violations(),
        vec![(
            "entry",
            "the agent has not been taught the routing rule \"62\" yet"
        )]
    );
    // An entry with a control character is refused for it, the entry
    // escaped once, not quoted again.
    let hostile = agent.call(
        learnables::SHOW_BACK_METHOD,
        json!({"collection": "routing_rules", "entry": "6\u{1b}2"}),
    );
    assert_eq!(
        hostile.violations(),
        vec![(
            "entry",
            "the entry `6\\u{1b}2` holds the character \\u{1b} (U+001B), which does not show \
             as itself (a control, direction-changing or invisible character): the same entry \
             would read differently to different people; write it without that character"
        )]
    );
}
