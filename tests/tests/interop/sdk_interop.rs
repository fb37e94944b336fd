//! The example agent driven by clients nobody on this project wrote: the
//! official A2A SDKs for Python (`a2a-sdk`) and JavaScript (`@a2a-js/sdk`),
//! pinned in `tests/interop/`. Each test starts its own agent with fresh
//! knowledge on 127.0.0.1 and runs one SDK's script against it: the card
//! read into the SDK's own `AgentCard`, the Learnables extension found in it,
//! a question with the extension activated through the SDK (a teach block in
//! the reply), `GetTask`, the same question without activation (no block), a
//! lesson through the card's teach method, show-back, and the new answer.
//!
//! The SDKs are installed by `tests/interop/setup` (which `.ci/run` runs).
//! Without them, or at other versions than pinned, a test fails saying so,
//! unless `LEARNABLES_ALLOW_SKIP` names `sdk-interop` (see
//! `learnables_tests::skip`): then it prints `SKIPPED:` and passes.

use learnables_tests::support::agent as agent_harness;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use agent_harness::{Agent, teachers};

/// How long one SDK's script may take (it makes about ten calls).
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(120);

/// The most of a script's output kept, per stream (the rest is read and
/// dropped, so the script never blocks on a full pipe).
const OUTPUT_LIMIT: usize = 256 * 1024;

#[test]
fn the_python_sdk_reads_the_card_asks_teaches_and_sees_the_new_answer() {
    let dir = interop_dir().join("python");
    let venv = dir.join(".venv");
    if !installed(
        "a2a-sdk (Python)",
        &dir.join("requirements.txt"),
        &venv.join("installed-requirements.txt"),
    ) {
        return;
    }
    let mut script = Command::new(venv.join("bin").join("python"));
    script
        .arg(dir.join("interop.py"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("PYTHONPATH");
    run_against_a_fresh_agent("a2a-sdk (Python)", script);
}

#[test]
fn the_javascript_sdk_reads_the_card_asks_teaches_and_sees_the_new_answer() {
    let dir = interop_dir().join("js");
    if !installed(
        "@a2a-js/sdk (JavaScript)",
        &dir.join("package-lock.json"),
        &dir.join("node_modules/.installed-package-lock.json"),
    ) {
        return;
    }
    let mut script = Command::new("node");
    script.arg(dir.join("interop.mjs"));
    run_against_a_fresh_agent("@a2a-js/sdk (JavaScript)", script);
}

fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("interop")
}

/// Whether the SDK is installed as `pins` says: `tests/interop/setup` copies
/// the pins to `stamp` once it has installed them. If not, panics saying how
/// to install it, unless `LEARNABLES_ALLOW_SKIP` names `sdk-interop`: then
/// prints `SKIPPED:` and returns `false`.
fn installed(sdk: &str, pins: &Path, stamp: &Path) -> bool {
    let pinned = std::fs::read(pins)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", pins.display()));
    let why = match std::fs::read(stamp) {
        Ok(installed) if installed == pinned => return true,
        Ok(_) => format!(
            "{sdk} is installed at other versions than {} pins",
            pins.display()
        ),
        Err(_) => format!("{sdk} is not installed ({} is missing)", stamp.display()),
    };
    learnables_tests::skip::cannot_run(
        sdk,
        "sdk-interop",
        &format!("{why}: run `tests/interop/setup` (or `.ci/run`, which runs it)"),
    );
    false
}

/// Starts an agent with fresh knowledge, runs `script` against it as the
/// first harness teacher, and asserts it passed.
fn run_against_a_fresh_agent(sdk: &str, mut script: Command) {
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    let teacher = teachers().remove(0);
    script
        .args(["--url", &agent.base_url, "--taught-by", &teacher.email])
        .env("LEARNABLES_TOKEN", &teacher.token)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let run = Run::start(sdk, &mut script);
    let (status, stdout, stderr) = run.finish(SCRIPT_TIMEOUT);
    let output = format!("--- stdout ---\n{stdout}--- stderr ---\n{stderr}");
    match status {
        None => panic!("the {sdk} script did not finish within {SCRIPT_TIMEOUT:?}\n{output}"),
        Some(status) => assert!(
            status.success() && stdout.contains("PASSED:"),
            "the {sdk} script failed ({status})\n{output}"
        ),
    }
    agent.stop();
}

/// A script running, its output read on two threads so neither pipe fills.
struct Run {
    child: Child,
    stdout: JoinHandle<String>,
    stderr: JoinHandle<String>,
}

impl Run {
    fn start(sdk: &str, command: &mut Command) -> Run {
        let mut child = command.spawn().unwrap_or_else(|error| {
            panic!(
                "cannot start the {sdk} script ({error}): run `tests/interop/setup` \
                 (or `.ci/run`) to install what it needs"
            )
        });
        let stdout = read_all(child.stdout.take().expect("a piped stdout"));
        let stderr = read_all(child.stderr.take().expect("a piped stderr"));
        Run {
            child,
            stdout,
            stderr,
        }
    }

    /// Waits up to `timeout`; a script still running then is killed and its
    /// status is `None`.
    fn finish(mut self, timeout: Duration) -> (Option<ExitStatus>, String, String) {
        let deadline = Instant::now() + timeout;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the script's status") {
                break Some(status);
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let stdout = self.stdout.join().unwrap_or_default();
        let stderr = self.stderr.join().unwrap_or_default();
        (status, stdout, stderr)
    }
}

fn read_all(mut stream: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut chunk = [0u8; 8192];
        while let Ok(read) = stream.read(&mut chunk) {
            if read == 0 {
                break;
            }
            let room = OUTPUT_LIMIT.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..read.min(room)]);
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}
