//! The PostgreSQL back end against the embedded store and against the
//! database's own price for a durable row, same run, same workload:
//! - durable teaching by 1 and by 8 concurrent teachers (lessons per
//!   second), each lesson a new version committed before `teach` returns
//!   (and, for 1, the back end's append alone, with no knowledge over it),
//!   against a raw loop of single-row `INSERT`s of a lesson-sized row on
//!   as many connections to the same server, each its own transaction
//!   (`synchronous_commit` on: the `INSERT` and its `COMMIT` in one round
//!   trip, the cheapest durable row a client can ask for);
//! - `pin()` + `get` on knowledge holding `ENTRIES` rules loaded from the
//!   store, against a `HashMap` get + clone of the same rules (once loaded,
//!   both back ends answer from the same in-memory snapshot: what this
//!   measures is that loading from PostgreSQL leaves nothing slower);
//! - for PostgreSQL alone, how long a lesson taught to one replica takes
//!   to reach another (LISTEN/NOTIFY, then catching up).
//!
//! Uses `DATABASE_URL`, or starts a throwaway server like the tests do.
//! `cargo bench -p learnables-benches --bench postgres` (with `--
//! --paired [ROUNDS]`, only the PostgreSQL teaching against the raw loop,
//! in bursts that alternate between the two, 7 rounds unless told: the
//! ratio of each round's pair, so that the machine's drift over the run
//! moves both sides of a ratio alike; with `--test`, one small round of
//! it before the rest).

mod pin_get_bench;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group};
use learnables::Knowledge;
use learnables::knowledge::{LogStorage, PostgresStorage, Storage};
use learnables_examples::RoutingRule;
use learnables_tests::routing_entries::{self, lesson, teach_concurrently};
use learnables_tests::support::postgres as postgres_harness;

const ENTRIES: u64 = 10_000;

fn registered(knowledge: Knowledge) -> Knowledge {
    knowledge.register::<RoutingRule>().unwrap();
    knowledge
}

/// A PostgreSQL database for one benchmark, or `None` (with a `SKIPPED:`
/// line) where there is no PostgreSQL.
fn database() -> Option<String> {
    postgres_harness::fresh_database().map(postgres_harness::TestDatabase::into_url)
}

/// `connections` threads, each on its own connection, inserting `iters`
/// rows of 400 bytes in all into a table of their own, each `INSERT` its
/// own durable transaction; how long it took.
fn raw_inserts(url: &str, connections: u64, iters: u64) -> Duration {
    let mut clients: Vec<postgres::Client> = (0..connections)
        .map(|_| postgres::Client::connect(url, postgres::NoTls).unwrap())
        .collect();
    clients[0]
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS raw_lessons (id bigserial PRIMARY KEY, body text NOT NULL)",
        )
        .unwrap();
    let body = "x".repeat(400);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for (index, client) in clients.iter_mut().enumerate() {
            let index = index as u64;
            let share = iters / connections + u64::from(index < iters % connections);
            let body = &body;
            scope.spawn(move || {
                let insert = client
                    .prepare("INSERT INTO raw_lessons (body) VALUES ($1)")
                    .unwrap();
                for _ in 0..share {
                    client.execute(&insert, &[body]).unwrap();
                }
            });
        }
    });
    start.elapsed()
}

/// `iters` versions appended one at a time straight to `storage` (its
/// own database, no knowledge over it: no decision, no commit thread, no
/// listener); how long it took. What the back end alone costs a lesson.
fn append_alone(storage: &PostgresStorage, iters: u64) -> Duration {
    let after = storage.load().unwrap().len() as u64;
    let (records, _) = routing_entries::entries(after + iters, |position| {
        uuid::Uuid::from_u128(u128::from(position)).to_string()
    });
    let start = Instant::now();
    for record in &records[after as usize..] {
        storage.append(std::slice::from_ref(record)).unwrap();
    }
    start.elapsed()
}

fn durable_teaching(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let embedded = registered(Knowledge::open(dir.path().join("store")).unwrap());
    let url = database();
    let postgres = url
        .as_deref()
        .map(|url| registered(Knowledge::connect(url).unwrap()));
    let counter = Arc::new(AtomicU64::new(0));
    let mut group = c.benchmark_group("durable_teach");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    for teachers in [1, 8] {
        group.bench_function(format!("embedded, {teachers} teachers"), |b| {
            b.iter_custom(|iters| teach_concurrently(&embedded, &counter, teachers, iters));
        });
        if let (Some(postgres), Some(url)) = (&postgres, &url) {
            group.bench_function(format!("postgres, {teachers} teachers"), |b| {
                b.iter_custom(|iters| teach_concurrently(postgres, &counter, teachers, iters));
            });
            if teachers == 1 {
                // A database of its own: the knowledge above would catch
                // up on these versions, and their chain is not its own.
                let storage = PostgresStorage::connect(&database().unwrap()).unwrap();
                group.bench_function("postgres storage append alone, 1 writer", |b| {
                    b.iter_custom(|iters| append_alone(&storage, iters));
                });
            }
            group.bench_function(
                format!("postgres raw INSERT, {teachers} connections"),
                |b| {
                    b.iter_custom(|iters| raw_inserts(url, teachers, iters));
                },
            );
        }
    }
    group.finish();
}

fn pin_and_get(c: &mut Criterion) {
    let (records, map) = routing_entries::entries(ENTRIES, |position| format!("v{position}"));
    let dir = tempfile::tempdir().unwrap();
    LogStorage::open(dir.path())
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
    let keys = routing_entries::keys(ENTRIES);
    let mut group = c.benchmark_group("pin_get");
    pin_get_bench::bench_hash_map_get(&mut group, &map, &keys);
    pin_get_bench::bench_pin_get(&mut group, "embedded, pin + get", &embedded, &keys);
    if let Some(postgres) = &postgres {
        pin_get_bench::bench_pin_get(&mut group, "postgres, pin + get", postgres, &keys);
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

/// Lessons a burst of `--paired` teaches (and rows its raw loop inserts),
/// for 1 teacher; 8 teachers teach four times as many.
const BURST: u64 = 2_000;

/// `--paired`: PostgreSQL teaching by 1 and by 8 teachers against the raw
/// loop on as many connections, in alternating bursts; each round's ratio
/// (teaching's rate over the raw loop's), then their median and range.
fn paired(rounds: usize, burst: u64) {
    let Some(url) = database() else { return };
    let knowledge = registered(Knowledge::connect(&url).unwrap());
    let counter = Arc::new(AtomicU64::new(0));
    for teachers in [1, 8] {
        let lessons = if teachers == 1 { burst } else { 4 * burst };
        // One of each first, untimed: connections and caches warm.
        teach_concurrently(&knowledge, &counter, teachers, lessons / 4);
        raw_inserts(&url, teachers, lessons / 4);
        let mut ratios: Vec<f64> = (0..rounds)
            .map(|round| {
                let teach = || teach_concurrently(&knowledge, &counter, teachers, lessons);
                let raw = || raw_inserts(&url, teachers, lessons);
                // Alternate which side goes first.
                let (teach, raw) = if round % 2 == 0 {
                    let teach = teach();
                    (teach, raw())
                } else {
                    let raw = raw();
                    (teach(), raw)
                };
                raw.as_secs_f64() / teach.as_secs_f64()
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        println!(
            "postgres paired, {teachers} teachers: teaching {:.2} of the raw INSERT loop's rate \
             (median of {rounds} rounds of {lessons} lessons each side; rounds {:.2} to {:.2})",
            ratios[rounds / 2],
            ratios[0],
            ratios[rounds - 1],
        );
    }
}

criterion_group!(benches, durable_teaching, pin_and_get, propagation);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == "--paired") {
        let rounds = args.get(at + 1).and_then(|n| n.parse().ok()).unwrap_or(7);
        paired(rounds.max(1), BURST);
        return;
    }
    if args.iter().any(|arg| arg == "--test") {
        // The paired mode too, one small round, so that it cannot rot.
        paired(1, 40);
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
