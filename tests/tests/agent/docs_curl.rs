//! The curl lines of docs/teacher-tools.md, run as written against the
//! example agent (its address and a teacher of the test's in place of the
//! demo's): each answers without a JSON-RPC error, the question carries a
//! teach block, the lesson is learned and shown back.

use std::process::Command;

use learnables_tests::support::agent::Agent;
use serde_json::Value;

/// The shell block after "Drive it with any HTTP client" in the doc.
fn curl_lines() -> String {
    let doc = include_str!("../../../docs/teacher-tools.md");
    let from = &doc[doc
        .find("Drive it with any HTTP client")
        .expect("the doc drives the agent")..];
    let block = &from[from.find("```sh\n").expect("a shell block") + "```sh\n".len()..];
    block[..block.find("```").expect("the block ends")].to_owned()
}

#[test]
fn the_docs_curl_lines_work_as_written() {
    let data = tempfile::tempdir().expect("a data directory");
    let agent = Agent::start(data.path());
    let script = curl_lines()
        .replace("localhost:8080", &agent.address.to_string())
        .replace("demo@example.com", "alice@example.com");
    let output = Command::new("bash")
        .args(["-euo", "pipefail", "-c"])
        .arg(format!("{script}\n"))
        .env("TOKEN", "alice-token")
        .output()
        .expect("bash runs (and curl is installed: tests/run installs it)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<Value> = serde_json::Deserializer::from_slice(&output.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .expect("every line answers JSON");
    assert_eq!(answers.len(), 4, "the card and three calls: {answers:?}");
    for answer in &answers[1..] {
        assert!(
            answer.get("error").is_none(),
            "a curl line was refused: {answer}"
        );
    }
    let question = &answers[1]["result"]["task"]["status"];
    assert_eq!(question["state"], "TASK_STATE_INPUT_REQUIRED");
    assert!(question["message"]["metadata"][learnables::EXTENSION_URI]["teach"].is_object());
    assert_eq!(answers[2]["result"]["learned"], true, "{}", answers[2]);
    assert_eq!(answers[3]["result"]["entry"], "85", "{}", answers[3]);
    agent.stop();
}
