//! The PostgreSQL back end against the embedded store, same run, same
//! workload:
//! - durable teaching by 1 and by 8 concurrent teachers (lessons per
//!   second), each lesson a new version committed before `teach` returns;
//! - `pin()` + `get` on knowledge holding `ENTRIES` rules loaded from the
//!   store;
//! - for PostgreSQL alone, how long a lesson taught to one replica takes
//!   to reach another (LISTEN/NOTIFY, then catching up).
//!
//! Uses `DATABASE_URL`, or starts a throwaway server like the tests do.
//! `cargo bench -p learnables-tests --bench postgres`

#[path = "../tests/postgres_harness/mod.rs"]
mod postgres_harness;

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use learnables::knowledge::{PostgresStorage, RedbStorage, Storage, VersionRecord};
use learnables::{Knowledge, Learnable, Lesson};
use learnables_examples::{Chapter, Desk, RoutingRule};

const ENTRIES: u64 = 10_000;

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

fn registered(knowledge: Knowledge) -> Knowledge {
    knowledge.register::<RoutingRule>().unwrap();
    knowledge
}

/// A PostgreSQL database for one benchmark, or `None` (with a `SKIPPED:`
/// line) where there is no PostgreSQL.
fn database() -> Option<String> {
    postgres_harness::fresh_database().map(postgres_harness::TestDatabase::into_url)
}

fn durable_teaching(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let embedded = registered(Knowledge::open(dir.path().join("store")).unwrap());
    let postgres = database().map(|url| registered(Knowledge::connect(&url).unwrap()));
    let counter = Arc::new(AtomicU64::new(0));
    let mut group = c.benchmark_group("durable_teach");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    for teachers in [1, 8] {
        group.bench_function(format!("embedded, {teachers} teachers"), |b| {
            b.iter_custom(|iters| teach_concurrently(&embedded, &counter, teachers, iters));
        });
        if let Some(postgres) = &postgres {
            group.bench_function(format!("postgres, {teachers} teachers"), |b| {
                b.iter_custom(|iters| teach_concurrently(postgres, &counter, teachers, iters));
            });
        }
    }
    group.finish();
}

/// `ENTRIES` versions, one per entry.
fn records() -> Vec<VersionRecord> {
    (0..ENTRIES)
        .map(|i| {
            let rule = rule(i);
            let entry = format!("entry-{i}");
            VersionRecord {
                position: i + 1,
                collection: "routing_rules".into(),
                definition_version: i + 1,
                version_id: format!("v{}", i + 1),
                previous_version_id: (i > 0).then(|| format!("v{i}")),
                value: rule.to_lesson_value(),
                taught_by: "alice@example.com".into(),
                reason: None,
                describes: rule.describes(&entry),
                entry,
                taught_at_ms: 0,
            }
        })
        .collect()
}

fn pin_and_get(c: &mut Criterion) {
    let records = records();
    let dir = tempfile::tempdir().unwrap();
    RedbStorage::open(dir.path())
        .unwrap()
        .append(&records)
        .unwrap();
    let embedded = registered(Knowledge::open(dir.path()).unwrap());
    let postgres = database().map(|url| {
        PostgresStorage::connect(&url)
            .unwrap()
            .append(&records)
            .unwrap();
        registered(Knowledge::connect(&url).unwrap())
    });
    let keys: Vec<String> = (0..1024)
        .map(|i| format!("entry-{}", i * 97 % ENTRIES))
        .collect();
    let mut group = c.benchmark_group("pin_get");
    let stores = std::iter::once(("embedded", &embedded))
        .chain(postgres.as_ref().map(|postgres| ("postgres", postgres)));
    for (name, knowledge) in stores {
        let mut next = 0usize;
        group.bench_function(format!("{name}, pin + get"), |b| {
            b.iter(|| {
                next = (next + 1) % keys.len();
                let pinned = knowledge.pin();
                black_box(pinned.get::<RoutingRule>(black_box(&keys[next])))
            });
        });
    }
    group.finish();
}

fn propagation(c: &mut Criterion) {
    let Some(url) = database() else { return };
    let one = registered(Knowledge::connect(&url).unwrap());
    let two = registered(Knowledge::connect(&url).unwrap());
    let counter = AtomicU64::new(0);
    let mut group = c.benchmark_group("replicas");
    group.sample_size(20);
    group.bench_function("postgres, teach on one until the other sees it", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let result = one.teach(&lesson(&counter)).unwrap();
                let deadline = Instant::now() + Duration::from_secs(10);
                while two.pin().version("routing_rules").map(|v| v.version_id) != result.version_id
                {
                    assert!(Instant::now() < deadline, "the other replica never saw it");
                    std::thread::yield_now();
                }
            }
            start.elapsed()
        });
    });
    group.finish();
}

criterion_group!(benches, durable_teaching, pin_and_get, propagation);
criterion_main!(benches);
