//! A lesson resumes the task that asked, over real HTTP on 127.0.0.1: a task
//! waiting (input-required) on a question whose teach block names the entry
//! a lesson teaches continues with knowledge that holds it and completes
//! (`GetTask` shows it, a push subscriber is told); every other task, and
//! every retraction or lesson that fails or changes nothing, leaves tasks
//! as they were.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use learnables_tests::support::agent as agent_harness;

use a2a_server::{HttpPushSender, HttpPushSenderConfig};
use agent_harness::{ACTIVATED, Agent};
use learnables::a2a::{ANSWERING_LESSON_KEY, TASK_POSITION_KEY};
use learnables::{Knowledge, Lesson, LessonValue, TeachBlock};
use learnables_examples::customs_agent::{self, BoundedTaskStore};
use serde_json::{Value, json};

/// An agent over in-memory knowledge the test can also teach directly
/// (a lesson taught so reaches no task: it stands for one taught before a
/// task asked, or on another replica).
fn agent() -> (Agent, Knowledge) {
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    (
        Agent::start_with(knowledge.clone(), BoundedTaskStore::default()),
        knowledge,
    )
}

/// Teaches a routing rule into the knowledge itself, past the agent.
fn teach_directly(knowledge: &Knowledge, chapter: u32, desk: &str) {
    let value = LessonValue::try_from(json!({"chapter": chapter.to_string(), "desk": desk}))
        .expect("a lesson value");
    let lesson = Lesson::new(
        "routing_rules",
        chapter.to_string(),
        value,
        "alice@example.com",
    );
    assert!(knowledge.teach(&lesson).unwrap().learned);
}

/// The task as `GetTask` reads it, with the extension activated.
fn get_task(agent: &Agent, id: &str) -> Value {
    agent
        .call_with("GetTask", json!({"id": id}), &[ACTIVATED])
        .result()
        .clone()
}

/// Asks about `chapter` on a new task, activated: the agent has no rule,
/// so the task waits on a question whose teach block names the chapter.
fn waiting_question(agent: &Agent, chapter: u32) -> String {
    let task = agent.route(chapter, None, &[ACTIVATED]);
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let block = TeachBlock::from_message(&task["status"]["message"])
        .unwrap()
        .expect("the question carries a teach block");
    assert_eq!(block.entries, [chapter.to_string()]);
    task["id"].as_str().unwrap().to_owned()
}

fn status_text(task: &Value) -> &str {
    task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn a_lesson_for_the_entry_a_waiting_question_named_completes_the_task_that_asked() {
    let (agent, _knowledge) = agent();
    let asked = waiting_question(&agent, 85);
    assert_eq!(get_task(&agent, &asked)["metadata"][TASK_POSITION_KEY], "0");

    let taught = agent.teach_rule(85, "cold chain");
    let result = taught.result();
    assert_eq!(result["learned"], true, "{result}");

    // Answered before the teacher heard back: the task is complete, with
    // the rule it asked for, pinned to the knowledge that holds it.
    let task = get_task(&agent, &asked);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(
        status_text(&task),
        "Chapter 85 declarations go to the cold chain desk."
    );
    assert_eq!(task["metadata"][TASK_POSITION_KEY], "1");
    // Its history says what was taught, in plain words, and which lesson;
    // not who taught it (anyone who may read the task reads its history).
    let history = task["history"].as_array().unwrap();
    let lesson = history
        .iter()
        .find(|message| !message["metadata"][ANSWERING_LESSON_KEY].is_null())
        .expect("the message of the lesson that answered");
    assert_eq!(lesson["role"], "ROLE_USER");
    assert_eq!(
        lesson["parts"][0]["text"],
        "A teacher answered the question: Chapter 85 declarations now go to the cold chain \
         desk."
    );
    let answering = &lesson["metadata"][ANSWERING_LESSON_KEY];
    assert_eq!(answering["collection"], "routing_rules");
    assert_eq!(answering["entry"], "85");
    assert_eq!(answering["versionId"], result["versionId"]);
    assert!(answering.get("taughtBy").is_none(), "{answering}");
}

/// A push endpoint on 127.0.0.1: every body posted to it, as JSON, until
/// the receiver is dropped.
fn push_endpoint() -> (String, mpsc::Receiver<Value>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (pushed, pushes) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let body = read_request_body(&mut stream);
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
            if pushed.send(body).is_err() {
                return;
            }
        }
    });
    (url, pushes)
}

/// The body of one HTTP/1.1 request, sized by its `Content-Length`.
fn read_request_body(stream: &mut std::net::TcpStream) -> Vec<u8> {
    let mut read = Vec::new();
    let mut buffer = [0u8; 8192];
    let head_end = loop {
        if let Some(end) = read.windows(4).position(|window| window == b"\r\n\r\n") {
            break end;
        }
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return Vec::new(),
            Ok(got) => read.extend_from_slice(&buffer[..got]),
        }
    };
    let head = String::from_utf8_lossy(&read[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|length| length.trim().parse().ok())
        .unwrap_or(0);
    let mut body = read[head_end + 4..].to_vec();
    while body.len() < length {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(got) => body.extend_from_slice(&buffer[..got]),
        }
    }
    body
}

/// The state of the task a pushed event carries.
fn pushed_state(event: &Value) -> &Value {
    let status = &event["statusUpdate"]["status"];
    if status.is_null() {
        &event["task"]["status"]["state"]
    } else {
        &status["state"]
    }
}

#[test]
fn a_client_subscribed_to_the_waiting_task_is_told_it_completed() {
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    // The SDK's default push sender refuses 127.0.0.1; this one does not.
    let agent = Agent::start_router(move |base_url| {
        learnables_examples::install_crypto_provider();
        let local_pushes = HttpPushSender::new(Some(HttpPushSenderConfig {
            validate_urls: false,
            ..Default::default()
        }));
        customs_agent::router_with_push_sender(
            knowledge,
            &agent_harness::teachers(),
            base_url,
            BoundedTaskStore::default(),
            local_pushes,
        )
        .unwrap()
    });
    let asked = waiting_question(&agent, 85);
    let (url, pushes) = push_endpoint();
    let subscribed = agent.call_with(
        "CreateTaskPushNotificationConfig",
        json!({"taskId": asked, "url": url}),
        &[ACTIVATED],
    );
    assert_eq!(subscribed.result()["url"], url.as_str());

    assert_eq!(agent.teach_rule(85, "cold chain").result()["learned"], true);

    // The task's turn, pushed as it was stored (before the teacher heard
    // back); the bound only keeps a broken agent from hanging the test.
    let completed = loop {
        let event = pushes
            .recv_timeout(Duration::from_secs(10))
            .expect("the subscriber is told of the task's next turn");
        if pushed_state(&event) == "TASK_STATE_COMPLETED" {
            break event;
        }
        assert_eq!(
            pushed_state(&event),
            "TASK_STATE_WORKING",
            "an event before the answer: {event}"
        );
    };
    let task = &completed["task"];
    assert_eq!(task["id"], asked.as_str(), "{completed}");
    assert_eq!(
        status_text(task),
        "Chapter 85 declarations go to the cold chain desk."
    );
}

#[test]
fn a_task_waiting_on_another_entry_keeps_waiting_and_keeps_its_pin() {
    let (agent, _knowledge) = agent();
    let on_12 = waiting_question(&agent, 12);
    let before = get_task(&agent, &on_12);

    assert_eq!(agent.teach_rule(85, "cold chain").result()["learned"], true);

    assert_eq!(
        get_task(&agent, &on_12),
        before,
        "the lesson for 85 left it"
    );
    // Its next turn still reads what it pinned: it asks again, at position 0.
    let next = agent.route(12, Some(&on_12), &[ACTIVATED]);
    assert_eq!(
        next["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{next}"
    );
    assert_eq!(next["metadata"][TASK_POSITION_KEY], "0");
}

#[test]
fn a_task_that_is_not_waiting_is_untouched() {
    let (agent, knowledge) = agent();
    teach_directly(&knowledge, 85, "general");
    let done = agent.route(85, None, &[ACTIVATED]);
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    let id = done["id"].as_str().unwrap();
    let before = get_task(&agent, id);

    assert_eq!(agent.teach_rule(85, "cold chain").result()["learned"], true);

    let after = get_task(&agent, id);
    assert_eq!(after, before);
    assert_eq!(
        status_text(&after),
        "Chapter 85 declarations go to the general desk."
    );
}

#[test]
fn a_task_asked_by_a_client_that_did_not_activate_is_not_resumed() {
    let (agent, _knowledge) = agent();
    let plain = agent.route(85, None, &[]);
    assert_eq!(
        plain["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{plain}"
    );
    let id = plain["id"].as_str().unwrap();
    let before = get_task(&agent, id);
    assert!(
        TeachBlock::from_message(&before["status"]["message"])
            .unwrap()
            .is_none(),
        "a question without a teach block: {before}"
    );

    assert_eq!(agent.teach_rule(85, "cold chain").result()["learned"], true);

    assert_eq!(get_task(&agent, id), before);
}

const RETRACT: &str = "rsaxb.learnables.Retract";

#[test]
fn a_retraction_resumes_nothing() {
    let (agent, knowledge) = agent();
    let asked = waiting_question(&agent, 85);
    // Taught past the agent: the task still waits, on an entry that exists.
    teach_directly(&knowledge, 85, "general");
    let before = get_task(&agent, &asked);

    let retracted = agent.call(
        RETRACT,
        json!({"collection": "routing_rules", "entry": "85",
               "taughtBy": "alice@example.com", "reason": "no such rule"}),
    );
    assert_eq!(retracted.result()["learned"], true, "{}", retracted.body);

    assert_eq!(get_task(&agent, &asked), before);
}

#[test]
fn a_lesson_that_fails_or_changes_nothing_leaves_every_task_as_it_was() {
    let (agent, knowledge) = agent();
    let asked = waiting_question(&agent, 85);
    let before = get_task(&agent, &asked);

    // Refused: not one of the desks.
    let refused = agent.teach_rule(85, "the moon");
    assert!(refused.body.get("error").is_some(), "{}", refused.body);
    assert_eq!(get_task(&agent, &asked), before);

    // Learned already (past the agent): the same lesson changes nothing.
    teach_directly(&knowledge, 85, "general");
    let unchanged = agent.teach_rule(85, "general");
    assert_eq!(unchanged.result()["learned"], false);
    assert_eq!(get_task(&agent, &asked), before);
}
