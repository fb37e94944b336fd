//! The official A2A TCK (`a2aproject/a2a-tck`) as a guard: its JSON-RPC
//! categories (mandatory, capabilities) run against the example agent and
//! against the same agent without Learnables
//! (`router_without_learnables`), each with `A2A-Version: 1.0` sent (through
//! the TCK's `A2A_AUTH_HEADERS`). The layer must change no test's outcome
//! but the extension tests', and the example must pass every mandatory test
//! the plain agent passes.
//!
//! The TCK's source is read where it is (`A2A_TCK_DIR`, else
//! `../shared/a2a-tck` beside the checkout), never copied; its Python
//! packages come from `tests/tck/setup` (pinned in
//! `tests/tck/requirements.txt`). Without either the test fails, unless
//! `LEARNABLES_ALLOW_SKIP` names `tck`.

use learnables_tests::support::agent as agent_harness;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_harness::Agent;
use serde_json::Value;

/// The TCK's categories that speak JSON-RPC, with the markers its own
/// runner (`run_tck.py`) selects them by.
const CATEGORIES: [(&str, Option<&str>); 2] = [
    (
        "tests/mandatory/",
        Some("mandatory or mandatory_protocol or mandatory_jsonrpc"),
    ),
    ("tests/optional/capabilities/", None),
];

/// How long one category may take against one agent.
const RUN_TIMEOUT: Duration = Duration::from_secs(600);

#[test]
fn the_layer_changes_no_tck_outcome_but_the_extension_tests() {
    let Some((tck, python)) = installed() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let example = Agent::start(data.path());
    let plain = Agent::start_without_learnables();
    let reports = tempfile::tempdir().unwrap();
    // The two agents are tested side by side: each run waits mostly on the
    // TCK's own timeouts.
    let (with_layer, without) = std::thread::scope(|scope| {
        let with_layer =
            scope.spawn(|| outcomes(&tck, &python, &example.base_url, reports.path(), "example"));
        let without = outcomes(&tck, &python, &plain.base_url, reports.path(), "plain");
        (with_layer.join().unwrap(), without)
    });
    assert!(
        without.len() > 50,
        "the TCK ran only {} tests against the plain agent",
        without.len()
    );
    let mut changed = Vec::new();
    let mut extension_tests = Vec::new();
    let mut push_config_tests = Vec::new();
    for (test, plain_outcome) in &without {
        let example_outcome = with_layer
            .get(test)
            .map_or("not run", |o| o.outcome.as_str());
        if example_outcome == plain_outcome.outcome {
            continue;
        }
        let change = format!("{test}: {} -> {example_outcome}", plain_outcome.outcome);
        if is_extension_test(test) {
            extension_tests.push(change);
        } else if is_push_config_test(test) && !plain_outcome.mandatory {
            push_config_tests.push(change);
        } else {
            changed.push(format!(
                "{test}: {} without the layer, {example_outcome} with it",
                plain_outcome.outcome
            ));
        }
    }
    for test in with_layer
        .keys()
        .filter(|test| !without.contains_key(*test))
    {
        changed.push(format!("{test}: run only with the layer"));
    }
    assert!(
        changed.is_empty(),
        "the layer changed {} TCK outcomes:\n{}",
        changed.len(),
        changed.join("\n")
    );
    let lost: Vec<&String> = without
        .iter()
        .filter(|(test, plain)| {
            plain.mandatory
                && plain.outcome == "passed"
                && with_layer.get(*test).is_none_or(|o| o.outcome != "passed")
        })
        .map(|(test, _)| test)
        .collect();
    assert!(
        lost.is_empty(),
        "mandatory tests the plain agent passes fail on the example: {lost:?}"
    );
    // What the layer is for: the extension tests pass only with it.
    let passed_extension_tests = with_layer
        .iter()
        .filter(|(test, outcome)| is_extension_test(test) && outcome.outcome == "passed")
        .count();
    assert!(
        passed_extension_tests > 0,
        "no extension test passed with the layer (changed: {extension_tests:?})"
    );
    println!(
        "TCK: {} tests, the same outcome with and without the layer but {} extension tests \
         ({}) and {} push config tests registered without activation ({})",
        without.len(),
        extension_tests.len(),
        extension_tests.join("; "),
        push_config_tests.len(),
        push_config_tests.join("; ")
    );
    let not_passed: Vec<&String> = without
        .iter()
        .filter(|(_, outcome)| {
            outcome.mandatory && matches!(outcome.outcome.as_str(), "failed" | "error")
        })
        .map(|(test, _)| test)
        .collect();
    println!(
        "TCK: mandatory tests the plain SDK agent fails ({}): {not_passed:#?}",
        not_passed.len()
    );
}

/// A TCK test about A2A extensions, which the layer is there to change.
fn is_extension_test(test: &str) -> bool {
    test.to_ascii_lowercase().contains("extension")
}

/// A TCK test of push notification configs registered without activating
/// Learnables, which the example refuses (`ActivatedPushConfigs`, -32008):
/// the SDK's push sender posts every event of a task, teach blocks
/// included, outside the layer, where nothing can take them out, so a
/// webhook of a client that did not activate the extension gets none.
/// Known and kept apart: the one outcome the example changes on purpose,
/// in an optional category.
fn is_push_config_test(test: &str) -> bool {
    test.contains("test_push_notification_config_methods.py")
}

/// One test's outcome in a run.
pub(crate) struct Outcome {
    pub(crate) outcome: String,
    pub(crate) mandatory: bool,
}

/// Every test's outcome in the TCK's JSON-RPC categories against `url`.
pub(crate) fn outcomes(
    tck: &Path,
    python: &Path,
    url: &str,
    reports: &Path,
    name: &str,
) -> BTreeMap<String, Outcome> {
    outcomes_with(tck, python, url, reports, name, &[])
}

/// [`outcomes`] with more of the TCK's options (`--transports grpc`).
pub(crate) fn outcomes_with(
    tck: &Path,
    python: &Path,
    url: &str,
    reports: &Path,
    name: &str,
    options: &[&str],
) -> BTreeMap<String, Outcome> {
    // The TCK's push tests listen on one fixed port (8888): two runs at
    // once (this file's and `tck_second_extension`'s tests run side by
    // side) would take it from each other. One run at a time.
    static ONE_RUN_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _run = ONE_RUN_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut all = BTreeMap::new();
    for (index, (path, markers)) in CATEGORIES.iter().enumerate() {
        let report = reports.join(format!("{name}-{index}.json"));
        let mut command = Command::new(python);
        command
            .current_dir(tck)
            // The TCK appends `/.well-known/agent-card.json` to the URL as
            // it is: without the trailing slash, or it asks for `//.well-known`.
            .args(["-m", "pytest", path])
            .arg(format!("--sut-url={}", url.trim_end_matches('/')))
            .args([
                "--test-scope=all",
                "--tb=no",
                "-q",
                "-p",
                "no:cacheprovider",
            ])
            .args(options)
            .arg("--json-report")
            .arg(format!("--json-report-file={}", report.display()))
            .env("A2A_AUTH_HEADERS", r#"{"A2A-Version": "1.0"}"#)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(markers) = markers {
            command.args(["-m", markers]);
        }
        let mut child = command.spawn().expect("the TCK's Python starts");
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > RUN_TIMEOUT {
                let _ = child.kill();
                panic!("the TCK's {path} did not finish within {RUN_TIMEOUT:?} against {name}");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let text = std::fs::read_to_string(&report).unwrap_or_else(|error| {
            let mut stderr = String::new();
            let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr);
            panic!("the TCK wrote no report for {path} against {name} ({error}):\n{stderr}")
        });
        let report: Value = serde_json::from_str(&text).expect("the TCK's report is JSON");
        for test in report["tests"]
            .as_array()
            .expect("the report lists its tests")
        {
            let mandatory = test["keywords"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|keyword| keyword.as_str().is_some_and(|k| k.starts_with("mandatory")));
            all.insert(
                test["nodeid"].as_str().unwrap_or_default().to_owned(),
                Outcome {
                    outcome: test["outcome"].as_str().unwrap_or("unknown").to_owned(),
                    mandatory,
                },
            );
        }
    }
    all
}

/// The TCK's source and the Python that runs it, or `None` (after saying
/// so) where they are missing and the skip is allowed.
pub(crate) fn installed() -> Option<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tck = std::env::var_os("A2A_TCK_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/a2a-tck"));
    let python = root.join("tests/tck/.venv/bin/python");
    if !tck.join("run_tck.py").is_file() {
        learnables_tests::skip::cannot_run(
            "the TCK comparison",
            "tck",
            &format!("no A2A TCK at {} (set A2A_TCK_DIR)", tck.display()),
        );
        return None;
    }
    if !python.is_file() {
        learnables_tests::skip::cannot_run(
            "the TCK comparison",
            "tck",
            "the TCK's Python packages are not installed: run tests/tck/setup",
        );
        return None;
    }
    Some((tck, python))
}
