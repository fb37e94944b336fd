//! The memory that versions cost: knowledge of 100,000 entries holding
//! 10,000 more versions, each pinned by a snapshot still alive, against the
//! same knowledge holding one. Counted in live heap bytes, in the same run.
//!
//! The counting allocator counts the measuring thread's allocations only,
//! and a lesson taught is stored on the knowledge's commit thread: so the
//! 10,000 versions reach the knowledge as another process's lessons do,
//! read from the back end by `catch_up` on this thread, and each is read
//! once through its pin (which keeps its typed value, as a teach does).
//!
//! In memory (`Knowledge::in_memory`), the back end keeps every version
//! too, as a JSON line beside the knowledge's state: what `MemoryStorage`
//! holding the same versions adds is counted the same way.
//!
//! `cargo bench -p learnables-benches --bench knowledge_memory`

use std::sync::{Arc, Mutex};

use learnables::knowledge::{MemoryStorage, Storage, StoreError, VersionRecord};
use learnables::{Knowledge, Learnable, Snapshot};
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

/// The version at position `i + 1`: a new entry `entry-{i}` for the first
/// `ENTRIES`, then versions of the 97 chapters' entries over and over (each
/// note is new), as `bob` teaches them.
fn record(i: u64) -> VersionRecord {
    let rule = rule(i);
    let (entry, taught_by) = if i < ENTRIES {
        (format!("entry-{i}"), "alice@example.com")
    } else {
        (rule.chapter.to_string(), "bob@example.com")
    };
    VersionRecord {
        position: i + 1,
        collection: "routing_rules".into(),
        definition_version: i + 1,
        version_id: format!("{:036}", i + 1),
        previous_version_id: (i > 0).then(|| format!("{i:036}")),
        describes: rule.describes(&entry),
        entry,
        value: rule.to_lesson_value(),
        taught_by: taught_by.into(),
        reason: None,
        taught_at_ms: 0,
        retracted: false,
    }
}

/// Live heap bytes of what `build` returns.
fn live_bytes<T>(build: impl FnOnce() -> T) -> (i64, T) {
    let mut built = None;
    let info = allocation_counter::measure(|| built = Some(build()));
    (info.bytes_current, built.expect("measure runs the closure"))
}

/// A back end that hands over the records queued in it once and keeps
/// nothing, so that only the knowledge's own memory is counted.
#[derive(Clone, Default)]
struct Seed(Arc<Mutex<Vec<VersionRecord>>>);

impl Storage for Seed {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        Ok(std::mem::take(&mut *self.0.lock().unwrap()))
    }

    fn load_since(&self, _: u64) -> Result<Vec<VersionRecord>, StoreError> {
        self.load()
    }

    fn append(&self, _: &[VersionRecord]) -> Result<(), StoreError> {
        Ok(())
    }
}

fn seeded() -> (Knowledge, Seed) {
    let seed = Seed::default();
    *seed.0.lock().unwrap() = (0..ENTRIES).map(record).collect();
    let knowledge = Knowledge::with_storage(seed.clone()).unwrap();
    knowledge.register::<RoutingRule>().unwrap();
    (knowledge, seed)
}

fn main() {
    let (one, (knowledge, pin)) = live_bytes(|| {
        let (knowledge, _) = seeded();
        let pin = knowledge.pin();
        (knowledge, pin)
    });
    drop((knowledge, pin));

    let (many, (knowledge, pins)) = live_bytes(|| {
        let (knowledge, seed) = seeded();
        let mut pins: Vec<Snapshot> = Vec::with_capacity(VERSIONS as usize);
        for i in ENTRIES..ENTRIES + VERSIONS {
            let next = record(i);
            let entry = next.entry.clone();
            seed.0.lock().unwrap().push(next);
            knowledge.catch_up().unwrap();
            let pin = knowledge.pin();
            assert!(pin.get::<RoutingRule>(&entry).is_some());
            pins.push(pin);
        }
        (knowledge, pins)
    });
    assert_eq!(pins.len() as u64, VERSIONS);
    drop((knowledge, pins));

    let (in_memory, storage) = live_bytes(|| {
        let storage = MemoryStorage::default();
        for i in 0..ENTRIES + VERSIONS {
            storage.append(&[record(i)]).unwrap();
        }
        storage
    });
    drop(storage);

    // Every entry's own storage (the stored records, their values) is in
    // both; the difference is what the 10,000 versions and pins add.
    println!("knowledge of {ENTRIES} entries, 1 version pinned:      {one:>12} bytes");
    println!("the same plus {VERSIONS} versions, each pinned:     {many:>12} bytes");
    println!("ratio: {:.3}", many as f64 / one as f64);
    println!(
        "per entry: {:.0} bytes with 1 version pinned, {:.0} bytes with {VERSIONS} versions \
         pinned; each pinned version adds {:.0} bytes",
        one as f64 / ENTRIES as f64,
        many as f64 / ENTRIES as f64,
        (many - one) as f64 / VERSIONS as f64
    );
    println!(
        "in memory, MemoryStorage holding the same versions adds {:.0} bytes an entry: \
         {:.0} bytes an entry in all",
        in_memory as f64 / ENTRIES as f64,
        (many + in_memory) as f64 / ENTRIES as f64
    );
}
