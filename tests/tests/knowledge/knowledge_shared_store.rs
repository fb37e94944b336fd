//! Two `Knowledge` handles on one back end behave as one knowledge: what
//! either teaches, both see; concurrent teachers on both still make one
//! linear history per collection. The back end here is memory shared by two
//! handles, standing in for a database shared by two replicas.

use learnables_tests::support::backend_suite;

use std::sync::{Arc, Mutex};

use backend_suite::{registered, rule_lesson};
use learnables::Knowledge;
use learnables::knowledge::{MemoryStorage, Storage, StoreError, VersionRecord, Wake};
use learnables_examples::{Desk, RoutingRule};

/// One memory store behind several handles; appends wake every watcher
/// from a thread of their own, as a database's notifications would.
#[derive(Clone, Default)]
struct Shared {
    records: Arc<MemoryStorage>,
    watchers: Arc<Mutex<Vec<Wake>>>,
}

impl Storage for Shared {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.records.load()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        self.records.append(records)?;
        let watchers = self.watchers.lock().unwrap().clone();
        std::thread::spawn(move || watchers.iter().for_each(|wake| wake()));
        Ok(())
    }

    fn watch(&self, wake: Wake) -> Result<(), StoreError> {
        self.watchers.lock().unwrap().push(wake);
        Ok(())
    }
}

/// A back end shared without notifications: catching up happens only on
/// a conflict or an explicit `catch_up`.
#[derive(Clone, Default)]
struct Silent(Arc<MemoryStorage>);

impl Storage for Silent {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.0.load()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        self.0.append(records)
    }
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn a_lesson_taught_to_one_replica_reaches_the_other() {
    let store = Shared::default();
    let one = registered(Knowledge::with_storage(store.clone()).unwrap());
    let two = registered(Knowledge::with_storage(store).unwrap());
    let pinned_on_two = two.pin();
    one.teach(&rule_lesson("84", "cold chain")).unwrap();
    wait_for("the lesson on the second replica", || {
        two.pin().get::<RoutingRule>("84").is_some()
    });
    assert_eq!(
        two.pin().get::<RoutingRule>("84").unwrap().desk,
        Desk::Perishables
    );
    assert_eq!(
        pinned_on_two.get::<RoutingRule>("84"),
        None,
        "a pin never changes"
    );
}

#[test]
fn a_replica_that_wrote_second_catches_up_and_continues_the_history() {
    let store = Silent::default();
    let one = registered(Knowledge::with_storage(store.clone()).unwrap());
    let two = registered(Knowledge::with_storage(store).unwrap());
    let first = one.teach(&rule_lesson("84", "general")).unwrap();
    let second = two.teach(&rule_lesson("85", "general")).unwrap();
    assert_eq!(second.definition_version, 2);
    assert_eq!(second.previous_version_id, first.version_id);
    // `one` has not heard of `two`'s lesson until it catches up.
    assert_eq!(one.pin().get::<RoutingRule>("85"), None);
    one.catch_up().unwrap();
    assert_eq!(one.history("routing_rules"), two.history("routing_rules"));
    // Teaching `two`'s value again on `one` learns nothing.
    assert!(!one.teach(&rule_lesson("85", "general")).unwrap().learned);
}

#[test]
fn concurrent_teachers_on_two_replicas_make_one_linear_history() {
    let store = Silent::default();
    let replicas = [
        registered(Knowledge::with_storage(store.clone()).unwrap()),
        registered(Knowledge::with_storage(store.clone()).unwrap()),
    ];
    std::thread::scope(|scope| {
        for (index, replica) in replicas.iter().enumerate() {
            for thread in 0..4 {
                scope.spawn(move || {
                    for i in 0..30 {
                        let entry = learnables_examples::Chapter::nth(
                            (index * 1000 + thread * 100 + i) % 90,
                        )
                        .to_string();
                        let desk = ["general", "cold chain"][(i + thread) % 2];
                        replica.teach(&rule_lesson(&entry, desk)).unwrap();
                    }
                });
            }
        }
    });
    let reopened = registered(Knowledge::with_storage(store).unwrap());
    let history = reopened.history("routing_rules");
    for pair in history.windows(2) {
        assert_eq!(pair[1].definition_version, pair[0].definition_version + 1);
        assert_eq!(
            pair[1].previous_version_id.as_ref(),
            Some(&pair[0].version_id)
        );
    }
    for replica in &replicas {
        replica.catch_up().unwrap();
        assert_eq!(replica.history("routing_rules"), history);
    }
}
