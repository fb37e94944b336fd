//! A JSON-RPC `id` comes back byte for byte, whatever its size or form, on
//! every learnables method and every refusal the layer writes: a client that
//! matches answers by id can.

use learnables_tests::support::agent as agent_harness;

use agent_harness::{ACTIVATED, AS_ALICE, Agent, VERSION};
use serde_json::json;

/// Ids a double cannot hold exactly, or that it would write another way.
const IDS: [&str; 7] = [
    "123456789012345678901234567890",
    "-123456789012345678901234567890",
    "0.1000000000000000055511151231257827",
    "1e400",
    "1E+2",
    "-0",
    "12345678901234567890123e-5",
];

/// The body of the answer to `body`, as the agent wrote it.
fn answer(agent: &Agent, body: &str, headers: &[(&str, &str)]) -> String {
    let client = reqwest::blocking::Client::new();
    let mut request = client
        .post(&agent.base_url)
        .header("content-type", "application/json")
        .header(VERSION.0, VERSION.1)
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().expect("the agent answers").text().unwrap()
}

fn request(id: &str, method: &str, params: &serde_json::Value) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

#[test]
fn every_learnables_method_echoes_the_id_as_it_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let lesson = json!({"collection": "routing_rules", "entry": "85",
        "value": {"chapter": "85", "desk": "general"}, "taughtBy": "alice@example.com"});
    let calls = [
        ("rsaxb.learnables.Teach", lesson.clone()),
        (
            "rsaxb.learnables.ShowBack",
            json!({"collection": "routing_rules", "entry": "85"}),
        ),
        ("rsaxb.learnables.Review", json!({})),
        ("rsaxb.learnables.Teacher", json!({})),
        (
            "rsaxb.learnables.Retract",
            json!({"collection": "routing_rules", "entry": "85",
            "taughtBy": "alice@example.com", "reason": "moved"}),
        ),
    ];
    for id in IDS {
        for (method, params) in &calls {
            let body = answer(&agent, &request(id, method, params), &[ACTIVATED, AS_ALICE]);
            assert!(
                body.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"#)),
                "{method} with id {id}: {body}"
            );
        }
    }
}

#[test]
fn every_refusal_echoes_the_id_as_it_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let show = json!({"collection": "routing_rules", "entry": "85"});
    for id in IDS {
        let refusals = [
            // No token.
            (
                request(id, "rsaxb.learnables.ShowBack", &show),
                vec![ACTIVATED],
            ),
            // A wrong token.
            (
                request(id, "rsaxb.learnables.ShowBack", &show),
                vec![ACTIVATED, ("Authorization", "Bearer wrong")],
            ),
            // Not activated.
            (
                request(id, "rsaxb.learnables.ShowBack", &show),
                vec![AS_ALICE],
            ),
            // Params that are not the method's.
            (
                request(id, "rsaxb.learnables.ShowBack", &json!({"collection": 7})),
                vec![ACTIVATED, AS_ALICE],
            ),
            // An envelope the layer refuses (its id read on a best effort).
            (
                format!(r#"{{"jsonrpc":"1.0","id":{id},"method":"rsaxb.learnables.ShowBack"}}"#),
                vec![ACTIVATED, AS_ALICE],
            ),
            // A key given twice.
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"rsaxb.learnables.ShowBack","params":{{"entry":"1","entry":"2"}}}}"#
                ),
                vec![ACTIVATED, AS_ALICE],
            ),
        ];
        for (body, headers) in refusals {
            let answer = answer(&agent, &body, &headers);
            assert!(
                answer.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"error""#)),
                "{body} with {headers:?}: {answer}"
            );
        }
    }
}
