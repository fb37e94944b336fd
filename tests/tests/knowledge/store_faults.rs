//! The embedded store when the disk says no: a read-only directory, a file
//! that becomes unwritable under a running store, and a full disk. Each
//! failure is a clear error naming what failed and where, never a panic;
//! every acknowledged lesson survives it, nothing half-written becomes
//! visible, and once the fault is gone the store works again.
//!
//! The faults are real. Root ignores permission bits, so the tests mount
//! small tmpfs file systems (read-only, or tiny) and mark a file immutable
//! (`chattr +i`), which needs root (or `CAP_SYS_ADMIN` and
//! `CAP_LINUX_IMMUTABLE`); `.ci/run` runs as root. Where that is not
//! permitted a test fails, unless `LEARNABLES_ALLOW_SKIP=fault-tests` is set,
//! when it says `SKIPPED:` on the standard error and passes (see
//! `learnables_tests::skip`). (A process killed mid-write is
//! `knowledge_crash.rs`.) One full-disk test needs no privileges: a file
//! size limit on a child process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use learnables::knowledge::StoreError;
use learnables::{Knowledge, KnowledgeError, Lesson, LessonValue, TeachError};
use learnables_examples::customs_agent::register;
use serde_json::json;

/// A tmpfs mounted on a fresh directory; unmounted when dropped, even when
/// the test fails half-way.
struct Tmpfs {
    dir: Option<tempfile::TempDir>,
}

impl Tmpfs {
    /// Mounts a tmpfs with `options`, or says why it cannot.
    fn mount(options: &str) -> Result<Tmpfs, String> {
        let dir = tempfile::tempdir().map_err(|error| error.to_string())?;
        run(Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(dir.path()))?;
        Ok(Tmpfs { dir: Some(dir) })
    }

    fn path(&self) -> &Path {
        self.dir.as_ref().expect("mounted").path()
    }

    /// Changes the mount's options (`ro`, `rw`).
    fn remount(&self, options: &str) {
        run(Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(self.path()))
        .unwrap_or_else(|error| panic!("remount,{options}: {error}"));
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let Some(dir) = self.dir.take() else { return };
        if run(Command::new("umount").arg(dir.path())).is_err() {
            // Still in use after a failure: detach it anyway.
            let _ = run(Command::new("umount").arg("-l").arg(dir.path()));
        }
    }
}

/// A file marked immutable; the mark is taken off when dropped, so that the
/// temporary directory can be removed even when the test fails half-way.
struct Immutable(PathBuf);

impl Immutable {
    fn mark(path: &Path) -> Result<Immutable, String> {
        run(Command::new("chattr").arg("+i").arg(path))?;
        Ok(Immutable(path.to_owned()))
    }

    fn unmark(self) {}
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = run(Command::new("chattr").arg("-i").arg(&self.0));
    }
}

fn run(command: &mut Command) -> Result<(), String> {
    let output = command.output().map_err(|error| error.to_string())?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_owned())
    }
}

/// Fails the test (or, where `LEARNABLES_ALLOW_SKIP=fault-tests` is set,
/// says loudly that it is skipped): the fault cannot be made here.
fn skipped(test: &str, why: &str) {
    learnables_tests::skip::cannot_run(
        test,
        "fault-tests",
        &format!("{why}; run the tests as root, where mounts and chattr are permitted"),
    );
}

/// The tmpfs, or `None` after [`skipped`] allowed the test to be skipped.
fn tmpfs_or_skip(test: &str, options: &str) -> Option<Tmpfs> {
    Tmpfs::mount(options)
        .map_err(|error| skipped(test, &format!("cannot mount a tmpfs ({error})")))
        .ok()
}

fn open(dir: &Path) -> Knowledge {
    let knowledge = Knowledge::open(dir).expect("the store opens");
    register(&knowledge).expect("the learnables register");
    knowledge
}

fn rule(entry: &str, note: &str) -> Lesson {
    // The chapter is the entry's key: the value names the entry's chapter.
    let value = json!({"chapter": entry, "desk": "general", "note": note});
    Lesson::new(
        "routing_rules",
        entry,
        LessonValue::try_from(value).unwrap(),
        "alice@example.com",
    )
}

/// Teaches `lesson`, which must be acknowledged, into `acknowledged`.
fn teach(knowledge: &Knowledge, lesson: &Lesson, acknowledged: &mut BTreeMap<String, String>) {
    let result = knowledge.teach(lesson).expect("the lesson is acknowledged");
    assert!(result.learned);
    acknowledged.insert(lesson.entry.clone(), result.version_id.unwrap());
}

/// Every entry of `routing_rules` with the id of the version that taught it,
/// after checking that the versions number 1, 2, 3, ... without a gap.
fn entries(knowledge: &Knowledge) -> BTreeMap<String, String> {
    let history = knowledge.history("routing_rules");
    for (index, record) in history.iter().enumerate() {
        assert_eq!(record.definition_version, index as u64 + 1, "no gap");
    }
    history
        .into_iter()
        .map(|record| (record.entry.clone(), record.version_id.clone()))
        .collect()
}

/// The store error a refused lesson carries.
fn store_error(error: TeachError) -> StoreError {
    match error {
        TeachError::Store(store) => store,
        other => panic!("expected a store error, got {other:?}"),
    }
}

/// The kind of the I/O error that is `error`'s source, if it has one.
fn io_kind(error: &dyn std::error::Error) -> Option<std::io::ErrorKind> {
    let source = error.source()?;
    Some(source.downcast_ref::<std::io::Error>()?.kind())
}

#[test]
fn a_read_only_directory_is_refused_at_opening_with_where_and_why() {
    let Some(tmpfs) = tmpfs_or_skip("read-only directory", "ro,size=1m") else {
        return;
    };
    // The directory exists but the database file cannot be created, and a
    // directory inside it cannot be created either.
    for dir in [tmpfs.path().to_owned(), tmpfs.path().join("knowledge")] {
        let refused = Knowledge::open(&dir).expect_err("a read-only directory");
        let KnowledgeError::Store(StoreError::Open { location, reason }) = &refused else {
            panic!("expected an open error, got {refused:?}");
        };
        assert_eq!(location, &dir.display().to_string());
        assert!(reason.contains("Read-only file system"), "{reason}");
        // The I/O error itself is the error's source, through the
        // KnowledgeError too.
        assert_eq!(
            io_kind(&refused),
            Some(std::io::ErrorKind::ReadOnlyFilesystem),
            "{refused:?}"
        );
        assert_eq!(
            refused.to_string(),
            format!(
                "the knowledge store at {} cannot be opened: {reason}",
                dir.display()
            )
        );
    }
}

#[test]
fn a_store_on_a_disk_remounted_read_only_refuses_to_open_and_keeps_its_lessons() {
    let Some(tmpfs) = tmpfs_or_skip("store remounted read-only", "size=4m") else {
        return;
    };
    let dir = tmpfs.path().join("knowledge");
    let mut acknowledged = BTreeMap::new();
    let knowledge = open(&dir);
    for entry in ["84", "85", "86"] {
        teach(&knowledge, &rule(entry, "before"), &mut acknowledged);
    }
    drop(knowledge);

    tmpfs.remount("ro");
    let refused = Knowledge::open(&dir).expect_err("the store cannot be written");
    let message = refused.to_string();
    assert!(
        message.starts_with(&format!(
            "the knowledge store at {} cannot be opened: ",
            dir.display()
        )),
        "{message}"
    );
    assert!(message.contains("Read-only file system"), "{message}");

    tmpfs.remount("rw");
    let reopened = open(&dir);
    assert_eq!(entries(&reopened), acknowledged);
    assert_eq!(reopened.pin().position(), 3);
}

#[test]
fn a_store_file_made_unwritable_while_open_refuses_lessons_then_recovers() {
    const TEST: &str = "store file made unwritable while open";
    let dir = tempfile::tempdir().unwrap();
    // Only some file systems refuse writes through a descriptor opened
    // before the file became immutable (ext4 and xfs do, tmpfs does not).
    let probe = dir.path().join("probe");
    std::fs::write(&probe, b"probe").unwrap();
    let handle = std::fs::OpenOptions::new()
        .write(true)
        .open(&probe)
        .unwrap();
    let marked = match Immutable::mark(&probe) {
        Ok(marked) => marked,
        Err(error) => return skipped(TEST, &format!("cannot mark a file immutable ({error})")),
    };
    let enforced = std::os::unix::fs::FileExt::write_at(&handle, b"x", 0).is_err();
    marked.unmark();
    drop(handle);
    if !enforced {
        return skipped(
            TEST,
            "the temporary directory's file system lets open files be written when immutable",
        );
    }

    let store = dir.path().join("knowledge");
    let mut acknowledged = BTreeMap::new();
    let knowledge = open(&store);
    teach(&knowledge, &rule("84", "before"), &mut acknowledged);
    teach(&knowledge, &rule("85", "before"), &mut acknowledged);
    let file = store.join("knowledge.log");
    let marked = Immutable::mark(&file).expect("the store file is marked immutable");

    let refused = store_error(knowledge.teach(&rule("86", "refused")).unwrap_err());
    let StoreError::Failed(message) = &refused else {
        panic!("expected a failed write, got {refused:?}");
    };
    assert!(
        message.starts_with(&format!("{} could not be written: ", file.display())),
        "{message}"
    );
    assert!(message.contains("Operation not permitted"), "{message}");
    assert_eq!(
        io_kind(&refused),
        Some(std::io::ErrorKind::PermissionDenied),
        "{refused:?}"
    );
    assert!(
        message.ends_with("nothing of this write was stored"),
        "{message}"
    );
    // While the fault lasts, each lesson is refused as clearly.
    let again = store_error(knowledge.teach(&rule("86", "refused")).unwrap_err());
    assert!(
        again.to_string().contains(&file.display().to_string()),
        "{again}"
    );
    assert!(
        again.to_string().contains("Operation not permitted"),
        "{again}"
    );
    // Nothing of the refused lessons is visible.
    assert_eq!(knowledge.pin().position(), 2);
    assert_eq!(entries(&knowledge), acknowledged);

    // The fault gone, the same store takes lessons again, without a restart.
    marked.unmark();
    teach(&knowledge, &rule("86", "after"), &mut acknowledged);
    assert_eq!(entries(&knowledge), acknowledged);
    drop(knowledge);
    let reopened = open(&store);
    assert_eq!(entries(&reopened), acknowledged);
    assert_eq!(reopened.pin().position(), 3);
}

#[test]
fn a_full_disk_refuses_the_lesson_keeps_every_acknowledged_one_and_recovers() {
    let Some(tmpfs) = tmpfs_or_skip("full disk", "size=2m") else {
        return;
    };
    // Ballast to free later: a quarter of the disk.
    let ballast = tmpfs.path().join("ballast");
    std::fs::write(&ballast, vec![0u8; 512 * 1024]).unwrap();
    let store = tmpfs.path().join("knowledge");
    let file = store.join("knowledge.log");
    let knowledge = open(&store);

    let note = "n".repeat(4000);
    let mut acknowledged = BTreeMap::new();
    let mut refused = None;
    for i in 0..1000 {
        // 96 chapters: a repeated one gets a new note, so it learns.
        let lesson = rule(
            &learnables_examples::Chapter::nth(i).to_string(),
            &format!("{i} {note}"),
        );
        match knowledge.teach(&lesson) {
            Ok(result) => {
                assert!(result.learned);
                acknowledged.insert(lesson.entry.clone(), result.version_id.unwrap());
            }
            Err(error) => {
                refused = Some((lesson, error));
                break;
            }
        }
    }
    let (failed, error) = refused.expect("the disk fills up");
    assert!(
        acknowledged.len() > 10,
        "{} lessons fitted",
        acknowledged.len()
    );
    assert_eq!(
        io_kind(&store_error(error.clone())),
        Some(std::io::ErrorKind::StorageFull),
        "{error:?}"
    );
    let message = error.to_string();
    assert_eq!(
        message,
        format!(
            "the lesson was not absorbed: the knowledge store failed: {} could not be written: \
             No space left on device (os error 28); nothing of this write was stored",
            file.display()
        )
    );
    // The refused lesson is nowhere (its chapter holds what was last
    // acknowledged for it, if anything); every acknowledged one is there.
    assert_eq!(
        knowledge
            .pin()
            .entry_record("routing_rules", &failed.entry)
            .map(|record| record.version_id.clone()),
        acknowledged.get(&failed.entry).cloned()
    );
    assert_eq!(entries(&knowledge), acknowledged);

    // Space freed, the same store takes the lesson it refused, and more.
    std::fs::remove_file(&ballast).unwrap();
    teach(&knowledge, &failed, &mut acknowledged);
    teach(&knowledge, &rule("97", "after"), &mut acknowledged);
    assert_eq!(entries(&knowledge), acknowledged);
    // One version per acknowledged lesson (chapters repeat, so there are
    // more versions than entries).
    let versions = knowledge.history("routing_rules").len() as u64;
    assert_eq!(knowledge.pin().position(), versions);

    // Reopened, the store holds exactly the acknowledged lessons.
    drop(knowledge);
    let reopened = open(&store);
    assert_eq!(entries(&reopened), acknowledged);
    assert_eq!(reopened.pin().position(), versions);
}

/// A full disk that needs no privileges: a teaching process whose files
/// may not grow past a limit (`ulimit -f`, with `SIGXFSZ` ignored so that
/// the write fails with "File too large" instead of killing it). The first
/// refused write is the last thing it does; reopened without the limit,
/// the store holds every lesson it acknowledged and takes more.
#[test]
fn a_file_size_limit_refuses_the_lesson_and_keeps_every_acknowledged_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("knowledge");
    // 1 MiB, in the shell's 1024-byte blocks.
    let script = "trap '' XFSZ; ulimit -f 1024; exec \"$0\" \"$@\"";
    let output = Command::new("sh")
        .args(["-c", script, env!("CARGO_BIN_EXE_teach_loop")])
        .arg(&store)
        .args(["--threads", "1", "--lessons", "1000000"])
        .output()
        .expect("sh runs");
    assert_eq!(
        output.status.code(),
        Some(1),
        "the child stops on a refusal"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let file = store.join("knowledge.log");
    assert!(
        stderr.starts_with(&format!(
            "the lesson was not absorbed: the knowledge store failed: {} could not be written: ",
            file.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("File too large"), "{stderr}");
    assert!(
        stderr
            .trim_end()
            .ends_with("nothing of this write was stored"),
        "{stderr}"
    );
    let acknowledged: BTreeMap<u64, String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            let mut parts = line.split_whitespace().skip(1);
            let version = parts.next().unwrap().parse().unwrap();
            (version, parts.next().unwrap().to_owned())
        })
        .collect();
    assert!(
        acknowledged.len() > 10,
        "{} lessons fitted",
        acknowledged.len()
    );

    let reopened = Knowledge::open(&store).expect("the store reopens");
    reopened
        .register::<learnables_examples::RoutingRule>()
        .unwrap();
    let history = reopened.history("routing_rules");
    for (index, record) in history.iter().enumerate() {
        assert_eq!(record.definition_version, index as u64 + 1, "no gap");
    }
    let stored: BTreeMap<u64, String> = history
        .iter()
        .map(|record| (record.definition_version, record.version_id.clone()))
        .collect();
    assert_eq!(stored, acknowledged, "exactly the acknowledged lessons");
    let next = reopened
        .teach(&rule("97", "after the file size limit"))
        .unwrap();
    assert_eq!(next.definition_version, acknowledged.len() as u64 + 1);
}
