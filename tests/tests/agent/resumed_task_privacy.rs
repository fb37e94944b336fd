//! The message that resumes a task says what was taught, not by whom: over
//! HTTP on 127.0.0.1, after a lesson resumes a task, `GetTask` and
//! `ListTasks` without a token and without activation show no teacher's
//! identity; who taught it stays behind show-back's token.

use learnables_tests::support::agent as agent_harness;

use agent_harness::{ACTIVATED, Agent};
use learnables::a2a::ANSWERING_LESSON_KEY;
use learnables::{Knowledge, TeachBlock};
use learnables_examples::customs_agent::{self, BoundedTaskStore};
use serde_json::json;

#[test]
fn a_resumed_task_shows_no_teacher_to_anyone_who_reads_it() {
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    let agent = Agent::start_with(knowledge, BoundedTaskStore::default());
    let task = agent.route(85, None, &[ACTIVATED]);
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    assert!(
        TeachBlock::from_message(&task["status"]["message"])
            .unwrap()
            .is_some()
    );
    let id = task["id"].as_str().unwrap().to_owned();
    let taught = agent.teach_rule(85, "cold chain");
    assert_eq!(taught.result()["learned"], true, "{}", taught.message());

    // Read as anyone: no token, no activation.
    let read = agent.call_with("GetTask", json!({"id": id}), &[]);
    let task = read.result();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let history = task["history"].as_array().expect("a history");
    let resumed = history
        .iter()
        .find(|message| !message["metadata"][ANSWERING_LESSON_KEY].is_null())
        .expect("the message of the lesson that answered");
    assert_eq!(
        resumed["parts"][0]["text"],
        "A teacher answered the question: Chapter 85 declarations now go to the cold chain desk."
    );
    let answering = &resumed["metadata"][ANSWERING_LESSON_KEY];
    assert_eq!(answering["entry"], "85");
    assert_eq!(answering["versionId"], taught.result()["versionId"]);
    let listed = agent.call_with("ListTasks", json!({}), &[]);
    for body in [read.body.to_string(), listed.body.to_string()] {
        assert!(!body.contains("alice"), "a teacher's identity in {body}");
        assert!(!body.contains("taughtBy"), "{body}");
    }
    assert!(listed.body.to_string().contains(&id), "{}", listed.body);

    // Who taught it: the knowledge's history, behind show-back's token.
    let shown = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "85"}),
    );
    assert_eq!(shown.result()["taughtBy"], "alice@example.com");
    let anonymous = agent.call_with(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "85"}),
        &[ACTIVATED],
    );
    assert!(
        !anonymous.body.to_string().contains("alice"),
        "{}",
        anonymous.body
    );
}
