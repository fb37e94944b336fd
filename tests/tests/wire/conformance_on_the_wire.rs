//! What the running example agent actually sends over HTTP, captured on
//! 127.0.0.1 and validated against the spec's JSON Schema
//! (`spec/learnables-v1.json`): the card's declaration params and each
//! descriptor in them, the teach block of an input-required question, the
//! lesson results of teaching, and a show-back (whose shape the spec leaves
//! open: checked against our reading, built from the spec's definitions).
//! Rules the schema cannot express (a choice field's choices, a suggestion's
//! keys, the echo of the activation) are checked beside it. A negative
//! control breaks each captured value and sees the same checks fail.

use learnables_tests::support::agent as agent_harness;
use learnables_tests::support::spec_schema;

use std::collections::BTreeSet;

use agent_harness::{ACTIVATED, Agent, Reply};
use learnables::EXTENSION_URI;
use serde_json::{Value, json};
use spec_schema::{assert_valid, declaration_params, def, spec, validator, violations};

const TEACH: &str = "rsaxb.learnables.Teach";
const SHOW_BACK: &str = "rsaxb.learnables.ShowBack";

/// Everything captured from one agent.
struct Captured {
    /// The card's Learnables extension (`uri`, `required`, `params`).
    extension: Value,
    /// The input-required question's message.
    question: Value,
    /// The lesson results: a first lesson, a change, and a replay.
    results: Vec<Value>,
    /// The show-backs: after the first lesson, and after the change.
    show_backs: Vec<Value>,
}

/// Starts the example agent and captures what it sends.
fn capture() -> Captured {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());

    let card = agent.card();
    let extension = card["capabilities"]["extensions"]
        .as_array()
        .expect("the card lists extensions")
        .iter()
        .find(|extension| extension["uri"] == EXTENSION_URI)
        .expect("the card declares the Learnables extension")
        .clone();

    let ask = agent.call_with(
        "SendMessage",
        json!({"message": {
            "messageId": "m-85", "role": "ROLE_USER",
            "parts": [{"text": "Route a declaration for HS chapter 85"}]
        }}),
        &[ACTIVATED],
    );
    assert_echoed(&ask);
    let task = &ask.result()["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let question = task["status"]["message"].clone();

    let mut results = Vec::new();
    let mut show_backs = Vec::new();
    for desk in ["cold chain", "dangerous-goods", "dangerous-goods"] {
        let lesson = json!({
            "collection": "routing_rules", "entry": "85",
            "value": {"chapter": "85", "desk": desk, "note": "Check the batteries"},
            "taughtBy": "alice@example.com", "reason": "A new chapter"
        });
        // What a client sends is the spec's Lesson too.
        assert_valid(&def("Lesson"), &lesson);
        let taught = agent.call(TEACH, lesson);
        assert_echoed(&taught);
        results.push(taught.result().clone());
        let shown = agent.call(
            SHOW_BACK,
            json!({"collection": "routing_rules", "entry": "85"}),
        );
        assert_echoed(&shown);
        show_backs.push(shown.result().clone());
    }
    assert_eq!(
        results
            .iter()
            .map(|r| r["learned"].clone())
            .collect::<Vec<_>>(),
        [true, true, false],
        "a first lesson, a change, a replay"
    );
    show_backs.pop(); // the replay's show-back is the change's again
    Captured {
        extension,
        question,
        results,
        show_backs,
    }
}

/// The spec: "the agent must echo the URI in the response header".
fn assert_echoed(reply: &Reply) {
    assert!(
        reply
            .echoed
            .iter()
            .flat_map(|value| value.split(','))
            .any(|uri| uri.trim() == EXTENSION_URI),
        "the activation is not echoed: {:?}",
        reply.echoed
    );
}

/// The lesson-field rule the schema cannot express: a `choice` field
/// carries its `choices`.
fn choices_missing(fields: &Value) -> Vec<String> {
    fields
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .filter(|(_, field)| field["kind"] == "choice" && !field["choices"].is_array())
        .map(|(i, _)| format!("/{i}: a choice field without choices"))
        .collect()
}

/// The teach-block rule the schema cannot express: the suggestion's keys
/// are a subset of the applicable lessonFields names (the declared
/// learnable's, and the block's own when it carries them).
fn suggested_outside(block: &Value, declared_fields: &Value) -> Vec<String> {
    let names = |fields: &Value| -> BTreeSet<String> {
        fields
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|field| field["name"].as_str().map(str::to_owned))
            .collect()
    };
    let mut applicable = names(declared_fields);
    if block.get("lessonFields").is_some() {
        applicable = &applicable & &names(&block["lessonFields"]);
    }
    block["suggested"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| !applicable.contains(*key))
        .map(|(key, _)| format!("/suggested/{key}: not an applicable lesson field"))
        .collect()
}

/// The declared learnable a collection names.
fn declared<'a>(extension: &'a Value, collection: &Value) -> &'a Value {
    extension["params"]["learnables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|descriptor| descriptor["collection"] == *collection)
        .unwrap_or_else(|| panic!("the card declares no {collection}"))
}

/// The teach block in a question message.
fn teach_block(question: &Value) -> &Value {
    &question["metadata"][EXTENSION_URI]["teach"]
}

/// Our reading of the show-back's shape, which the spec leaves open: the
/// entry as learned in the spec's own pieces (the Lesson's collection,
/// entry, taughtBy and reason; the LessonResult's describes and version
/// ids; the learnable's LessonFields), and never the opaque lesson value.
fn show_back_schema() -> spec_schema::Validator {
    validator(json!({
        "type": "object",
        "required": ["collection", "entry", "describes", "lessonFields",
                     "definitionVersion", "versionId", "taughtBy"],
        "properties": {
            "collection": {"$ref": "#/$defs/Lesson/properties/collection"},
            "entry": {"$ref": "#/$defs/Lesson/properties/entry"},
            "taughtBy": {"$ref": "#/$defs/Lesson/properties/taughtBy"},
            "reason": {"$ref": "#/$defs/Lesson/properties/reason"},
            "describes": {"$ref": "#/$defs/LessonResult/properties/describes"},
            "definitionVersion": {"$ref": "#/$defs/LessonResult/properties/definitionVersion"},
            "versionId": {"$ref": "#/$defs/LessonResult/properties/versionId"},
            "previousVersionId": {"$ref": "#/$defs/LessonResult/properties/previousVersionId"},
            "collectionVersion": {"type": "integer"},
            "taughtAt": {"type": "string"},
            "lessonFields": {"type": "array", "items": {"$ref": "#/$defs/LessonField"}}
        },
        "not": {"required": ["value"]}
    }))
}

/// Every violation of the spec in what was captured, one line each, named
/// by what it is in.
fn spec_violations(captured: &Captured) -> Vec<String> {
    let spec = spec();
    let mut found = Vec::new();
    let mut note = |what: &str, lines: Vec<String>| {
        found.extend(lines.into_iter().map(|line| format!("{what}{line}")));
    };
    let extension = &captured.extension;
    if extension["uri"] != spec["uri"] {
        note("card extension", vec![": not the spec's uri".into()]);
    }
    if !extension["required"].is_boolean() && !extension["required"].is_null() {
        note("card extension", vec![": `required` not a boolean".into()]);
    }
    note(
        "declaration params",
        violations(&declaration_params(), &extension["params"]),
    );
    let descriptors = extension["params"]["learnables"].as_array();
    for (i, descriptor) in descriptors.into_iter().flatten().enumerate() {
        let what = format!("descriptor {i}");
        note(&what, violations(&def("LearnableDescriptor"), descriptor));
        note(
            &format!("{what} lessonFields"),
            choices_missing(&descriptor["lessonFields"]),
        );
    }

    let question = &captured.question;
    if !question["extensions"]
        .as_array()
        .is_some_and(|uris| uris.contains(&json!(EXTENSION_URI)))
    {
        note(
            "question",
            vec![": the message does not list the URI".into()],
        );
    }
    let block = teach_block(question);
    note("teach block", violations(&def("TeachBlock"), block));
    note(
        "teach block lessonFields",
        choices_missing(&block["lessonFields"]),
    );
    let fields = &declared(extension, &block["collection"])["lessonFields"];
    note("teach block", suggested_outside(block, fields));

    for (i, result) in captured.results.iter().enumerate() {
        note(
            &format!("lesson result {i}"),
            violations(&def("LessonResult"), result),
        );
    }
    for (i, shown) in captured.show_backs.iter().enumerate() {
        let what = format!("show-back {i}");
        note(&what, violations(&show_back_schema(), shown));
        let names = |fields: &Value| -> Vec<Value> {
            fields
                .as_array()
                .into_iter()
                .flatten()
                .map(|field| field["name"].clone())
                .collect()
        };
        let declared_fields = &declared(extension, &shown["collection"])["lessonFields"];
        if names(&shown["lessonFields"]) != names(declared_fields) {
            note(&what, vec![": not the declared lessonFields form".into()]);
        }
    }
    found
}

#[test]
fn everything_the_agent_sends_is_the_spec_s_shape() {
    let captured = capture();
    let found = spec_violations(&captured);
    assert!(found.is_empty(), "{}", found.join("\n"));

    // What was captured is what the checks were meant to see: every
    // optional part of each shape is present at least once.
    let block = teach_block(&captured.question);
    assert_eq!(block["collection"], "routing_rules");
    assert_eq!(block["entries"], json!(["85"]));
    for key in ["suggested", "suggestionLabel", "lessonFields"] {
        assert!(block.get(key).is_some(), "the block has no {key}: {block}");
    }
    let [first, change, replay] = &captured.results[..] else {
        panic!("three results")
    };
    assert!(first.get("versionId").is_some() && first.get("previousVersionId").is_none());
    assert_eq!(change["previousVersionId"], first["versionId"]);
    assert_eq!(replay["versionId"], change["versionId"]);
    let shown = &captured.show_backs[1];
    assert_eq!(shown["previousVersionId"], first["versionId"]);
    assert_eq!(shown["reason"], "A new chapter");
    assert_eq!(shown["lessonFields"][1]["default"], "dangerous-goods");
    let descriptors = captured.extension["params"]["learnables"]
        .as_array()
        .unwrap();
    assert_eq!(descriptors.len(), 2);
    assert_eq!(captured.extension["params"]["teachMethod"], TEACH);
}

#[test]
fn the_same_checks_fail_on_a_captured_value_broken_against_a_must() {
    let mut captured = capture();
    assert!(spec_violations(&captured).is_empty());

    // `how` MUST NOT be a placeholder (at least one character).
    captured.extension["params"]["learnables"][0]["how"] = json!("");
    // A field's label is required and MUST NOT be empty; a choice field
    // needs its choices.
    let field = &mut captured.extension["params"]["learnables"][1]["lessonFields"][0];
    field.as_object_mut().unwrap().remove("label");
    let block = &mut captured.question["metadata"][EXTENSION_URI]["teach"];
    block["lessonFields"][1]
        .as_object_mut()
        .unwrap()
        .remove("choices");
    // The suggestion's keys MUST be a subset of the lessonFields names.
    block["suggested"]["owner"] = json!("x");
    block.as_object_mut().unwrap().remove("entries");
    captured.results[0]["definitionVersion"] = json!("1");
    captured.results[2]
        .as_object_mut()
        .unwrap()
        .remove("learned");
    // The lesson value is opaque to every party but the learnable.
    captured.show_backs[0]["value"] = json!({"desk": "cold chain"});

    let found = spec_violations(&captured);
    let paths: Vec<&str> = found
        .iter()
        .map(|line| line.split_once(": ").map_or(line.as_str(), |(at, _)| at))
        .collect();
    assert_eq!(
        paths,
        [
            "declaration params/learnables/0/how",
            "declaration params/learnables/1/lessonFields/0",
            "descriptor 0/how",
            "descriptor 1/lessonFields/0",
            "teach block",
            "teach block lessonFields/1",
            "teach block/suggested/owner",
            "lesson result 0/definitionVersion",
            "lesson result 2",
            "show-back 0",
        ],
        "{}",
        found.join("\n")
    );
}
