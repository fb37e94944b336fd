//! The example customs agent, started in-process on 127.0.0.1 for a test,
//! and the `learnables` binary run against it.

pub mod stub;

use std::path::Path;
use std::process::{Command, Output};

use learnables::{EXTENSION_URI, TeachBlock};
use learnables_examples::customs_agent::{self, DataLocation, Teacher};
use learnables_examples::desk_plan_agent;
use serde_json::{Value, json};

/// Alice's token: she may teach.
pub const ALICE_TOKEN: &str = "alice-token-7Qx";
/// Alice.
pub const ALICE: &str = "alice@example.com";
/// The token of an identity that looks like a service account.
pub const BOT_TOKEN: &str = "bot-token-9Zk";
/// That identity.
pub const BOT: &str = "deploy-bot@example.com";

/// Bob's token: a second person, who reviews alice's lessons.
pub const BOB_TOKEN: &str = "bob-token-4Rm";
/// Bob.
pub const BOB: &str = "bob@example.com";

/// The path of the built binary.
pub const BIN: &str = env!("CARGO_BIN_EXE_learnables");

/// What stops a test's agent.
type ShutDown = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

/// The teachers every test agent knows: alice, a service-looking identity,
/// and bob, who reviews alice's lessons.
fn teachers() -> Vec<Teacher> {
    vec![
        Teacher {
            email: ALICE.into(),
            token: ALICE_TOKEN.into(),
        },
        Teacher {
            email: BOT.into(),
            token: BOT_TOKEN.into(),
        },
        Teacher {
            email: BOB.into(),
            token: BOB_TOKEN.into(),
        },
    ]
}

/// A running agent with its own knowledge; stopped when dropped.
pub struct Agent {
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
    _data: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Agent {
    /// Starts the agent on a free port, with empty knowledge.
    pub fn start() -> Agent {
        Agent::serving(|listener, knowledge, shutdown| async move {
            customs_agent::serve(listener, knowledge, &teachers(), shutdown)
                .await
                .expect("the agent serves");
        })
    }

    /// Starts the desk plan agent (a list of desks and a range-checked
    /// limit, `learnables_examples::desk_plan_agent`) on a free port, with
    /// empty knowledge and the same teachers.
    pub fn start_desk_plans() -> Agent {
        Agent::serving(|listener, knowledge, shutdown| async move {
            let tokens = customs_agent::tokens(&teachers()).expect("the teachers make a table");
            desk_plan_agent::serve(listener, knowledge, tokens, shutdown)
                .await
                .expect("the agent serves");
        })
    }

    /// `serve` run on a free port of 127.0.0.1 over fresh knowledge in a
    /// temporary directory, on a runtime of its own.
    fn serving<S, F>(serve: S) -> Agent
    where
        S: FnOnce(tokio::net::TcpListener, learnables::Knowledge, ShutDown) -> F + Send + 'static,
        F: Future<Output = ()>,
    {
        let data = tempfile::tempdir().expect("a temporary directory");
        let knowledge = DataLocation::Directory(data.path().to_owned())
            .open()
            .expect("the knowledge opens");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (bound, address) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("a free port");
                bound
                    .send(listener.local_addr().expect("an address"))
                    .expect("the test waits");
                let shutdown: ShutDown = Box::pin(async {
                    let _ = stopped.await;
                });
                serve(listener, knowledge, shutdown).await;
            });
        });
        let address = address.recv().expect("the agent binds");
        Agent {
            url: format!("http://{address}/"),
            _data: data,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// The agent card, as served.
    pub fn card(&self) -> Value {
        reqwest::blocking::get(format!("{}.well-known/agent-card.json", self.url))
            .expect("the card is served")
            .json()
            .expect("the card is JSON")
    }

    /// Asks the agent (extension activated) to route a declaration of an
    /// HS chapter it has no rule for: the question message it answers.
    pub fn question(&self, chapter: u32) -> Value {
        let reply = self.question_answer(chapter);
        let message = reply["result"]["task"]["status"]["message"].clone();
        assert!(
            TeachBlock::from_message(&message).unwrap().is_some(),
            "the agent asks with a teach block: {reply}"
        );
        message
    }

    /// The agent's whole JSON-RPC answer to the `SendMessage` of
    /// [`Agent::question`]: the task that asks.
    pub fn question_answer(&self, chapter: u32) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
            "message": {"messageId": "m1", "role": "ROLE_USER",
                        "parts": [{"text": format!("Route a declaration for HS chapter {chapter}")}]}
        }});
        learnables_examples::install_crypto_provider();
        let reply: Value = reqwest::blocking::Client::new()
            .post(&self.url)
            .header("A2A-Extensions", EXTENSION_URI)
            .header("A2A-Version", "1.0")
            .json(&body)
            .send()
            .expect("the agent answers")
            .json()
            .expect("JSON");
        reply
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The binary with `args`, no token in its environment and no colour.
pub fn learnables(args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env_remove("LEARNABLES_TOKEN")
        .env_remove("LEARNABLES_TAUGHT_BY")
        .env("NO_COLOR", "1");
    command
}

/// What a run printed, and how it ended.
pub struct Run {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// The exit status.
    pub code: i32,
}

impl Run {
    /// Runs `command` with no standard input.
    pub fn of(command: &mut Command) -> Run {
        let Output {
            status,
            stdout,
            stderr,
        } = command
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the binary runs");
        Run {
            stdout: String::from_utf8(stdout).expect("UTF-8"),
            stderr: String::from_utf8(stderr).expect("UTF-8"),
            code: status.code().expect("an exit code"),
        }
    }

    /// Asserts success and returns standard output.
    pub fn ok(self) -> String {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self.stdout
    }

    /// Asserts exit status 1 (a refusal, a lint failure) and returns
    /// standard error.
    pub fn failed(self) -> String {
        self.failed_with(1)
    }

    /// Asserts exit status `code` and returns standard error.
    pub fn failed_with(self, code: i32) -> String {
        assert_eq!(
            self.code, code,
            "expected exit {code}\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self.stderr
    }

    /// Asserts exit status `code` with `--json`: nothing on standard error,
    /// and standard output one JSON document, returned.
    pub fn json(self, code: i32) -> Value {
        assert_eq!(
            self.code, code,
            "expected exit {code}\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        assert_eq!(self.stderr, "", "nothing on standard error with --json");
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|error| panic!("not one JSON document ({error}):\n{}", self.stdout))
    }

    /// Asserts `--json`'s error document of `kind` and its exit status:
    /// its message, returned.
    pub fn json_error(self, kind: &str, code: i32) -> String {
        let document = self.json(code);
        let error = &document["error"];
        assert_eq!(error["kind"], kind, "{document}");
        assert_eq!(error["exitCode"], code, "{document}");
        assert_eq!(
            document.as_object().map(|object| object.len()),
            Some(1),
            "{document}"
        );
        error["message"]
            .as_str()
            .unwrap_or_else(|| panic!("a message: {document}"))
            .to_owned()
    }
}

/// Runs the binary with `args`.
pub fn run(args: &[&str]) -> Run {
    Run::of(&mut learnables(args))
}

/// `learnables teach` of `collection`'s `entry` as alice, with `extra`.
pub fn teach_as_alice(agent: &Agent, collection: &str, entry: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "teach",
        agent.url.as_str(),
        "--collection",
        collection,
        "--entry",
        entry,
        "--taught-by",
        ALICE,
        "--token",
        ALICE_TOKEN,
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// Writes `value` as JSON to `name` in `dir`.
pub fn write_json(dir: &Path, name: &str, value: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path.display().to_string()
}

/// What `learnables show` says about an entry.
pub fn show(agent: &Agent, collection: &str, entry: &str) -> String {
    run(&[
        "show",
        &agent.url,
        "--collection",
        collection,
        "--entry",
        entry,
        "--token",
        ALICE_TOKEN,
    ])
    .ok()
}
