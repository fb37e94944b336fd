//! The derive core against serde, in the same run: parsing a lesson value
//! into a typed struct, and reading a learnable's descriptor.

use std::hint::black_box;
use std::sync::OnceLock;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use learnables::{Learnable, LessonValue};
use learnables_examples::RoutingRule;
use serde::Deserialize;
use serde_json::{Value, json};

/// The same rule for serde: same keys, same choices, same default, and
/// unknown keys refused.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct SerdeRule {
    chapter: u8,
    #[serde(default)]
    desk: SerdeDesk,
    note: Option<String>,
}

/// The rule for serde as a form sends it: every value a string.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct SerdeFormRule {
    chapter: String,
    #[serde(default)]
    desk: SerdeDesk,
    note: Option<String>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Default)]
#[serde(rename_all = "kebab-case")]
enum SerdeDesk {
    #[default]
    General,
    DangerousGoods,
    #[serde(rename = "cold chain")]
    Perishables,
}

fn typed_input() -> Value {
    json!({"chapter": 84, "desk": "dangerous-goods", "note": "Lithium batteries"})
}

fn form_input() -> Value {
    json!({"chapter": "84", "desk": "dangerous-goods", "note": "Lithium batteries"})
}

fn lesson_value(value: &Value) -> LessonValue {
    LessonValue::try_from(value.clone()).expect("an object")
}

fn parse(c: &mut Criterion) {
    let typed = typed_input();
    let typed_lesson = lesson_value(&typed);
    let form = form_input();
    let form_lesson = lesson_value(&form);

    // Both sides read the same values, or the comparison means nothing.
    let ours = RoutingRule::from_lesson_value(&typed_lesson).expect("ours parses");
    let theirs = SerdeRule::deserialize(&typed).expect("serde parses");
    assert_eq!(ours.chapter.number(), theirs.chapter);
    assert_eq!(ours.note, theirs.note);
    assert_eq!(
        RoutingRule::from_lesson_value(&form_lesson).expect("ours parses the form"),
        ours
    );
    assert_eq!(
        SerdeFormRule::deserialize(&form)
            .expect("serde parses the form")
            .chapter,
        "84"
    );

    let mut group = c.benchmark_group("lesson_parse");

    group.bench_function("typed/ours", |b| {
        b.iter(|| RoutingRule::from_lesson_value(black_box(&typed_lesson)))
    });
    group.bench_function("typed/serde_from_value", |b| {
        b.iter_batched(
            || typed.clone(),
            |value| serde_json::from_value::<SerdeRule>(black_box(value)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("typed/serde_deserialize_ref", |b| {
        b.iter(|| SerdeRule::deserialize(black_box(&typed)))
    });

    group.bench_function("form/ours", |b| {
        b.iter(|| RoutingRule::from_lesson_value(black_box(&form_lesson)))
    });
    group.bench_function("form/serde_from_value", |b| {
        b.iter_batched(
            || form.clone(),
            |value| serde_json::from_value::<SerdeFormRule>(black_box(value)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("form/serde_deserialize_ref", |b| {
        b.iter(|| SerdeFormRule::deserialize(black_box(&form)))
    });

    group.finish();
}

fn descriptor(c: &mut Criterion) {
    static BASELINE: OnceLock<u64> = OnceLock::new();
    BASELINE.get_or_init(|| 84);
    RoutingRule::descriptor();

    let mut group = c.benchmark_group("descriptor");
    group.bench_function("ours", |b| b.iter(RoutingRule::descriptor));
    group.bench_function("once_lock_u64_baseline", |b| {
        b.iter(|| black_box(&BASELINE).get_or_init(|| 84))
    });
    group.finish();
}

criterion_group!(benches, parse, descriptor);
criterion_main!(benches);
