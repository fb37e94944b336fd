//! Rendering a pin's knowledge for a model's prompt
//! (`Snapshot::prompt_knowledge().render()`, 10,000 entries, unbounded),
//! against formatting the same `describes` sentences into one `String` by
//! hand (`entries::<T>()`, `describes`, a line each), in the same run.
//! Budget: ≤ 2.0.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use learnables::{Knowledge, Learnable, Lesson, LessonValue};

const ENTRIES: usize = 10_000;

#[derive(Learnable, Debug, Clone)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the declaration's code; anything unmatched goes to the general desk",
    decided_by = "model",
    describes = "Code {entry} declarations now go to the {desk} desk"
)]
struct Rule {
    /// Desk
    desk: String,
    /// Note for the broker
    note: Option<String>,
}

fn knowledge() -> Knowledge {
    let knowledge = Knowledge::in_memory();
    knowledge.register::<Rule>().unwrap();
    for at in 0..ENTRIES {
        let desk = ["general", "cold chain", "dangerous goods"][at % 3];
        let value = LessonValue::try_from(serde_json::json!({"desk": desk})).unwrap();
        let lesson = Lesson::new(
            "routing_rules",
            format!("{at:05}"),
            value,
            "alice@example.com",
        );
        knowledge.teach(&lesson).unwrap();
    }
    knowledge
}

fn bench(c: &mut Criterion) {
    let knowledge = knowledge();
    let pinned = knowledge.pin();
    let mut group = c.benchmark_group("prompt_knowledge");
    group.bench_function("by_hand", |b| {
        b.iter(|| {
            let mut out = String::new();
            for (entry, rule) in black_box(&pinned).entries::<Rule>() {
                if let Ok(rule) = rule {
                    out.push_str("- ");
                    out.push_str(&rule.describes(entry));
                    out.push('\n');
                }
            }
            black_box(out.len())
        })
    });
    group.bench_function("render", |b| {
        b.iter(|| {
            let text = black_box(&pinned)
                .prompt_knowledge()
                .max_chars(usize::MAX)
                .render();
            black_box(text.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
