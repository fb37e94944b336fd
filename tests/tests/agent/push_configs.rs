//! Push notification configs carried by `SendMessage`, over HTTP on
//! 127.0.0.1, as docs/guarantees.md states them: A2A v1.0's
//! `configuration.taskPushNotificationConfig` is saved for a client that
//! activated the extension and refused with `-32008` (nothing saved) for
//! one that did not, streaming or not; A2A 0.3's `pushNotificationConfig`
//! is no member of A2A v1.0, and the SDK saves nothing for it, whoever
//! sends it.

use learnables_tests::support::agent as agent_harness;

use agent_harness::{ACTIVATED, Agent};
use learnables::Knowledge;
use learnables_examples::customs_agent::{self, BoundedTaskStore};
use serde_json::{Value, json};

fn agent() -> Agent {
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    Agent::start_with(knowledge, BoundedTaskStore::default())
}

/// `SendMessage` params asking to route chapter 85, with a push config
/// under `key`.
fn with_push_config(key: &str) -> Value {
    json!({
        "message": {
            "messageId": format!("m-{key}"),
            "role": "ROLE_USER",
            "parts": [{"text": "Route a declaration for HS chapter 85"}]
        },
        "configuration": {key: {"url": "https://client.example/hook"}}
    })
}

/// Every push config of every task the agent holds, as URLs.
fn saved_push_urls(agent: &Agent) -> Vec<String> {
    let tasks = agent.call_with("ListTasks", json!({}), &[ACTIVATED]);
    let tasks = tasks.result()["tasks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(tasks.len() < 50, "one page holds them all");
    let mut urls = Vec::new();
    for task in tasks {
        let listed = agent.call_with(
            "ListTaskPushNotificationConfigs",
            json!({"taskId": task["id"]}),
            &[ACTIVATED],
        );
        for config in listed.result()["configs"].as_array().into_iter().flatten() {
            urls.push(config["url"].as_str().unwrap_or_default().to_owned());
        }
    }
    urls
}

#[test]
fn a_v1_push_config_without_activation_is_refused_and_saved_by_no_method() {
    let agent = agent();
    for method in ["SendMessage", "SendStreamingMessage"] {
        let refused = agent.call_with(method, with_push_config("taskPushNotificationConfig"), &[]);
        assert_eq!(refused.code(), -32008, "{method}: {}", refused.body);
        assert!(
            refused.message().contains("activated"),
            "{method}: {}",
            refused.message()
        );
    }
    assert_eq!(saved_push_urls(&agent), Vec::<String>::new());
    // Activated, the same config is saved.
    let sent = agent.call_with(
        "SendMessage",
        with_push_config("taskPushNotificationConfig"),
        &[ACTIVATED],
    );
    assert_eq!(
        sent.result()["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED",
        "{}",
        sent.body
    );
    assert_eq!(saved_push_urls(&agent), ["https://client.example/hook"]);
}

#[test]
fn the_a2a_0_3_member_saves_no_push_config_for_anyone() {
    let agent = agent();
    for headers in [&[][..], &[ACTIVATED][..]] {
        let sent = agent.call_with(
            "SendMessage",
            with_push_config("pushNotificationConfig"),
            headers,
        );
        assert_eq!(
            sent.result()["task"]["status"]["state"],
            "TASK_STATE_INPUT_REQUIRED",
            "{}",
            sent.body
        );
    }
    assert_eq!(saved_push_urls(&agent), Vec::<String>::new());
}
