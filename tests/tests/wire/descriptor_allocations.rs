//! What the derive core allocates: `descriptor()` nothing after its first
//! call, and parsing a valid lesson value only what the result owns.

// The counting is allocation-counter's: it installs a global allocator that
// wraps `System` and counts, per thread, what `measure` runs. A hand-written
// one would need `unsafe impl GlobalAlloc`, and the workspace forbids
// `unsafe_code` (`forbid`, which no `#![allow]` in this file can lift).
// Counting per thread keeps the other tests and the test harness, which
// allocate concurrently, out of each measurement.

use learnables::{Learnable, LessonValue};
use learnables_examples::{Desk, RoutingRule};

/// The allocations `run` makes on this thread, with its result.
fn allocations<R>(run: impl FnOnce() -> R) -> (u64, R) {
    let mut result = None;
    let info = allocation_counter::measure(|| result = Some(run()));
    (info.count_total, result.expect("measure runs the closure"))
}

fn lesson_value(json: serde_json::Value) -> LessonValue {
    LessonValue::try_from(json).expect("an object")
}

#[test]
fn descriptor_allocates_nothing_after_its_first_call() {
    let first: *const _ = RoutingRule::descriptor();
    let (count, same) = allocations(|| {
        (0..1000).all(|_| std::ptr::eq(std::hint::black_box(RoutingRule::descriptor()), first))
    });
    assert!(same, "descriptor() returned another descriptor");
    assert_eq!(
        count, 0,
        "1000 calls of descriptor() allocated {count} times"
    );
}

#[test]
fn parsing_a_form_allocates_only_what_the_result_owns() {
    let form = lesson_value(serde_json::json!({
        "chapter": "84", "desk": "dangerous-goods", "note": "Lithium batteries",
    }));
    let without_note = lesson_value(serde_json::json!({"chapter": "84", "desk": "cold chain"}));
    let typed = lesson_value(serde_json::json!({"chapter": 84, "desk": "general", "note": "x"}));

    let (count, rule) = allocations(|| RoutingRule::from_lesson_value(&form));
    let rule = rule.expect("a valid form");
    assert_eq!(rule.note.as_deref(), Some("Lithium batteries"));
    assert_eq!(count, 1, "only the note's String may allocate");

    let (count, rule) = allocations(|| RoutingRule::from_lesson_value(&without_note));
    assert_eq!(rule.expect("a valid form").desk, Desk::Perishables);
    assert_eq!(count, 0, "a rule without a note owns nothing on the heap");

    // A number is read through its text, written on the stack.
    let (count, rule) = allocations(|| RoutingRule::from_lesson_value(&typed));
    assert_eq!(rule.expect("a valid value").chapter.number(), 84);
    assert_eq!(count, 1, "only the note's String may allocate");
}
