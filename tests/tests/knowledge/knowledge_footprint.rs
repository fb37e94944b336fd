//! What a knowledge keeps on the heap: a small fixed part, whatever it will
//! grow to, and a few hundred bytes for each version it learns. (The
//! figures of record are in BENCHMARKS.md; these bounds catch a layout
//! that regresses by a multiple.)

// Counted with allocation-counter's per-thread counting global allocator:
// an in-memory knowledge commits on the teacher's thread, so every
// allocation of a lesson is counted. See `descriptor_allocations.rs` for
// why the counter is not hand-written.

use learnables::{Knowledge, Learnable, Lesson};
use learnables_examples::{Chapter, Desk, RoutingRule};

/// A lesson on entry `key`, its note made unique by `i`.
fn lesson(i: usize) -> Lesson {
    let rule = RoutingRule {
        chapter: Chapter::nth(i),
        desk: Desk::General,
        note: Some(format!("note {i}")),
    };
    Lesson::new(
        "routing_rules",
        rule.chapter.to_string(),
        rule.to_lesson_value(),
        "alice@example.com",
    )
}

/// The live heap bytes `run` leaves behind on this thread, with its result.
fn live_bytes<R>(run: impl FnOnce() -> R) -> (i64, R) {
    let mut result = None;
    let info = allocation_counter::measure(|| result = Some(run()));
    (
        info.bytes_current,
        result.expect("measure runs the closure"),
    )
}

#[test]
fn a_knowledge_of_one_lesson_keeps_less_than_half_a_mebibyte() {
    let (bytes, knowledge) = live_bytes(|| {
        let knowledge = Knowledge::in_memory();
        knowledge.register::<RoutingRule>().unwrap();
        assert!(knowledge.teach(&lesson(0)).unwrap().learned);
        knowledge
    });
    assert!(
        (1..512 * 1024).contains(&bytes),
        "a knowledge of one lesson keeps {bytes} bytes"
    );
    assert!(
        knowledge
            .pin()
            .get::<RoutingRule>(&Chapter::nth(0).to_string())
            .is_some()
    );
}

#[test]
fn each_lesson_learned_keeps_a_few_hundred_bytes() {
    let knowledge = Knowledge::in_memory();
    knowledge.register::<RoutingRule>().unwrap();
    assert!(knowledge.teach(&lesson(0)).unwrap().learned);
    let lessons = 20_000;
    let (bytes, ()) = live_bytes(|| {
        for i in 1..=lessons {
            assert!(knowledge.teach(&lesson(i)).unwrap().learned);
        }
    });
    let per_lesson = bytes / lessons as i64;
    assert!(
        (1..1024).contains(&per_lesson),
        "each lesson keeps {per_lesson} bytes ({bytes} for {lessons})"
    );
}
