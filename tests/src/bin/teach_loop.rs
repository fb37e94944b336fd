//! The child process of the crash and durability tests
//! (`tests/knowledge_crash.rs`, `tests/durability.rs`): teaches lessons into
//! a store in `DIR` from several threads, printing `ack POSITION VERSION_ID`
//! on its standard output for each lesson once `teach` has acknowledged it.
//! The crash test kills it at random moments; the durability test traces
//! its system calls.
//!
//! `teach_loop DIR [--threads N] [--lessons N] [--store KIND]`
//!
//! - `--threads N`: teaching threads (4);
//! - `--lessons N`: stop after N acknowledged lessons (never);
//! - `--store KIND`: `embedded` (the real store, the default), or one of two
//!   deliberately broken stores the durability test must catch:
//!   `unsynced` (writes each version to a file and acknowledges without
//!   syncing it) and `sync-before-write` (syncs the file, then writes,
//!   then acknowledges).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use learnables::knowledge::{Storage, StoreError, VersionRecord};
use learnables::{Knowledge, Lesson, LessonValue};
use learnables_examples::RoutingRule;

struct Options {
    dir: String,
    threads: usize,
    lessons: usize,
    store: String,
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("no DIR")?;
    let mut options = Options {
        dir,
        threads: 4,
        lessons: usize::MAX,
        store: "embedded".into(),
    };
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|error| format!("{flag}: {error}"))
        };
        match flag.as_str() {
            "--threads" => options.threads = number()?,
            "--lessons" => options.lessons = number()?,
            "--store" => options.store = value,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(options)
}

/// A deliberately broken store: one JSON line per version in
/// `DIR/versions.jsonl`, never synced before the acknowledgment.
struct LineFile {
    file: Mutex<File>,
    path: std::path::PathBuf,
    sync_before_write: bool,
}

impl LineFile {
    fn open(dir: &Path, sync_before_write: bool) -> std::io::Result<LineFile> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join("versions.jsonl");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&path)?;
        Ok(LineFile {
            file: Mutex::new(file),
            path,
            sync_before_write,
        })
    }
}

impl Storage for LineFile {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        let file =
            File::open(&self.path).map_err(|error| StoreError::Failed(error.to_string().into()))?;
        BufReader::new(file)
            .lines()
            .map(|line| {
                let line = line.map_err(|error| StoreError::Failed(error.to_string().into()))?;
                serde_json::from_str(&line)
                    .map_err(|error| StoreError::Damaged(error.to_string().into()))
            })
            .collect()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        let failed = |error: std::io::Error| StoreError::Failed(error.to_string().into());
        let mut lines = String::new();
        for record in records {
            lines.push_str(&serde_json::to_string(record).expect("a version serializes"));
            lines.push('\n');
        }
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if self.sync_before_write {
            file.sync_data().map_err(failed)?;
        }
        file.write_all(lines.as_bytes()).map_err(failed)
    }
}

fn open(options: &Options) -> Result<Knowledge, String> {
    let dir = Path::new(&options.dir);
    let knowledge = match options.store.as_str() {
        "embedded" => Knowledge::open(dir).map_err(|error| error.to_string())?,
        broken @ ("unsynced" | "sync-before-write") => {
            let storage = LineFile::open(dir, broken == "sync-before-write")
                .map_err(|error| error.to_string())?;
            Knowledge::with_storage(storage).map_err(|error| error.to_string())?
        }
        other => return Err(format!("unknown store {other}")),
    };
    knowledge
        .register::<RoutingRule>()
        .map_err(|error| error.to_string())?;
    Ok(knowledge)
}

fn main() {
    let options = options().unwrap_or_else(|error| {
        eprintln!("{error}\nusage: teach_loop DIR [--threads N] [--lessons N] [--store KIND]");
        std::process::exit(2);
    });
    let knowledge = open(&options).unwrap_or_else(|error| {
        eprintln!("{error}");
        std::process::exit(1);
    });
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let acknowledged = Arc::new(AtomicUsize::new(0));
    let (threads, lessons) = (options.threads, options.lessons);
    let handles: Vec<_> = (0..threads)
        .map(|thread| {
            let knowledge = knowledge.clone();
            let out = out.clone();
            let acknowledged = acknowledged.clone();
            std::thread::spawn(move || {
                let desks = ["general", "cold chain", "dangerous-goods"];
                for i in 0usize.. {
                    if acknowledged.load(Ordering::SeqCst) >= lessons {
                        return;
                    }
                    // A cycle of 97 (over 96 chapters) does not line up with
                    // the three desks: every round keeps teaching new values.
                    let chapter = learnables_examples::Chapter::nth((i * threads + thread) % 97);
                    let value = LessonValue::try_from(serde_json::json!({
                        "chapter": chapter.to_string(),
                        "desk": desks[(i + thread) % desks.len()],
                    }))
                    .expect("an object");
                    let lesson = Lesson::new(
                        "routing_rules",
                        chapter.to_string(),
                        value,
                        format!("teacher{thread}@example.com"),
                    );
                    match knowledge.teach(&lesson) {
                        Ok(result) if result.learned => {
                            let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                            let id = result.version_id.unwrap_or_default();
                            let _ = writeln!(out, "ack {} {id}", result.definition_version);
                            let _ = out.flush();
                            acknowledged.fetch_add(1, Ordering::SeqCst);
                        }
                        Ok(_) => {}
                        Err(error) => {
                            eprintln!("{error}");
                            std::process::exit(1);
                        }
                    }
                }
            })
        })
        .collect();
    for handle in handles {
        let _ = handle.join();
    }
}
