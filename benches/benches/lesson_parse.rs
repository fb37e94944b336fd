//! The derive core against serde, in the same run: parsing a lesson value
//! into a typed struct, and reading a learnable's descriptor.

mod serde_twins;

use std::hint::black_box;
use std::str::FromStr;
use std::sync::OnceLock;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use learnables::{Learnable, LessonValue};
use learnables_examples::RoutingRule;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_twins::{SerdeFormRule, SerdeRule, form_input, typed_input};

fn lesson_value(value: &Value) -> LessonValue {
    LessonValue::try_from(value.clone()).expect("an object")
}

/// The baselines parse the chapter into the type of `RoutingRule::chapter`,
/// inferred from the field, so that they follow it if it changes.
fn parse(c: &mut Criterion) {
    parse_into(c, |rule| &rule.chapter);
}

/// Each pair does the same work on both sides: the same input, parsed into
/// the same field types. serde's `from_value` consumes (and so drops) its
/// input inside the timing: it is compared with `ours_owned`, which is
/// given an owned copy and consumes it too (`from_owned_lesson_value`). The borrowing
/// `deserialize(&value)` is compared with `ours`, which borrows. Outputs
/// are dropped outside the timing on both sides of every pair.
fn parse_into<C>(c: &mut Criterion, chapter: fn(&RoutingRule) -> &C)
where
    C: DeserializeOwned + FromStr + PartialEq + std::fmt::Debug,
{
    let typed = typed_input();
    let typed_lesson = lesson_value(&typed);
    let form = form_input();
    let form_lesson = lesson_value(&form);

    // Both sides read the same values, or the comparison means nothing.
    let ours = RoutingRule::from_lesson_value(&typed_lesson).expect("ours parses");
    let theirs = SerdeRule::<C>::deserialize(&typed).expect("serde parses");
    assert_eq!(chapter(&ours), &theirs.chapter);
    assert_eq!(ours.note, theirs.note);
    assert_eq!(
        RoutingRule::from_lesson_value(&form_lesson).expect("ours parses the form"),
        ours
    );
    let form_theirs = SerdeFormRule::<C>::deserialize(&form).expect("serde parses the form");
    assert_eq!(&form_theirs.chapter, chapter(&ours));
    assert_eq!(form_theirs, serde_json::from_value(form.clone()).unwrap());

    let mut group = c.benchmark_group("lesson_parse");
    for (name, lesson) in [("typed", &typed_lesson), ("form", &form_lesson)] {
        // Owned input, consumed inside the timing, as `from_value` does.
        group.bench_function(format!("{name}/ours_owned"), |b| {
            b.iter_batched(
                || lesson.clone(),
                |lesson| RoutingRule::from_owned_lesson_value(black_box(lesson)),
                BatchSize::SmallInput,
            )
        });
        // Borrowed input, nothing but the parse inside the timing.
        group.bench_function(format!("{name}/ours"), |b| {
            b.iter_with_large_drop(|| RoutingRule::from_lesson_value(black_box(lesson)))
        });
    }
    group.bench_function("typed/serde_from_value", |b| {
        b.iter_batched(
            || typed.clone(),
            |value| serde_json::from_value::<SerdeRule<C>>(black_box(value)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("typed/serde_deserialize_ref", |b| {
        b.iter_with_large_drop(|| SerdeRule::<C>::deserialize(black_box(&typed)))
    });
    group.bench_function("form/serde_from_value", |b| {
        b.iter_batched(
            || form.clone(),
            |value| serde_json::from_value::<SerdeFormRule<C>>(black_box(value)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("form/serde_deserialize_ref", |b| {
        b.iter_with_large_drop(|| SerdeFormRule::<C>::deserialize(black_box(&form)))
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
