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
use learnables_tests::support::script::ScriptRun;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use agent_harness::{Agent, teachers};

/// How long one SDK's script may take (it makes about ten calls).
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(120);

/// The most of a script's output kept, per stream (the rest is read and
/// dropped, so the script never blocks on a full pipe).

#[test]
fn the_python_sdk_reads_the_card_asks_teaches_and_sees_the_new_answer() {
    let Some(script) = python_script("interop.py") else {
        return;
    };
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

/// The agent on both bindings: a question asked on JSON-RPC by a client
/// that activated Learnables, read over gRPC by the Python SDK's gRPC
/// client without activating (GetTask, ListTasks, SubscribeToTask): no
/// block, no URI, no echo; activated over gRPC, the block and the echo.
#[test]
fn the_python_sdks_grpc_client_reads_nothing_of_learnables_without_activating() {
    let Some(mut script) = python_script("grpc_binding.py") else {
        return;
    };
    let data = tempfile::tempdir().expect("a temporary directory");
    let (agent, _grpc) = Agent::start_with_grpc(data.path(), true, |address| address.to_string());
    script.args(["--url", &agent.base_url]);
    passes("the gRPC script", script);
    agent.stop();
}

/// The Python SDK's interpreter running `name` (of `tests/interop/python/`),
/// or `None` where the SDK is not installed and the skip is allowed.
fn python_script(name: &str) -> Option<Command> {
    let dir = interop_dir().join("python");
    let venv = dir.join(".venv");
    if !installed(
        "a2a-sdk (Python)",
        &dir.join("requirements.txt"),
        &venv.join("installed-requirements.txt"),
    ) {
        return None;
    }
    let mut script = Command::new(venv.join("bin").join("python"));
    script
        .arg(dir.join(name))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("PYTHONPATH");
    Some(script)
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
        .env("LEARNABLES_TOKEN", &teacher.token);
    passes(&format!("the {sdk} script"), script);
    agent.stop();
}

/// Runs `script` and asserts it passed (exit 0 and `PASSED:`).
fn passes(what: &str, mut script: Command) {
    script
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let run = ScriptRun::start(&mut script, "tests/interop/setup");
    let (status, stdout, stderr) = run.finish(SCRIPT_TIMEOUT);
    let output = format!("--- stdout ---\n{stdout}--- stderr ---\n{stderr}");
    match status {
        None => panic!("{what} did not finish within {SCRIPT_TIMEOUT:?}\n{output}"),
        Some(status) => assert!(
            status.success() && stdout.contains("PASSED:"),
            "{what} failed ({status})\n{output}"
        ),
    }
}
