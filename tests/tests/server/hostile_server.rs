//! The example agent, started for real, against hostile clients: what it
//! logs of their text, what its errors tell them, notifications, tokens,
//! its store's permissions, lengths past their limits, and how many tasks
//! it keeps.

use learnables_tests::support::agent as agent_harness;

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

use a2a::{Message, Part, Role, Task, TaskState, TaskStatus};
use a2a_server::TaskStore;
use agent_harness::{ACTIVATED, AS_ALICE, Agent};
use learnables::knowledge::{Storage, StoreError, VersionRecord};
use learnables::{Knowledge, Lesson};
use learnables_examples::customs_agent::{self, BoundedTaskStore, Teacher};
use serde_json::{Value, json};

const TEACH: &str = "rsaxb.learnables.Teach";
const SHOW_BACK: &str = "rsaxb.learnables.ShowBack";

/// Everything every test of this binary logs, as the agent's log file
/// would hold it.
fn log() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOG: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOG.get_or_init(|| {
        let log = Arc::new(Mutex::new(Vec::new()));
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(tracing::Level::INFO)
            .with_writer(move || LogWriter(writer.clone()))
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("one subscriber");
        log
    })
}

struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl Write for LogWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn logged() -> String {
    String::from_utf8_lossy(&log().lock().unwrap()).into_owned()
}

fn rule(entry: &str, desk: &str, taught_by: &str) -> Value {
    json!({
        "collection": "routing_rules",
        "entry": entry,
        "value": {"chapter": entry, "desk": desk},
        "taughtBy": taught_by
    })
}

fn show_back(agent: &Agent, entry: &str) -> agent_harness::Reply {
    agent.call(
        SHOW_BACK,
        json!({"collection": "routing_rules", "entry": entry}),
    )
}

#[test]
fn client_text_reaches_the_log_escaped_one_line_per_event() {
    log();
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let forged = "alice@example.com\r\n2026-01-01T00:00:00Z INFO lesson accepted LOGMARK1\x1b[2J";
    let refused = agent.call(TEACH, rule("85", "general", forged));
    assert_eq!(
        refused.code(),
        learnables::a2a::json_rpc::codes::FORBIDDEN,
        "{}",
        refused.body
    );
    let entry = "85\nINFO forged entry LOGMARK2\x1b]0;title\x07\u{202e}";
    let refused = agent.call(TEACH, rule(entry, "general", "alice@example.com"));
    assert_eq!(refused.code(), -32602, "{}", refused.body);
    agent.stop();

    let log = logged();
    let marked =
        |marker: &str| -> Vec<&str> { log.lines().filter(|line| line.contains(marker)).collect() };
    for marker in ["LOGMARK1", "LOGMARK2"] {
        let lines = marked(marker);
        assert_eq!(lines.len(), 1, "one line per event: {lines:#?}");
        assert!(lines[0].contains("lesson refused"), "{}", lines[0]);
        assert!(!lines[0].starts_with("2026-01-01"), "{}", lines[0]);
    }
    assert!(marked("LOGMARK1")[0].contains(r"\r\n2026-01-01"));
    assert!(marked("LOGMARK2")[0].contains(r"\u{1b}]0;title\u{7}\u{202e}"));
    for byte in log.bytes() {
        assert!(
            byte == b'\n' || (byte >= 0x20 && byte != 0x7f),
            "a raw control byte {byte:#x} in the log"
        );
    }
    assert!(!log.contains('\u{202e}'), "a raw bidi control in the log");
}

/// A store that fails every write, with a message naming its file.
struct FailingStorage;

const SECRET_PATH: &str = "/srv/customs/secret-dir/knowledge.log";

impl Storage for FailingStorage {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        Ok(Vec::new())
    }

    fn append(&self, _records: &[VersionRecord]) -> Result<(), StoreError> {
        Err(StoreError::Failed(
            format!("{SECRET_PATH}: Permission denied (os error 13)\nLOGMARK3").into(),
        ))
    }
}

#[test]
fn a_store_failure_names_no_server_path_to_the_client_and_logs_it_escaped() {
    log();
    let knowledge = Knowledge::with_storage(FailingStorage).unwrap();
    customs_agent::register(&knowledge).unwrap();
    let agent = Agent::start_with(knowledge, BoundedTaskStore::default());
    let failed = agent.call(TEACH, rule("85", "general", "alice@example.com"));
    assert_eq!(failed.code(), -32603, "{}", failed.body);
    assert_eq!(
        failed.message(),
        "the knowledge store failed: reading or writing failed; the lesson was not absorbed"
    );
    assert!(
        !failed.body.to_string().contains("secret-dir"),
        "{}",
        failed.body
    );
    agent.stop();
    let log = logged();
    let lines: Vec<&str> = log
        .lines()
        .filter(|line| line.contains(SECRET_PATH))
        .collect();
    assert_eq!(lines.len(), 1, "{log}");
    assert!(
        lines[0].contains(r"(os error 13)\nLOGMARK3"),
        "{}",
        lines[0]
    );
}

/// POSTs a JSON-RPC notification (no `id`) to the agent.
fn notify(agent: &Agent, method: &str, params: Value, token: &str) -> agent_harness::Reply {
    let body = json!({"jsonrpc": "2.0", "method": method, "params": params});
    let authorization = format!("Bearer {token}");
    agent.post(
        body.to_string(),
        &[ACTIVATED, ("Authorization", authorization.as_str())],
    )
}

/// JSON-RPC 2.0: a notification is never answered; it is carried out only
/// under the same activation and authentication as a request.
#[test]
fn notifications_are_never_answered_and_carried_out_only_when_authorized() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    agent.teach_rule(85, "general").result();
    let before = show_back(&agent, "85").result().clone();

    for lesson in [
        rule("85", "cold chain", "alice@example.com"),
        rule("84", "general", "alice@example.com"),
    ] {
        let reply = notify(&agent, TEACH, lesson, "wrong-token");
        assert_eq!(reply.status, 204, "{}", reply.body);
        assert_eq!(reply.body, Value::Null);
    }
    let reply = notify(
        &agent,
        SHOW_BACK,
        json!({"collection": "routing_rules", "entry": "85"}),
        "alice-token",
    );
    assert_eq!(reply.status, 204);
    assert_eq!(reply.body, Value::Null);
    assert_eq!(
        show_back(&agent, "85").result(),
        &before,
        "a wrong token teaches nothing"
    );
    assert_eq!(
        show_back(&agent, "84").code(),
        learnables::a2a::json_rpc::codes::NOT_FOUND
    );

    let reply = notify(
        &agent,
        TEACH,
        rule("84", "general", "alice@example.com"),
        "alice-token",
    );
    assert_eq!(reply.status, 204);
    assert_eq!(reply.body, Value::Null);
    assert_eq!(
        show_back(&agent, "84").result()["taughtBy"],
        "alice@example.com"
    );
}

#[test]
fn tokens_never_show_and_a_shared_token_is_refused() {
    let teacher = Teacher::parse("alice@example.com=tok-SECRET-1").unwrap();
    assert!(!format!("{teacher:?}").contains("tok-SECRET"));
    let tokens = customs_agent::tokens(std::slice::from_ref(&teacher)).unwrap();
    assert!(!format!("{tokens:?} {tokens:#?}").contains("tok-SECRET"));

    for text in ["=tok-SECRET-2", "tok-SECRET-3", " = tok-SECRET-4"] {
        let error = Teacher::parse(text).unwrap_err();
        assert!(!error.contains("tok-SECRET"), "{error}");
    }
    let error =
        Teacher::parse_lines("# teachers\n\nalice@example.com=tok-SECRET-5\n=tok-SECRET-6\n")
            .unwrap_err();
    assert!(error.starts_with("line 4:"), "{error}");
    assert!(!error.contains("tok-SECRET"), "{error}");
    let error = Teacher::parse_list("alice@example.com=a, tok-SECRET-7").unwrap_err();
    assert!(error.starts_with("entry 2:"), "{error}");
    assert!(!error.contains("tok-SECRET"), "{error}");

    let shared = [
        teacher,
        Teacher::parse("bob@example.com=tok-SECRET-1").unwrap(),
    ];
    let error = customs_agent::tokens(&shared).unwrap_err().to_string();
    assert!(error.contains("bob@example.com"), "{error}");
    assert!(!error.contains("tok-SECRET"), "{error}");
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    let refused = customs_agent::router(knowledge, &shared, "http://127.0.0.1/");
    assert!(refused.is_err());
}

#[test]
fn teachers_come_from_a_file_and_the_environment_without_showing_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("teachers");
    std::fs::write(
        &file,
        "# the desk leads\n\nalice@example.com = tok-SECRET-a\n  # bob left\ncarol@example.com=tok-SECRET-c\n",
    )
    .unwrap();
    let teachers = Teacher::gather(
        &["dave@example.com=tok-SECRET-d".to_owned()],
        Some(&file),
        Some("erin@example.com=tok-SECRET-e,\nfrank@example.com=tok-SECRET-f"),
    )
    .unwrap();
    let emails: Vec<&str> = teachers.iter().map(|t| t.email.as_str()).collect();
    assert_eq!(
        emails,
        [
            "dave@example.com",
            "alice@example.com",
            "carol@example.com",
            "erin@example.com",
            "frank@example.com"
        ]
    );
    assert_eq!(teachers[1].token, "tok-SECRET-a");

    std::fs::write(&file, "alice@example.com=tok-SECRET-a\n\ntok-SECRET-x\n").unwrap();
    let error = Teacher::gather(&[], Some(&file), None).unwrap_err();
    assert!(error.contains("line 3:"), "{error}");
    assert!(!error.contains("tok-SECRET"), "{error}");

    std::fs::write(&file, "alice@example.com=tok-SECRET-a\n").unwrap();
    let error =
        Teacher::gather(&[], Some(&file), Some("bob@example.com=tok-SECRET-a")).unwrap_err();
    assert!(error.contains("bob@example.com"), "{error}");
    assert!(!error.contains("tok-SECRET"), "{error}");

    let error = Teacher::gather(&["=tok-SECRET-z".to_owned()], None, None).unwrap_err();
    assert!(error.starts_with("--teacher number 1:"), "{error}");
    assert!(!error.contains("tok-SECRET"), "{error}");

    let missing = dir.path().join("missing");
    let error = Teacher::gather(&[], Some(&missing), None).unwrap_err();
    assert!(
        error.starts_with("cannot read the teachers file"),
        "{error}"
    );
}

#[cfg(unix)]
#[test]
fn the_embedded_store_is_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("new").join("customs-data");
    let agent = Agent::start(&data);
    agent.teach_rule(85, "general").result();
    agent.stop();
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    let files: Vec<_> = std::fs::read_dir(&data).unwrap().collect();
    assert!(!files.is_empty());
    for file in files {
        let path = file.unwrap().path();
        assert_eq!(mode(&path), 0o600, "{}", path.display());
    }
}

#[test]
fn a_repeated_lesson_reports_the_version_that_holds_its_value() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let first = agent.teach_rule(85, "general").result().clone();
    let second = agent.teach_rule(84, "cold chain").result().clone();
    assert_eq!(first["definitionVersion"], 1);
    assert_eq!(second["definitionVersion"], 2);

    let again = agent.teach_rule(85, "general").result().clone();
    assert_eq!(again["learned"], false);
    assert_eq!(again["definitionVersion"], 1);
    assert_eq!(again["versionId"], first["versionId"]);
    assert_eq!(again.get("previousVersionId"), None);

    let third = agent.teach_rule(85, "cold chain").result().clone();
    assert_eq!(third["definitionVersion"], 3);
    let again = agent.teach_rule(84, "cold chain").result().clone();
    assert_eq!(again["learned"], false);
    assert_eq!(again["definitionVersion"], 2);
    assert_eq!(again["versionId"], second["versionId"]);
    assert_eq!(again["previousVersionId"], first["versionId"]);
}

#[test]
fn text_fields_past_their_limits_are_refused_naming_field_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let long = |n: usize| "é".repeat(n);
    let mut cases = vec![
        (
            rule("85", "general", "alice@example.com"),
            "collection",
            128,
        ),
        (
            rule(&long(257), "general", "alice@example.com"),
            "entry",
            256,
        ),
        (rule("85", "general", &long(321)), "taughtBy", 320),
        (rule("85", "general", "alice@example.com"), "reason", 2_000),
    ];
    cases[0].0["collection"] = json!(long(129));
    cases[3].0["reason"] = json!(long(2_001));
    for (lesson, field, limit) in cases {
        let refused = agent.call(TEACH, lesson);
        assert_eq!(refused.code(), -32602, "{}", refused.body);
        assert_eq!(refused.field(), Some(field));
        assert_eq!(
            refused.metadata("maxChars"),
            Some(limit.to_string().as_str())
        );
        assert!(
            refused
                .message()
                .contains(&format!("limit of {limit} characters"))
        );
    }
    assert_eq!(Lesson::max_chars("reason"), Some(2_000));
    // At the limit, a text field is read: this entry is refused by the
    // learnable (it is no HS chapter), not by its length.
    let at_limit = agent.call(TEACH, rule(&long(256), "general", "alice@example.com"));
    assert_eq!(at_limit.code(), -32602);
    assert_eq!(at_limit.metadata("maxChars"), None, "{}", at_limit.body);
    assert_eq!(
        show_back(&agent, "85").code(),
        learnables::a2a::json_rpc::codes::NOT_FOUND,
        "nothing was taught"
    );
}

fn task(id: usize, state: TaskState, messages: usize) -> Task {
    Task {
        id: format!("t{id:03}"),
        context_id: "c".into(),
        status: TaskStatus {
            state,
            message: None,
            timestamp: None,
        },
        artifacts: None,
        history: Some(
            (0..messages)
                .map(|n| Message::new(Role::User, vec![Part::text(format!("m{n}"))]))
                .collect(),
        ),
        metadata: None,
    }
}

#[test]
fn the_task_store_stays_bounded_evicting_finished_tasks_first() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = BoundedTaskStore::new(16, 4);
        // One open task among finished ones: the finished go first.
        store
            .create(task(0, TaskState::InputRequired, 1))
            .await
            .unwrap();
        for id in 1..40 {
            store
                .create(task(id, TaskState::Completed, 10))
                .await
                .unwrap();
            assert!(store.len().await <= 16);
        }
        assert_eq!(store.len().await, 16);
        assert!(
            store.get("t000").await.unwrap().is_some(),
            "the open task stays"
        );
        assert!(
            store.get("t001").await.unwrap().is_none(),
            "the oldest finished went"
        );
        assert!(store.get("t039").await.unwrap().is_some());
        let kept = store.get("t039").await.unwrap().unwrap();
        let history = kept.history.unwrap();
        assert_eq!(history.len(), 4, "the latest messages are kept");
        assert_eq!(history[3].parts[0].as_text(), Some("m9"));

        let mut long = store.get("t000").await.unwrap().unwrap();
        long.history = task(0, TaskState::InputRequired, 50).history;
        store.update(long).await.unwrap();
        assert_eq!(
            store
                .get("t000")
                .await
                .unwrap()
                .unwrap()
                .history
                .unwrap()
                .len(),
            4
        );
        // When every task is open, the oldest goes.
        let open = BoundedTaskStore::new(2, 4);
        for id in 0..3 {
            open.create(task(id, TaskState::Working, 0)).await.unwrap();
        }
        assert!(open.get("t000").await.unwrap().is_none());
        assert_eq!(open.len().await, 2);
    });
}

#[test]
fn the_agent_keeps_no_more_tasks_than_its_store_holds() {
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    let agent = Agent::start_with(knowledge, BoundedTaskStore::new(16, 4));
    for chapter in 1..=40 {
        let task = agent.route(chapter, None, &[ACTIVATED]);
        assert_eq!(
            task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
            "{task}"
        );
    }
    let listed = agent.call_with("ListTasks", json!({"pageSize": 100}), &[]);
    assert_eq!(listed.result()["totalSize"], 16, "{}", listed.body);
}

#[test]
fn the_task_store_stays_within_its_bytes_evicting_finished_tasks_first() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let big = |id: usize, state: TaskState| {
            let mut task = task(id, state, 0);
            task.history = Some(vec![Message::new(
                Role::User,
                vec![Part::text("x".repeat(60 * 1024))],
            )]);
            task
        };
        let store = BoundedTaskStore::new(10_000, 100).with_max_bytes(1024 * 1024);
        store
            .create(big(0, TaskState::InputRequired))
            .await
            .unwrap();
        for id in 1..200 {
            store.create(big(id, TaskState::Completed)).await.unwrap();
            assert!(store.bytes().await <= 1024 * 1024, "after task {id}");
        }
        assert!(store.len().await < 20, "{} tasks", store.len().await);
        assert!(
            store.get("t000").await.unwrap().is_some(),
            "the open task stays"
        );
        assert!(
            store.get("t199").await.unwrap().is_some(),
            "the newest stays"
        );
        assert!(
            store.get("t001").await.unwrap().is_none(),
            "the oldest finished went"
        );

        // A task growing past the bound keeps its latest messages.
        let mut growing = store.get("t000").await.unwrap().unwrap();
        growing.history = Some(
            (0..40)
                .map(|n| {
                    Message::new(
                        Role::User,
                        vec![Part::text(format!("{n} {}", "y".repeat(60 * 1024)))],
                    )
                })
                .collect(),
        );
        store.update(growing).await.unwrap();
        assert!(store.bytes().await <= 1024 * 1024);
        let kept = store.get("t000").await.unwrap().unwrap().history.unwrap();
        assert!(kept.len() < 40 && !kept.is_empty(), "{}", kept.len());
        assert!(
            kept.last().unwrap().parts[0]
                .as_text()
                .unwrap()
                .starts_with("39 ")
        );

        // A task that cannot fit even with one message is refused.
        let tiny = BoundedTaskStore::new(10, 10).with_max_bytes(1024);
        let refused = tiny.create(big(0, TaskState::Working)).await.unwrap_err();
        assert!(
            refused.to_string().contains("larger than the 1024 bytes"),
            "{refused}"
        );
        assert_eq!(tiny.bytes().await, 0);
    });
}

#[test]
fn messages_from_a_client_without_a_token_keep_the_agent_within_its_task_bytes() {
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    let agent = Agent::start_with(
        knowledge,
        BoundedTaskStore::new(10_000, 100).with_max_bytes(2 << 20),
    );
    let filler = "z".repeat(60 * 1024);
    for n in 0..100 {
        let message = json!({
            "messageId": format!("m-{n}"), "role": "ROLE_USER",
            "parts": [{"text": format!("Route a declaration for HS chapter 85 {filler}")}]
        });
        let reply = agent.call_with("SendMessage", json!({ "message": message }), &[]);
        assert!(reply.body.get("result").is_some(), "{}", reply.body);
    }
    let listed = agent.call_with("ListTasks", json!({"pageSize": 100}), &[]);
    let total = listed.result()["totalSize"].as_u64().unwrap();
    // Each task holds its 60 KiB question and the agent's answer: 2 MiB
    // hold a few tens of them, not a hundred.
    assert!(total < 40, "{total} tasks kept");
}

#[test]
fn a_question_links_to_the_teachers_page_for_its_task() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let task = agent.route(85, None, &[ACTIVATED, AS_ALICE]);
    let id = task["id"].as_str().unwrap();
    let text = task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    let link = format!("{}learnables/#task={id}", agent.base_url);
    assert!(text.ends_with(&format!("Teach me on {link}")), "{text}");
}

/// `GetTask` of an id no task can have (60,000 characters, escapes in it):
/// "task not found", the id shown escaped and shortened, not echoed whole.
#[test]
fn an_overlong_task_id_is_not_echoed_whole() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let id = format!("\u{1b}]52;c;{}", "x".repeat(60_000));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": id}});
    let reply = agent.post(body.to_string(), &[]);
    assert_eq!(reply.body["error"]["code"], -32001, "{}", reply.body);
    let message = reply.body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("task not found: \\u{1b}]52;c;xxx"),
        "{message}"
    );
    assert!(message.len() < 200, "{} bytes", message.len());
    assert!(!message.contains('\u{1b}'));
}
