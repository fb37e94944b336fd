//! Every acknowledged lesson was on disk before it was acknowledged.
//!
//! A crash test keeps the page cache, so it cannot see a missing sync; this
//! test watches the system calls instead. It runs `teach_loop` (one teacher,
//! the real embedded store) under `strace -f` and checks, for every
//! acknowledgment the process writes, that
//!
//! 1. the store file was written since the previous acknowledgment (the
//!    lesson went to the store), and
//! 2. every write to the store file that started before the acknowledgment
//!    is covered by an `fsync`/`fdatasync` of that file that started after
//!    the write and completed, successfully, before the acknowledgment.
//!
//! The same check must catch two deliberately broken stores, or it proves
//! nothing: one that acknowledges without syncing, and one that syncs
//! before it writes. `.ci/run` installs `strace`; without it the test fails
//! unless `LEARNABLES_ALLOW_SKIP=strace` is set.
//!
//! A new store's directories must be durable too: each directory the store
//! creates is synced into its parent, up to the first that existed, which
//! the trace of a store opened three directories deep shows.
//!
//! On PostgreSQL a commit is durable when `synchronous_commit` is not `off`
//! (then the commit waits for its WAL record to be flushed); the last test
//! checks, from inside the back end's own transactions, that it commits
//! lessons that way even on a database whose default is `off`.

use learnables_tests::support::postgres as postgres_harness;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

const LESSONS: usize = 40;

/// What the trace of one run shows.
#[derive(Debug, Default)]
struct Findings {
    /// Acknowledgments written.
    acknowledgments: usize,
    /// Writes to the store file.
    store_writes: usize,
    /// Successful syncs of the store file.
    store_syncs: usize,
    /// Each acknowledgment that broke the rule, with why.
    violations: Vec<String>,
}

/// A system call's name, the descriptor's path (`-y`), and the rest of the
/// line, from one line of `strace -f -y` output (`PID name(args) = ret`).
fn call(line: &str) -> Option<(&str, &str)> {
    let line = line.trim_start();
    // strace pads the pid to a width of five: one space or more follow it.
    let rest = line
        .split_once(' ')
        .map_or(line, |(_pid, rest)| rest.trim_start());
    let open = rest.find('(')?;
    Some((&rest[..open], &rest[open + 1..]))
}

/// Whether the first argument of a call (`3</path/to/file>, ...`) is a
/// descriptor of a file under `dir`.
fn on_store(args: &str, dir: &str) -> bool {
    let Some(start) = args.find('<') else {
        return false;
    };
    args[..start].chars().all(|c| c.is_ascii_digit()) && args[start + 1..].starts_with(dir)
}

/// Reads a trace written by `strace -f -y -qq -s 64`, in order.
fn check(trace: &str, dir: &str) -> Findings {
    let mut findings = Findings::default();
    // Store writes started so far; the highest count a completed sync covers.
    let mut written: u64 = 0;
    let mut synced: u64 = 0;
    let mut written_at_last_ack: u64 = 0;
    // Syncs in flight: thread id to the writes started before the sync did.
    let mut in_flight: HashMap<&str, u64> = HashMap::new();
    for (number, line) in trace.lines().enumerate() {
        let pid = line.split_whitespace().next().unwrap_or("");
        if let Some(resumed) = line.split_once("<... ") {
            // `PID <... fdatasync resumed>) = 0`
            let name = resumed.1.split(' ').next().unwrap_or("");
            if matches!(name, "fsync" | "fdatasync")
                && let Some(covered) = in_flight.remove(pid)
                && line.trim_end().ends_with("= 0")
            {
                synced = synced.max(covered);
                findings.store_syncs += 1;
            }
            continue;
        }
        let Some((name, args)) = call(line) else {
            continue;
        };
        let unfinished = line.ends_with("<unfinished ...>");
        match name {
            "write" | "writev" | "pwrite64" | "pwritev" | "pwritev2" if on_store(args, dir) => {
                written += 1;
                findings.store_writes += 1;
            }
            "fsync" | "fdatasync" if on_store(args, dir) => {
                if unfinished {
                    in_flight.insert(pid, written);
                } else if line.trim_end().ends_with("= 0") {
                    synced = synced.max(written);
                    findings.store_syncs += 1;
                }
            }
            "write" if args.starts_with("1<") && args.contains("\"ack ") => {
                findings.acknowledgments += 1;
                let ack = number + 1;
                if written == written_at_last_ack {
                    findings.violations.push(format!(
                        "line {ack}: acknowledged with no write to the store since the last one"
                    ));
                } else if synced < written {
                    findings.violations.push(format!(
                        "line {ack}: acknowledged before the store's writes were synced \
                         ({} of {written} writes covered by a completed sync)",
                        synced
                    ));
                }
                written_at_last_ack = written;
            }
            _ => {}
        }
    }
    findings
}

/// Runs `teach_loop` with `store` under strace until it acknowledged
/// `LESSONS` lessons, and checks its trace; `None` if strace is missing
/// and that is allowed.
fn traced(store: &str) -> Option<Findings> {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    let trace = dir.path().join("trace");
    let run = Command::new("strace")
        .args(["-f", "-y", "-qq", "-s", "64", "-o"])
        .arg(&trace)
        .args([
            "-e",
            "trace=write,writev,pwrite64,pwritev,pwritev2,fsync,fdatasync",
        ])
        .arg(env!("CARGO_BIN_EXE_teach_loop"))
        .arg(&store_dir)
        .args(["--threads", "1", "--lessons", &LESSONS.to_string()])
        .args(["--store", store])
        .output();
    let output = match run {
        Ok(output) => output,
        Err(error) => {
            learnables_tests::skip::cannot_run(
                "durability",
                "strace",
                &format!("strace cannot be run ({error}); install it (`.ci/run` does)"),
            );
            return None;
        }
    };
    assert!(
        output.status.success(),
        "teach_loop under strace failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let acks = String::from_utf8_lossy(&output.stdout).lines().count();
    assert_eq!(acks, LESSONS, "the child acknowledged every lesson");
    let trace = std::fs::read_to_string(&trace).unwrap();
    let store_path = Path::new(&store_dir).display().to_string();
    let findings = check(&trace, &store_path);
    assert_eq!(
        findings.acknowledgments, LESSONS,
        "every acknowledgment is in the trace: {findings:?}"
    );
    Some(findings)
}

#[test]
fn every_acknowledged_lesson_was_synced_to_the_store_file_first() {
    let Some(findings) = traced("embedded") else {
        return;
    };
    assert!(
        findings.violations.is_empty(),
        "acknowledged before durable: {:#?}",
        findings.violations
    );
    assert!(findings.store_syncs >= LESSONS, "{findings:?}");
    assert!(findings.store_writes >= LESSONS, "{findings:?}");
}

#[test]
fn the_check_catches_a_store_that_acknowledges_without_syncing() {
    let Some(findings) = traced("unsynced") else {
        return;
    };
    assert_eq!(findings.store_writes, LESSONS, "{findings:?}");
    assert_eq!(findings.store_syncs, 0, "{findings:?}");
    assert_eq!(findings.violations.len(), LESSONS, "{findings:#?}");
}

#[test]
fn the_check_catches_a_store_that_syncs_before_it_writes() {
    let Some(findings) = traced("sync-before-write") else {
        return;
    };
    assert_eq!(findings.store_syncs, LESSONS, "{findings:?}");
    assert_eq!(findings.violations.len(), LESSONS, "{findings:#?}");
}

#[test]
fn the_check_reads_interrupted_calls_in_order() {
    let dir = "/data/store";
    let synced = "\
7 pwrite64(3</data/store/knowledge.log>, \"x\"..., 4096, 0) = 4096
7 fdatasync(3</data/store/knowledge.log> <unfinished ...>
8 write(2<pipe:[1]>, \"noise\", 5) = 5
7 <... fdatasync resumed>) = 0
7 write(1<pipe:[9]>, \"ack 1 01\"..., 43) = 43
";
    let findings = check(synced, dir);
    assert_eq!(findings.acknowledgments, 1);
    assert!(findings.violations.is_empty(), "{findings:?}");

    // The same, but the write lands while the sync is in flight, and the
    // sync fails: neither covers it.
    let racing = "\
7 fdatasync(3</data/store/knowledge.log> <unfinished ...>
8 pwrite64(3</data/store/knowledge.log>, \"x\"..., 4096, 0) = 4096
7 <... fdatasync resumed>) = 0
7 fdatasync(3</data/store/knowledge.log>) = -1 EIO (Input/output error)
7 write(1<pipe:[9]>, \"ack 1 01\"..., 43) = 43
";
    assert_eq!(check(racing, dir).violations.len(), 1);
}

#[test]
fn postgres_commits_every_lesson_synchronously_even_where_the_database_says_not_to() {
    let Some(database) = postgres_harness::fresh_database() else {
        return;
    };
    let connect = || postgres::Client::connect(database.url(), postgres::NoTls).unwrap();
    // A database whose sessions, by default, do not wait for the flush.
    connect()
        .batch_execute(
            "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = off', \
             current_database()); END $$",
        )
        .unwrap();
    let setting = |client: &mut postgres::Client| -> String {
        client
            .query_one("SHOW synchronous_commit", &[])
            .unwrap()
            .get(0)
    };
    assert_eq!(setting(&mut connect()), "off", "the database's default");

    let knowledge = learnables::Knowledge::connect(database.url()).unwrap();
    knowledge
        .register::<learnables_examples::RoutingRule>()
        .unwrap();
    // Records, from inside each transaction that appends versions, the
    // setting it will commit under.
    connect()
        .batch_execute(
            "CREATE TABLE seen_settings (setting text NOT NULL);
             CREATE FUNCTION record_setting() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 INSERT INTO seen_settings VALUES (current_setting('synchronous_commit'));
                 RETURN NULL;
             END $$;
             CREATE TRIGGER record_setting AFTER INSERT ON learnables_versions
                 FOR EACH STATEMENT EXECUTE FUNCTION record_setting();",
        )
        .unwrap();
    for chapter in 1..=5 {
        let value = serde_json::json!({"chapter": chapter.to_string()});
        let lesson = learnables::Lesson::new(
            "routing_rules",
            chapter.to_string(),
            learnables::LessonValue::try_from(value).unwrap(),
            "alice@example.com",
        );
        assert!(knowledge.teach(&lesson).unwrap().learned);
    }
    let seen: Vec<String> = connect()
        .query("SELECT setting FROM seen_settings", &[])
        .unwrap()
        .into_iter()
        .map(|row| row.get(0))
        .collect();
    assert!(!seen.is_empty(), "the appends were seen");
    assert!(
        seen.iter().all(|setting| setting != "off"),
        "lessons were committed without waiting for the flush: {seen:?}"
    );
}

#[test]
fn a_call_is_read_whatever_the_width_of_its_pid() {
    for line in [
        "123456 fdatasync(3</s/knowledge.log>) = 0",
        "6789  fdatasync(3</s/knowledge.log>) = 0",
        "42    fdatasync(3</s/knowledge.log>) = 0",
    ] {
        let (name, args) = call(line).expect("a call");
        assert_eq!(name, "fdatasync", "{line}");
        assert!(on_store(args, "/s"), "{line}");
    }
}

/// The directories a trace (`strace -f -y -e trace=mkdir,mkdirat,fsync`)
/// shows created under `root` whose entry was never synced into their
/// parent after they were made: each as its path.
fn unsynced_directories(trace: &str, root: &str) -> Vec<String> {
    let mut made: Vec<String> = Vec::new();
    let mut unsynced = Vec::new();
    for line in trace.lines() {
        let Some((name, args)) = call(line) else {
            continue;
        };
        let succeeded = line.trim_end().ends_with("= 0");
        match name {
            "mkdir" | "mkdirat" if succeeded => {
                // `mkdir("/path", 0700)`, or `mkdirat(AT_FDCWD<...>, "/path", 0700)`.
                if let Some(path) = args.split('"').nth(1)
                    && path.starts_with(root)
                {
                    made.push(path.to_owned());
                    unsynced.push(path.to_owned());
                }
            }
            "fsync" if succeeded => {
                if let Some(synced) = args
                    .split_once('<')
                    .and_then(|(_, rest)| rest.split_once('>'))
                    .map(|(path, _)| path)
                {
                    unsynced.retain(|dir: &String| {
                        Path::new(dir).parent().and_then(Path::to_str) != Some(synced)
                    });
                }
            }
            _ => {}
        }
    }
    assert!(
        !made.is_empty() || trace.is_empty(),
        "no directory was made"
    );
    unsynced
}

#[test]
fn every_directory_a_new_store_makes_is_synced_into_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let store_dir = root.join("new").join("nested").join("store");
    let trace = root.join("trace");
    let run = Command::new("strace")
        .args(["-f", "-y", "-qq", "-o"])
        .arg(&trace)
        .args(["-e", "trace=mkdir,mkdirat,fsync"])
        .arg(env!("CARGO_BIN_EXE_teach_loop"))
        .arg(&store_dir)
        .args(["--threads", "1", "--lessons", "1"])
        .output();
    let output = match run {
        Ok(output) => output,
        Err(error) => {
            return learnables_tests::skip::cannot_run(
                "durability",
                "strace",
                &format!("strace cannot be run ({error}); install it (`.ci/run` does)"),
            );
        }
    };
    assert!(
        output.status.success(),
        "teach_loop under strace failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let trace = std::fs::read_to_string(&trace).unwrap();
    let root = root.display().to_string();
    let made = trace
        .lines()
        .filter(|line| line.contains("mkdir") && line.contains(&root))
        .count();
    assert_eq!(made, 3, "new, nested and store were made:\n{trace}");
    assert_eq!(
        unsynced_directories(&trace, &root),
        Vec::<String>::new(),
        "{trace}"
    );
}

#[test]
fn the_directory_check_catches_a_directory_left_unsynced() {
    let trace = "\
7 mkdirat(AT_FDCWD</>, \"/t/new\", 0700) = 0
7 fsync(3</t>) = 0
7 mkdirat(AT_FDCWD</>, \"/t/new/nested\", 0700) = 0
7 mkdirat(AT_FDCWD</>, \"/t/new/nested/store\", 0700) = 0
7 fsync(3</t/new/nested>) = 0
";
    assert_eq!(unsynced_directories(trace, "/t"), ["/t/new/nested"]);
}
