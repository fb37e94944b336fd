//! Routing rules for the benches, one per entry: as lessons taught by
//! concurrent teachers, as the version records a back end is loaded with,
//! and as a `HashMap` of the same rules, the baseline of `pin()` + `get`.
//! Shared by the knowledge benches and the PostgreSQL bench.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use learnables::knowledge::{MemoryStorage, Storage, VersionRecord};
use learnables::{Knowledge, Learnable, Lesson};
use learnables_examples::{Chapter, Desk, RoutingRule};

/// The `i`th rule.
pub fn rule(i: u64) -> RoutingRule {
    RoutingRule {
        chapter: Chapter::nth(i as usize),
        desk: [Desk::General, Desk::DangerousGoods, Desk::Perishables][(i % 3) as usize],
        note: Some(format!("note {i}")),
    }
}

/// A lesson that always changes its entry: the counter makes every value new.
pub fn lesson(counter: &AtomicU64) -> Lesson {
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

/// `teachers` threads teaching `iters` lessons in all into `knowledge`,
/// each lesson a new value; how long it took.
pub fn teach_concurrently(
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

/// `count` versions of `routing_rules`, one per entry `entry-{i}`, the
/// version at `position` named `version_id(position)`; and the same rules
/// by entry in a `HashMap`.
pub fn entries(
    count: u64,
    version_id: impl Fn(u64) -> String,
) -> (Vec<VersionRecord>, HashMap<String, RoutingRule>) {
    let mut map = HashMap::with_capacity(count as usize);
    let records = (0..count)
        .map(|i| {
            let rule = rule(i);
            let entry = format!("entry-{i}");
            let record = VersionRecord {
                position: i + 1,
                collection: "routing_rules".into(),
                definition_version: i + 1,
                version_id: version_id(i + 1),
                previous_version_id: (i > 0).then(|| version_id(i)),
                value: rule.to_lesson_value(),
                taught_by: "alice@example.com".into(),
                reason: None,
                describes: rule.describes(&entry),
                entry: entry.clone(),
                taught_at_ms: 0,
                retracted: false,
            };
            map.insert(entry, rule);
            record
        })
        .collect();
    (records, map)
}

/// In-memory knowledge loaded with `records` (as from a back end), with
/// `RoutingRule` registered.
pub fn knowledge_of(records: &[VersionRecord]) -> Knowledge {
    let storage = MemoryStorage::default();
    storage.append(records).expect("consecutive versions");
    let knowledge = Knowledge::with_storage(storage).expect("a store that loads");
    knowledge
        .register::<RoutingRule>()
        .expect("a valid learnable");
    knowledge
}

/// 1024 keys spread over `count` entries.
pub fn keys(count: u64) -> Vec<String> {
    (0..1024)
        .map(|i| format!("entry-{}", i * 97 % count))
        .collect()
}
