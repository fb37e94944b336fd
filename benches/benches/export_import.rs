//! Export and import rates of a knowledge of `LESSONS` lessons (in memory)
//! against writing and parsing the same JSON Lines with plain `serde_json`
//! into a plain struct, in the same run: criterion groups for each, then
//! paired rounds (subject and baseline back to back, in alternating order)
//! and the median of their rate ratios (baseline time / subject time: 1.0
//! is as fast as plain serde, the goal is at least 0.5).
//!
//! `cargo bench -p learnables-benches --bench export_import`

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use learnables::{Knowledge, Lesson, LessonValue};
use learnables_examples::RoutingRule;
use serde::{Deserialize, Serialize};

const LESSONS: u64 = 20_000;
const ROUNDS: usize = 11;

/// A version as a plain struct: the baseline's.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Plain {
    crc32: u32,
    position: u64,
    collection: String,
    definition_version: u64,
    version_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    previous_version_id: Option<String>,
    entry: String,
    value: serde_json::Map<String, serde_json::Value>,
    taught_by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    describes: String,
    taught_at_ms: u64,
}

fn knowledge() -> Knowledge {
    let knowledge = Knowledge::in_memory();
    knowledge.register::<RoutingRule>().unwrap();
    let desks = ["general", "cold chain", "dangerous-goods"];
    for n in 0..LESSONS {
        let chapter = (n % 96 + 1).to_string();
        let chapter = if chapter == "77" {
            "78".to_owned()
        } else {
            chapter
        };
        let desk = desks[(n / 96) as usize % 3];
        let value = LessonValue::try_from(serde_json::json!({
            "chapter": chapter, "desk": desk, "note": format!("lesson {n}")
        }))
        .unwrap();
        let lesson = Lesson::new("routing_rules", chapter, value, "alice@example.com")
            .with_reason(format!("because of shipment {n}"));
        knowledge.teach(&lesson).unwrap();
    }
    knowledge
}

/// The same lines, parsed into plain structs: the baseline's input.
fn plain(file: &[u8]) -> Vec<Plain> {
    file.split(|byte| *byte == b'\n')
        .filter(|line| line.starts_with(b"{\"crc32\":"))
        .map(|line| serde_json::from_slice(line).unwrap())
        .collect()
}

fn export(knowledge: &Knowledge) -> Vec<u8> {
    let mut file = Vec::with_capacity(1 << 20);
    knowledge.export(&mut file).unwrap();
    file
}

fn write_plain(versions: &[Plain]) -> Vec<u8> {
    let mut file = Vec::with_capacity(1 << 20);
    file.extend_from_slice(b"{\"format\":\"learnables-knowledge\",\"version\":1}\n");
    for version in versions {
        serde_json::to_writer(&mut file, version).unwrap();
        file.push(b'\n');
    }
    file.extend_from_slice(b"{\"end\":\"learnables-knowledge\",\"versions\":0}\n");
    file
}

fn import(file: &[u8]) -> Knowledge {
    let knowledge = Knowledge::in_memory();
    knowledge.register::<RoutingRule>().unwrap();
    knowledge.import(file).unwrap();
    knowledge
}

fn time<T>(run: impl FnOnce() -> T) -> Duration {
    let start = Instant::now();
    std::hint::black_box(run());
    start.elapsed()
}

fn export_import(c: &mut Criterion) {
    let knowledge = knowledge();
    let file = export(&knowledge);
    let versions = plain(&file);
    let mut group = c.benchmark_group("export_import");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(LESSONS));
    group.bench_function("export", |b| b.iter(|| export(&knowledge)));
    group.bench_function("write_plain_serde", |b| b.iter(|| write_plain(&versions)));
    group.bench_function("import", |b| b.iter(|| import(&file)));
    group.bench_function("parse_plain_serde", |b| b.iter(|| plain(&file)));
    group.finish();

    let mut export_ratios = Vec::new();
    let mut import_ratios = Vec::new();
    for round in 0..ROUNDS {
        let (subject, baseline) = if round % 2 == 0 {
            let subject = time(|| export(&knowledge));
            (subject, time(|| write_plain(&versions)))
        } else {
            let baseline = time(|| write_plain(&versions));
            (time(|| export(&knowledge)), baseline)
        };
        export_ratios.push(baseline.as_secs_f64() / subject.as_secs_f64());
        let (subject, baseline) = if round % 2 == 0 {
            let subject = time(|| import(&file));
            (subject, time(|| plain(&file)))
        } else {
            let baseline = time(|| plain(&file));
            (time(|| import(&file)), baseline)
        };
        import_ratios.push(baseline.as_secs_f64() / subject.as_secs_f64());
    }
    for (what, mut ratios) in [("export", export_ratios), ("import", import_ratios)] {
        ratios.sort_by(f64::total_cmp);
        println!(
            "{what} rate / plain serde_json rate, {LESSONS} lessons, {ROUNDS} paired rounds: \
             median {:.2} ({:.2}–{:.2})",
            ratios[ROUNDS / 2],
            ratios[0],
            ratios[ROUNDS - 1]
        );
    }
}

criterion_group!(benches, export_import);
criterion_main!(benches);
