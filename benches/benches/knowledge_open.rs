//! Opening a large embedded store against reading its file: `Knowledge::open`
//! of a store of `LEARNABLES_OPEN_LESSONS` lessons (1,000,000 unless set),
//! against reading a file of as many records of the same content (ids,
//! position, entry, teacher, time, reason, describes, value) and parsing
//! each with `serde_json` into a plain struct. Both sides run three times,
//! in turn, in the same run; the ratio of the medians is the measure.
//!
//! `cargo bench -p learnables-benches --bench knowledge_open`
//! (`-- --test`, as CI runs it: 2,000 lessons, once each side.)

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use learnables::Knowledge;
use learnables::knowledge::{LogStorage, Storage, VersionRecord};
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
    let test_mode = std::env::args().any(|arg| arg == "--test");
    let lessons: u64 = match std::env::var("LEARNABLES_OPEN_LESSONS") {
        Ok(count) => count.parse().expect("LEARNABLES_OPEN_LESSONS is a number"),
        Err(_) if test_mode => 2_000,
        Err(_) => 1_000_000,
    };
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

    let rounds = if test_mode { 1 } else { 3 };
    let (mut opening, mut reading) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        opening.push(timed(|| {
            let knowledge = Knowledge::open(&store).expect("the store opens");
            assert_eq!(knowledge.pin().position(), lessons);
            knowledge
        }));
        reading.push(timed(|| read_lines(&plain, lessons)));
    }
    let (open, read) = (median(&mut opening), median(&mut reading));
    println!(
        "{lessons} lessons: open {open:.2?} (runs {opening:.2?}), read + parse {read:.2?} \
         (runs {reading:.2?}); ratio {:.2}",
        open.as_secs_f64() / read.as_secs_f64()
    );
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
