//! A browser test leaves nothing in `TMPDIR`, whether it ends its session
//! or fails half way: such tests run in a child process of this test
//! binary with a `TMPDIR` of its own, which must be empty when they have
//! passed (Chromium's `org.chromium.Chromium.scoped_dir.*` included).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use learnables_tests::support::browser::{Browser, browser_available, group_runs, runtime};

/// The browser tests the child runs: one through every part of a session
/// (the example agent, the page, signing in, teaching, closing), and one
/// whose session ends as a failing test's does.
const CHILD_TESTS: [&str; 2] = [
    "field_kinds::a_date_field_is_a_date_picker_and_an_optional_field_says_so",
    "leaves_nothing::a_session_dropped_half_way_leaves_no_process_behind",
];

/// How long the child test may take.
const CHILD_PATIENCE: Duration = Duration::from_secs(300);

#[test]
fn a_browser_test_leaves_nothing_in_tmpdir() {
    if !browser_available("a_browser_test_leaves_nothing_in_tmpdir") {
        return;
    }
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let binary = std::env::current_exe().expect("the test binary's path");
    // Beside the child's TMPDIR, not in it; removed when dropped.
    let out = tempfile::NamedTempFile::new().expect("the child's output file");
    let log = out.reopen().expect("the child's output file");
    let mut child = Command::new(binary)
        .args(["--exact", "--test-threads=1", "--nocapture"])
        .args(CHILD_TESTS)
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("the output file, twice"))
        .stderr(log)
        .spawn()
        .expect("the test binary runs again");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            break Some(status);
        }
        if started.elapsed() > CHILD_PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let output = std::fs::read_to_string(out.path()).unwrap_or_default();
    let status = status.unwrap_or_else(|| {
        panic!("{CHILD_TESTS:?} did not end within {CHILD_PATIENCE:?}:\n{output}")
    });
    assert!(status.success(), "{CHILD_TESTS:?} failed:\n{output}");
    assert!(
        output.contains("2 passed"),
        "{CHILD_TESTS:?} did not run:\n{output}"
    );
    let left: Vec<String> = std::fs::read_dir(tmp.path())
        .expect("the child's TMPDIR")
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "{CHILD_TESTS:?} left in TMPDIR: {left:?}");
}

#[test]
fn a_session_dropped_half_way_leaves_no_process_behind() {
    if !browser_available("a_session_dropped_half_way_leaves_no_process_behind") {
        return;
    }
    let group = runtime().block_on(async {
        let browser = Browser::start(800, 600).await;
        browser
            .client
            .goto("about:blank")
            .await
            .expect("a page opens");
        let group = browser.process_group();
        // Dropped without `close`, as when a test panics.
        drop(browser);
        group
    });
    assert!(!group_runs(group), "a process of the session still runs");
}
