//! The memory that versions cost: knowledge of 100,000 entries holding
//! 10,000 more versions, each pinned by a snapshot still alive, against the
//! same knowledge holding one. Counted in live heap bytes, in the same run.
//!
//! `cargo bench -p learnables --bench knowledge_memory`

use std::sync::Mutex;

use learnables::knowledge::{Storage, StoreError, VersionRecord};
use learnables::{Knowledge, Learnable, Lesson, Snapshot};
use learnables_examples::{Chapter, Desk, RoutingRule};

const ENTRIES: u64 = 100_000;
const VERSIONS: u64 = 10_000;

fn rule(i: u64) -> RoutingRule {
    RoutingRule {
        chapter: Chapter::nth(i as usize),
        desk: [Desk::General, Desk::DangerousGoods, Desk::Perishables][(i % 3) as usize],
        note: Some(format!("note {i}")),
    }
}

fn record(i: u64) -> VersionRecord {
    let rule = rule(i);
    let entry = format!("entry-{i}");
    VersionRecord {
        position: i + 1,
        collection: "routing_rules".into(),
        definition_version: i + 1,
        version_id: format!("{:036}", i + 1),
        previous_version_id: (i > 0).then(|| format!("{i:036}")),
        describes: rule.describes(&entry),
        entry,
        value: rule.to_lesson_value(),
        taught_by: "alice@example.com".into(),
        reason: None,
        taught_at_ms: 0,
    }
}

/// Live heap bytes of what `build` returns.
fn live_bytes<T>(build: impl FnOnce() -> T) -> (i64, T) {
    let mut built = None;
    let info = allocation_counter::measure(|| built = Some(build()));
    (info.bytes_current, built.expect("measure runs the closure"))
}

/// A back end that hands over the seeded records once and keeps nothing,
/// so that only the knowledge's own memory is counted.
struct Seed(Mutex<Vec<VersionRecord>>);

impl Storage for Seed {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        Ok(std::mem::take(&mut *self.0.lock().unwrap()))
    }

    fn append(&self, _: &[VersionRecord]) -> Result<(), StoreError> {
        Ok(())
    }
}

fn seeded() -> Knowledge {
    let records: Vec<VersionRecord> = (0..ENTRIES).map(record).collect();
    let knowledge = Knowledge::with_storage(Seed(Mutex::new(records))).unwrap();
    knowledge.register::<RoutingRule>().unwrap();
    knowledge
}

fn main() {
    let (one, (knowledge, pin)) = live_bytes(|| {
        let knowledge = seeded();
        let pin = knowledge.pin();
        (knowledge, pin)
    });
    drop((knowledge, pin));

    let (many, (knowledge, pins)) = live_bytes(|| {
        let knowledge = seeded();
        let mut pins: Vec<Snapshot> = Vec::with_capacity(VERSIONS as usize);
        for i in 0..VERSIONS {
            // A routing rule's entry is its chapter: the versions change
            // the 97 chapters' entries over and over (each note is new).
            let rule = rule(ENTRIES + i);
            let lesson = Lesson::new(
                "routing_rules",
                rule.chapter.to_string(),
                rule.to_lesson_value(),
                "bob@example.com",
            );
            assert!(knowledge.teach(&lesson).unwrap().learned);
            pins.push(knowledge.pin());
        }
        (knowledge, pins)
    });
    assert_eq!(pins.len() as u64, VERSIONS);
    drop((knowledge, pins));

    // Every entry's own storage (the stored records, their values) is in
    // both; the difference is what the 10,000 versions and pins add.
    println!("knowledge of {ENTRIES} entries, 1 version pinned:      {one:>12} bytes");
    println!("the same plus {VERSIONS} versions, each pinned:     {many:>12} bytes");
    println!("ratio: {:.3}", many as f64 / one as f64);
}
