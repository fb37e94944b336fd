//! Two OS processes, each a replica of the agent with several teachers,
//! teach one PostgreSQL database at once: no lesson is refused, and the
//! database holds one linear history with exactly the lessons learned.

use learnables_tests::support::backend_suite;
use learnables_tests::support::postgres as postgres_harness;

use std::collections::BTreeSet;
use std::process::{Command, Stdio};

use learnables::Knowledge;
use learnables_examples::RoutingRule;

const THREADS: usize = 4;
const LESSONS: usize = 25;

#[test]
fn two_processes_teaching_one_database_refuse_nothing() {
    let Some(database) = postgres_harness::fresh_database() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let children: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|name| {
            Command::new(env!("CARGO_BIN_EXE_teach_replica"))
                .args([database.url(), name])
                .arg(THREADS.to_string())
                .arg(LESSONS.to_string())
                .arg(&go)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // Both have connected and wait for the signal (or will see it at once).
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::fs::write(&go, b"").unwrap();

    let mut learned = BTreeSet::new();
    let mut lines = 0;
    for child in children {
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "a replica failed: {stderr}");
        for line in String::from_utf8(output.stdout).unwrap().lines() {
            lines += 1;
            let mut words = line.splitn(3, ' ');
            match (words.next(), words.next(), words.next()) {
                (Some("learned"), Some(tag), Some(id)) => {
                    learned.insert((tag.to_owned(), id.to_owned()));
                }
                (Some("unchanged"), Some(_), None) => {}
                _ => panic!("a lesson was refused: {line}"),
            }
        }
    }
    assert_eq!(lines, 2 * THREADS * LESSONS, "one line per lesson");

    let knowledge = Knowledge::connect(database.url()).unwrap();
    knowledge.register::<RoutingRule>().unwrap();
    let history = knowledge.history("routing_rules");
    backend_suite::assert_stored_exactly(&history, &learned);
    assert!(
        learned.iter().any(|(tag, _)| tag.starts_with("a-"))
            && learned.iter().any(|(tag, _)| tag.starts_with("b-")),
        "both processes taught"
    );
}
