//! The knowledge store against its baselines, in the same run:
//! - durable teaching, by 1 and by 8 concurrent teachers, against two raw
//!   write + `fdatasync` loops on the same disk (lessons per second): one
//!   that grows its file with every write, and one that writes into a file
//!   filled with zeros beforehand, as the store does; and, for 8 teachers,
//!   how many lessons a durable commit holds on average, counted (printed
//!   as `lessons a durable commit`);
//! - `pin()` + `get` against a `HashMap` lookup of the same entries (and
//!   the pin alone);
//! - a show-back of a past version (`pin_as_of`, its id looked up in the
//!   index, each collection's version then found by a binary search, the
//!   entry read back along its chain of versions) against a show-back of
//!   the latest, over `ENTRIES` versions.
//!
//! `cargo bench -p learnables-benches --bench knowledge`

mod pin_get_bench;

use std::collections::HashMap;
use std::fs::File;
use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use learnables::Knowledge;
use learnables::knowledge::{LogStorage, Storage, StoreError, VersionRecord};
use learnables_examples::RoutingRule;
use learnables_tests::routing_entries::{self, teach_concurrently};

const ENTRIES: usize = 100_000;

/// The raw rate of the disk: append a record-sized buffer and sync it
/// (`fdatasync`), the file growing with each write.
fn raw_fsync(dir: &Path, iters: u64) -> Duration {
    let mut file = File::create(dir.join("raw.log")).unwrap();
    let record = vec![b'x'; 400];
    let start = Instant::now();
    for _ in 0..iters {
        file.write_all(&record).unwrap();
        file.sync_data().unwrap();
    }
    start.elapsed()
}

/// The raw rate of the disk into room written ahead: the same writes and
/// syncs into a file filled with zeros (and synced) before the clock
/// starts, so that no sync carries a change of the file's size.
fn raw_fsync_preallocated(dir: &Path, iters: u64) -> Duration {
    let record = vec![b'x'; 400];
    let mut file = File::create(dir.join("raw-preallocated.log")).unwrap();
    file.write_all(&vec![0; record.len() * iters as usize])
        .unwrap();
    file.sync_all().unwrap();
    let start = Instant::now();
    for i in 0..iters {
        std::os::unix::fs::FileExt::write_all_at(&file, &record, i * record.len() as u64).unwrap();
        file.sync_data().unwrap();
    }
    start.elapsed()
}

/// The embedded store, its appends (one frame and one `fdatasync` each)
/// counted.
struct CountedLog {
    log: LogStorage,
    appends: Arc<AtomicU64>,
}

impl Storage for CountedLog {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.log.load()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        self.appends.fetch_add(1, Ordering::Relaxed);
        self.log.append(records)
    }

    fn load_since(&self, position: u64) -> Result<Vec<VersionRecord>, StoreError> {
        self.log.load_since(position)
    }
}

/// How many lessons a durable commit holds on average when `teachers`
/// teach `lessons` at once into a new embedded store.
fn lessons_a_commit(teachers: u64, lessons: u64) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let appends = Arc::new(AtomicU64::new(0));
    let log = LogStorage::open(dir.path()).unwrap();
    let storage = CountedLog {
        log,
        appends: appends.clone(),
    };
    let knowledge = Knowledge::with_storage(storage).unwrap();
    knowledge.register::<RoutingRule>().unwrap();
    let counter = Arc::new(AtomicU64::new(0));
    teach_concurrently(&knowledge, &counter, teachers, lessons);
    lessons as f64 / appends.load(Ordering::Relaxed).max(1) as f64
}

fn durable_teaching(c: &mut Criterion) {
    let lessons = if std::env::args().any(|arg| arg == "--test") {
        80
    } else {
        8_000
    };
    println!(
        "durable_teach, 8 teachers: {:.2} lessons a durable commit ({lessons} lessons)",
        lessons_a_commit(8, lessons)
    );
    let dir = tempfile::tempdir().unwrap();
    let knowledge = Knowledge::open(dir.path().join("store")).unwrap();
    knowledge.register::<RoutingRule>().unwrap();
    let counter = Arc::new(AtomicU64::new(0));
    let mut group = c.benchmark_group("durable_teach");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    group.bench_function("raw write+fsync", |b| {
        b.iter_custom(|iters| raw_fsync(dir.path(), iters));
    });
    group.bench_function("raw write+fsync, preallocated", |b| {
        b.iter_custom(|iters| raw_fsync_preallocated(dir.path(), iters));
    });
    for teachers in [1, 8] {
        group.bench_function(format!("teach, {teachers} teachers"), |b| {
            b.iter_custom(|iters| teach_concurrently(&knowledge, &counter, teachers, iters));
        });
    }
    group.finish();
}

/// The version id of `position` in [`seeded`]: a UUID, as the knowledge
/// makes them.
fn version_id(position: u64) -> String {
    uuid::Uuid::from_u128(0x0190_0000_0000_7000_8000_0000_0000_0000 | u128::from(position))
        .to_string()
}

/// Knowledge holding `ENTRIES` routing rules, loaded from a back end, and
/// the same rules in a `HashMap`.
fn seeded() -> (Knowledge, HashMap<String, RoutingRule>) {
    let (records, map) = routing_entries::entries(ENTRIES as u64, version_id);
    (routing_entries::knowledge_of(&records), map)
}

fn pin_and_get(c: &mut Criterion) {
    let (knowledge, map) = seeded();
    let keys = routing_entries::keys(ENTRIES as u64);
    let mut group = c.benchmark_group("pin_get");
    pin_get_bench::bench_hash_map_get(&mut group, &map, &keys);
    pin_get_bench::bench_pin_get(&mut group, "pin + get", &knowledge, &keys);
    // What the pin alone costs of the two (taken and dropped).
    group.bench_function("pin alone", |b| b.iter(|| black_box(knowledge.pin())));
    group.finish();
}

fn show_back(c: &mut Criterion) {
    let (knowledge, _) = seeded();
    let latest = version_id(ENTRIES as u64);
    // In the middle of the history (the most a replay from checkpoints
    // every 256 versions, the design before this one, had to redo).
    let past = version_id(ENTRIES as u64 / 2 + 128);
    let oldest = version_id(1);
    let mut group = c.benchmark_group("show_back");
    for (name, id) in [("latest", &latest), ("middle", &past), ("first", &oldest)] {
        group.bench_function(format!("pin_as_of {name} + get"), |b| {
            b.iter(|| {
                let pinned = knowledge.pin_as_of(black_box(id)).unwrap();
                black_box(pinned.get::<RoutingRule>("entry-7"))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, durable_teaching, pin_and_get, show_back);
criterion_main!(benches);
