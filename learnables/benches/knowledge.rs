//! The knowledge store against its baselines, in the same run:
//! - durable teaching, by 1 and by 8 concurrent teachers, against a raw
//!   write + fsync loop on the same disk (lessons per second);
//! - `pin()` + `get` against a `HashMap` lookup of the same entries;
//! - a show-back of a past version (`pin_as_of`, its id looked up in the
//!   index, the knowledge replayed from the nearest checkpoint) against a
//!   show-back of the latest, over `ENTRIES` versions.
//!
//! `cargo bench -p learnables --bench knowledge`

use std::collections::HashMap;
use std::fs::File;
use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use learnables::knowledge::{MemoryStorage, Storage, VersionRecord};
use learnables::{Knowledge, Learnable, Lesson};
use learnables_examples::{Chapter, Desk, RoutingRule};

const ENTRIES: usize = 100_000;

fn rule(i: u64) -> RoutingRule {
    RoutingRule {
        chapter: Chapter::nth(i as usize),
        desk: [Desk::General, Desk::DangerousGoods, Desk::Perishables][(i % 3) as usize],
        note: Some(format!("note {i}")),
    }
}

/// A lesson that always changes its entry: the counter makes every value new.
fn lesson(counter: &AtomicU64) -> Lesson {
    let i = counter.fetch_add(1, Ordering::Relaxed);
    let rule = rule(i);
    // The chapter is the entry's key: the entry is the rule's chapter.
    Lesson::new(
        "routing_rules",
        rule.chapter.to_string(),
        rule.to_lesson_value(),
        "alice@example.com",
    )
}

/// The raw rate of the disk: append a record-sized buffer and fsync it.
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

/// `teachers` threads teaching `iters` lessons in all into `knowledge`.
fn teach_concurrently(
    knowledge: &Knowledge,
    counter: &Arc<AtomicU64>,
    teachers: u64,
    iters: u64,
) -> Duration {
    let start = Instant::now();
    std::thread::scope(|scope| {
        for teacher in 0..teachers {
            let share = iters / teachers + u64::from(teacher < iters % teachers);
            let knowledge = knowledge.clone();
            let counter = counter.clone();
            scope.spawn(move || {
                for _ in 0..share {
                    let result = knowledge.teach(&lesson(&counter)).unwrap();
                    assert!(result.learned);
                }
            });
        }
    });
    start.elapsed()
}

fn durable_teaching(c: &mut Criterion) {
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

/// Knowledge holding `ENTRIES` routing rules, loaded from a back end.
fn seeded() -> (Knowledge, HashMap<String, RoutingRule>) {
    let storage = MemoryStorage::default();
    let mut map = HashMap::with_capacity(ENTRIES);
    let records: Vec<VersionRecord> = (0..ENTRIES as u64)
        .map(|i| {
            let rule = rule(i);
            let entry = format!("entry-{i}");
            map.insert(entry.clone(), rule.clone());
            VersionRecord {
                position: i + 1,
                collection: "routing_rules".into(),
                definition_version: i + 1,
                version_id: version_id(i + 1),
                previous_version_id: (i > 0).then(|| version_id(i)),
                entry: entry.clone(),
                value: rule.to_lesson_value(),
                taught_by: "alice@example.com".into(),
                reason: None,
                describes: rule.describes(&entry),
                taught_at_ms: 0,
            }
        })
        .collect();
    storage.append(&records).unwrap();
    let knowledge = Knowledge::with_storage(storage).unwrap();
    knowledge.register::<RoutingRule>().unwrap();
    (knowledge, map)
}

fn pin_and_get(c: &mut Criterion) {
    let (knowledge, map) = seeded();
    let keys: Vec<String> = (0..1024)
        .map(|i| format!("entry-{}", i * 97 % ENTRIES))
        .collect();
    let mut group = c.benchmark_group("pin_get");
    let mut next = 0usize;
    group.bench_function("HashMap get + clone", |b| {
        b.iter(|| {
            next = (next + 1) % keys.len();
            black_box(map.get(black_box(&keys[next])).cloned())
        });
    });
    group.bench_function("pin + get", |b| {
        b.iter(|| {
            next = (next + 1) % keys.len();
            let pinned = knowledge.pin();
            black_box(pinned.get::<RoutingRule>(black_box(&keys[next])))
        });
    });
    group.finish();
}

fn show_back(c: &mut Criterion) {
    let (knowledge, _) = seeded();
    let latest = version_id(ENTRIES as u64);
    // Half-way between two checkpoints: the most a show-back replays.
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
