//! Opening a large embedded store against reading its file: `Knowledge::open`
//! of a store of `LEARNABLES_OPEN_LESSONS` lessons (1,000,000 unless set)
//! and registering its learnable,
//! against reading a file of as many records of the same content (ids,
//! position, entry, teacher, time, reason, describes, value) and parsing
//! each with `serde_json` into a plain struct. Both sides run three times,
//! in turn, in the same run; the ratio of the medians is the measure.
//!
//! `cargo bench -p learnables-benches --bench knowledge_open`
//! (`-- --test`, as CI runs it: 2,000 lessons, once each side; `--
//! --counted`, the instructions each side spends a lesson, counted under
//! Valgrind's cachegrind on 100,000 lessons unless `LEARNABLES_OPEN_LESSONS`
//! says otherwise: a run that opens or reads once less a run that does not.)

mod cachegrind;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use learnables::Knowledge;
use learnables::knowledge::{LogStorage, Storage, VersionRecord};
use learnables_examples::RoutingRule;
use learnables_tests::routing_entries;
use serde::Deserialize;

/// The baseline's record: the same content, in a plain struct.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // parsed, never read
struct Plain {
    position: u64,
    collection: String,
    definition_version: u64,
    version_id: String,
    previous_version_id: Option<String>,
    entry: String,
    value: serde_json::Map<String, serde_json::Value>,
    taught_by: String,
    reason: Option<String>,
    describes: String,
    taught_at_ms: u64,
}

/// Lessons written to the store per append.
const GROUP: usize = 10_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let test_mode = args.iter().any(|arg| arg == "--test");
    let counted = args.iter().any(|arg| arg == "--counted");
    let lessons: u64 = match std::env::var("LEARNABLES_OPEN_LESSONS") {
        Ok(count) => count.parse().expect("LEARNABLES_OPEN_LESSONS is a number"),
        Err(_) if test_mode => 2_000,
        Err(_) if counted => 100_000,
        Err(_) => 1_000_000,
    };
    if counted {
        count(lessons);
        return;
    }
    if let [flag, side, times, lessons] = args.as_slice()
        && flag == "--child"
    {
        let times = times.parse().expect("a number of rounds");
        let lessons = lessons.parse().expect("a number of lessons");
        let (store, plain, _dir) = files(lessons);
        // What each side made is never freed, as the timed rounds leave
        // freeing out: the process ends instead.
        for _ in 0..times {
            match side.as_str() {
                "open" => std::mem::forget(black_box(open(&store, lessons))),
                _ => std::mem::forget(black_box(read_lines(&plain, lessons))),
            }
        }
        return;
    }
    let (store, plain, _dir) = files(lessons);
    let rounds = if test_mode { 1 } else { 3 };
    let (mut opening, mut reading) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        opening.push(timed(|| open(&store, lessons)));
        reading.push(timed(|| read_lines(&plain, lessons)));
    }
    let (open, read) = (median(&mut opening), median(&mut reading));
    println!(
        "{lessons} lessons: open {open:.2?} (runs {opening:.2?}), read + parse {read:.2?} \
         (runs {reading:.2?}); ratio {:.2}",
        open.as_secs_f64() / read.as_secs_f64()
    );
}

/// The instructions each side spends a lesson, counted.
fn count(lessons: u64) {
    let side = |name: &'static str| {
        cachegrind::per_operation(
            move |times| {
                let args = ["--child", name, &times.to_string(), &lessons.to_string()];
                args.map(String::from).to_vec()
            },
            1,
        )
    };
    let (Some(open), Some(read)) = (side("open"), side("read")) else {
        println!("knowledge_open counted: valgrind did not run");
        return;
    };
    let per = |counts: &cachegrind::Counts| counts.instructions / lessons as f64;
    println!(
        "knowledge_open counted, {lessons} lessons: open {:.0} instructions a lesson, read + \
         parse {:.0}; ratio {:.2} (level-1 data misses a lesson {:.1} against {:.1})",
        per(&open),
        per(&read),
        open.instructions / read.instructions,
        open.l1_data_misses / lessons as f64,
        read.l1_data_misses / lessons as f64,
    );
}

/// The store of `lessons` lessons and the baseline's file of the same
/// records, in a temporary directory (returned, to keep it).
fn files(lessons: u64) -> (PathBuf, PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = dir.path().join("store");
    let (records, _) = routing_entries::entries(lessons, |position| {
        uuid::Uuid::from_u128(u128::from(position)).to_string()
    });
    {
        let storage = LogStorage::open(&store).expect("a new store");
        for group in records.chunks(GROUP) {
            storage.append(group).expect("consecutive versions");
        }
    }
    let plain = dir.path().join("records.jsonl");
    write_lines(&plain, &records);
    drop(records);
    settle();
    (store, plain, dir)
}

/// The store opened and its learnable registered, which reads every
/// stored version as the type: what an agent does before it serves.
fn open(store: &Path, lessons: u64) -> Knowledge {
    let knowledge = Knowledge::open(store).expect("the store opens");
    knowledge
        .register::<RoutingRule>()
        .expect("every version reads");
    assert_eq!(knowledge.pin().position(), lessons);
    knowledge
}

/// How long `run` takes, its result dropped outside the timing, and with
/// it the allocator's work of freeing it ([`settle`]).
fn timed<T>(run: impl FnOnce() -> T) -> Duration {
    let start = Instant::now();
    let result = black_box(run());
    let elapsed = start.elapsed();
    drop(result);
    settle();
    elapsed
}

/// Has the allocator finish freeing what was dropped, before the next
/// timing: glibc's `malloc` takes the small blocks freed back into its
/// free lists lazily, in the next allocation of a kilobyte or more, which
/// was the other side's first (the baseline's million records, freed, cost
/// the next `Knowledge::open` a sixth of its time, in `malloc_consolidate`
/// under the allocation of its first state).
fn settle() {
    drop(black_box(Vec::<u8>::with_capacity(4096)));
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn write_lines(path: &Path, records: &[VersionRecord]) {
    let mut text = Vec::new();
    for record in records {
        serde_json::to_writer(&mut text, record).expect("a record writes");
        text.push(b'\n');
    }
    std::fs::write(path, text).expect("the baseline's file is written");
}

/// Reads the file and parses every line: the records, kept.
fn read_lines(path: &Path, lessons: u64) -> Vec<Plain> {
    let text = std::fs::read(path).expect("the baseline's file reads");
    let parsed: Vec<Plain> = text
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("a record parses"))
        .collect();
    assert_eq!(parsed.len() as u64, lessons);
    parsed
}
