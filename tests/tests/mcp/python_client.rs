//! `learnables mcp` driven over stdio by a client nobody on this project
//! wrote: the official MCP Python SDK (`mcp`, pinned in `tests/mcp/`), its
//! `elicitation_callback` standing for the person who fills each form. Each
//! test starts the example agent with fresh knowledge on 127.0.0.1 and runs
//! one case of `tests/mcp/python/mcp_client.py`, which starts the command
//! itself with the teacher's token in its environment, under both ways
//! of asking a form: `elicitation/create` requests (`--mode legacy`, the
//! initialize handshake) and the 2026-07-28 revision's
//! `InputRequiredResult` (`--mode auto`, which negotiates it).
//!
//! The SDK is installed by `tests/mcp/setup` (which `tests/run` runs).
//! Without it, or at another version than pinned, a test fails saying so,
//! unless `LEARNABLES_ALLOW_SKIP` names `mcp` (see `learnables_tests::skip`):
//! then it prints `SKIPPED:` and passes.

use learnables::Knowledge;
use learnables_examples::customs_agent;
use learnables_examples::desk_plan_agent;
use learnables_tests::support::agent::{ACTIVATED, AS_BOB, Agent, teachers};
use learnables_tests::support::script::ScriptRun;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How long one case may take (a few tool calls, each a few HTTP calls).
const CASE_TIMEOUT: Duration = Duration::from_secs(120);

/// The most of a case's output kept, per stream.

#[test]
fn the_tools_take_no_value_and_a_host_without_forms_is_refused() {
    run_case("tools", "auto");
}

#[test]
fn a_host_on_the_handshake_without_forms_is_refused_too() {
    run_case("tools", "legacy");
}

#[test]
fn a_lesson_is_taught_through_an_elicitation_request() {
    run_case("teach", "legacy");
}

#[test]
fn a_lesson_is_taught_through_an_input_required_result() {
    run_case("teach", "auto");
}

#[test]
fn a_declined_or_cancelled_form_teaches_nothing() {
    run_case("decline", "auto");
    run_case("decline", "legacy");
}

#[test]
fn a_question_is_answered_by_its_link_and_its_task_completes() {
    run_case("question", "auto");
}

#[test]
fn a_question_is_answered_through_an_elicitation_request() {
    run_case("question", "legacy");
}

#[test]
fn a_refused_value_comes_back_by_field_and_the_form_keeps_the_answers() {
    run_case("refused", "legacy");
    run_case("refused", "auto");
}

#[test]
fn a_revert_is_made_only_once_confirmed_with_the_persons_reason() {
    run_case("revert", "legacy");
}

#[test]
fn a_retraction_is_made_only_once_confirmed() {
    run_case("retract", "auto");
}

#[test]
fn a_proposal_is_approved_by_another_teacher_in_a_form_never_by_its_author() {
    run_case("review", "auto");
}

#[test]
fn a_list_of_desks_and_a_checked_limit_are_asked_as_a_multi_select_and_an_integer_in_range() {
    run_case_on(desk_plan_agent(), "lists", "auto");
    run_case_on(desk_plan_agent(), "lists", "legacy");
}

/// The desk plan agent (a list of desks, a range-checked limit) with
/// fresh knowledge, the harness's teachers teaching it.
fn desk_plan_agent() -> Agent {
    Agent::start_router(|base_url| {
        let tokens = customs_agent::tokens(&teachers()).expect("the teachers make a table");
        desk_plan_agent::router(Knowledge::in_memory(), tokens, base_url).expect("the agent starts")
    })
}

fn python_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("mcp")
        .join("python")
}

/// Runs `case` of the script in `mode` against a fresh agent as the first
/// harness teacher; asserts it passed and that the token appears nowhere
/// in what the script and the command wrote.
fn run_case(case: &str, mode: &str) {
    let data = tempfile::tempdir().expect("a temporary directory");
    run_case_on(Agent::start(data.path()), case, mode);
}

/// [`run_case`] against `agent`.
fn run_case_on(agent: Agent, case: &str, mode: &str) {
    let dir = python_dir();
    let venv = dir.join(".venv");
    if !installed(
        &dir.join("requirements.txt"),
        &venv.join("installed-requirements.txt"),
    ) {
        return;
    }
    if case == "review" {
        // A lesson of bob's for alice, who runs the case, to review.
        let proposed = agent.call_with(
            learnables::TEACH_METHOD,
            serde_json::json!({"collection": "clearance_limits", "entry": "broker-17",
                "value": {"amountEur": "12000"}, "taughtBy": "bob@example.com"}),
            &[ACTIVATED, AS_BOB],
        );
        assert_eq!(proposed.result()["learned"], false);
    }
    let teacher = teachers().remove(0);
    let mut script = Command::new(venv.join("bin").join("python"));
    script
        .arg(dir.join("mcp_client.py"))
        .args(["--bin", env!("CARGO_BIN_EXE_learnables_command")])
        .args(["--url", &agent.base_url, "--taught-by", &teacher.email])
        .args(["--case", case, "--mode", mode])
        .env("LEARNABLES_TOKEN", &teacher.token)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("PYTHONPATH")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let run = ScriptRun::start(&mut script, "tests/mcp/setup");
    let (status, stdout, stderr) = run.finish(CASE_TIMEOUT);
    let output = format!("--- stdout ---\n{stdout}--- stderr ---\n{stderr}");
    match status {
        None => panic!("the case {case} ({mode}) did not finish within {CASE_TIMEOUT:?}\n{output}"),
        Some(status) => assert!(
            status.success() && stdout.contains("PASSED:"),
            "the case {case} ({mode}) failed ({status})\n{output}"
        ),
    }
    // The command's messages go to the script's standard error: never the token.
    assert!(
        !output.contains(&teacher.token),
        "the token was written\n{output}"
    );
    agent.stop();
}

/// Whether the SDK is installed as `pins` says (`tests/mcp/setup` copies
/// the pins to `stamp` once it has installed them). If not, panics saying
/// how to install it, unless `LEARNABLES_ALLOW_SKIP` names `mcp`.
fn installed(pins: &Path, stamp: &Path) -> bool {
    let pinned = std::fs::read(pins)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", pins.display()));
    let why = match std::fs::read(stamp) {
        Ok(installed) if installed == pinned => return true,
        Ok(_) => format!(
            "the MCP Python SDK is installed at other versions than {} pins",
            pins.display()
        ),
        Err(_) => format!(
            "the MCP Python SDK is not installed ({} is missing)",
            stamp.display()
        ),
    };
    learnables_tests::skip::cannot_run(
        "the MCP Python SDK client",
        "mcp",
        &format!("{why}: run `tests/mcp/setup` (or `tests/run`, which runs it)"),
    );
    false
}
