//! A refused lesson leaves no trace in the embedded store: after each
//! refusal (a bad value, an unknown field or collection, no entry or
//! teacher, a failing back end, and over HTTP an unauthenticated,
//! unactivated or forged request) the store holds exactly the versions it
//! held before, record for record, its file is byte for byte the same, the
//! histories and pins are unchanged, and reopened it holds the same.
//! (The store failing under a real fault is `store_faults.rs`.)

use learnables_tests::support::agent as agent_harness;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use agent_harness::{ACTIVATED, AS_ALICE, Agent};
use learnables::a2a::json_rpc::codes;
use learnables::knowledge::{LogStorage, Storage, StoreError, VersionRecord};
use learnables::{Knowledge, Lesson, LessonValue, TeachError};
use learnables_examples::customs_agent::register;
use serde_json::{Value, json};

/// The embedded store, whose writes are refused (before reaching the file)
/// while `failing` is set, as a failing back end refuses them.
struct Switchable {
    inner: Arc<LogStorage>,
    failing: Arc<AtomicBool>,
}

impl Storage for Switchable {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.inner.load()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError::Failed("the disk is gone".into()));
        }
        self.inner.append(records)
    }
}

fn lesson(collection: &str, entry: &str, value: Value, taught_by: &str) -> Lesson {
    Lesson::new(
        collection,
        entry,
        LessonValue::try_from(value).expect("an object"),
        taught_by,
    )
}

fn rule(entry: &str, value: Value) -> Lesson {
    lesson("routing_rules", entry, value, "alice@example.com")
}

/// Everything a refusal could have changed, as seen while the store is open.
#[derive(Debug, PartialEq)]
struct Seen {
    records: Vec<VersionRecord>,
    file: Vec<u8>,
    position: u64,
    histories: Vec<Vec<VersionRecord>>,
}

fn seen(knowledge: &Knowledge, storage: &LogStorage, dir: &Path) -> Seen {
    Seen {
        records: storage.load().expect("the store reads"),
        file: std::fs::read(dir.join("knowledge.log")).expect("the store file reads"),
        position: knowledge.pin().position(),
        histories: ["routing_rules", "clearance_limits"]
            .into_iter()
            .map(|collection| knowledge.history(collection))
            .collect(),
    }
}

#[test]
fn every_refusal_leaves_the_store_exactly_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("knowledge");
    let inner = Arc::new(LogStorage::open(&store).unwrap());
    let failing = Arc::new(AtomicBool::new(false));
    let knowledge = Knowledge::with_storage(Switchable {
        inner: inner.clone(),
        failing: failing.clone(),
    })
    .unwrap();
    register(&knowledge).unwrap();
    for (entry, desk) in [
        ("84", "general"),
        ("85", "cold chain"),
        ("84", "dangerous-goods"),
    ] {
        let result = knowledge
            .teach(&rule(entry, json!({"chapter": entry, "desk": desk})))
            .unwrap();
        assert!(result.learned);
    }
    let before = seen(&knowledge, &inner, &store);
    assert_eq!(before.records.len(), 3);

    let refusals: Vec<(&str, Lesson)> = vec![
        (
            "a value of the wrong type",
            rule("86", json!({"chapter": "eighty-six"})),
        ),
        (
            "a choice outside the choices",
            rule("86", json!({"chapter": "86", "desk": "the moon"})),
        ),
        (
            "an unknown field",
            rule("86", json!({"chapter": "86", "colour": "red"})),
        ),
        (
            "an unknown collection",
            lesson("tariffs", "86", json!({"rate": 3}), "alice@example.com"),
        ),
        ("no entry", rule("", json!({"chapter": "86"}))),
        (
            "no teacher",
            lesson("routing_rules", "86", json!({"chapter": "86"}), " "),
        ),
    ];
    for (what, refused) in &refusals {
        let error = knowledge
            .teach(refused)
            .expect_err(&format!("{what} is refused"));
        assert!(
            !matches!(error, TeachError::Store(_)),
            "{what}: refused before the store, not by it: {error}"
        );
        assert_eq!(
            seen(&knowledge, &inner, &store),
            before,
            "{what} left a trace"
        );
    }

    // The back end refuses: the lesson was valid, and is still nowhere.
    failing.store(true, Ordering::SeqCst);
    let valid = rule("85", json!({"chapter": "85", "desk": "general"}));
    let error = knowledge.teach(&valid).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the lesson was not absorbed: the knowledge store failed: the disk is gone"
    );
    assert_eq!(
        seen(&knowledge, &inner, &store),
        before,
        "a failed write left a trace"
    );

    // The failure gone, the next lesson follows on from the last stored
    // version, as if the refused one had never been.
    failing.store(false, Ordering::SeqCst);
    let next = knowledge.teach(&valid).unwrap();
    assert_eq!(next.definition_version, 4);
    assert_eq!(
        next.previous_version_id.as_ref(),
        Some(&before.records[2].version_id)
    );
    let after = inner.load().unwrap();
    assert_eq!(after[..3], before.records[..]);
    assert_eq!(after.len(), 4);

    // Reopened, the store holds exactly that.
    drop(knowledge);
    drop(inner);
    let reopened = LogStorage::open(&store).unwrap().load().unwrap();
    assert_eq!(reopened, after);
}

#[test]
fn refused_requests_leave_the_agents_store_exactly_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let agent = Agent::start(&data);
    assert!(agent.teach_rule(84, "general").result()["learned"] == json!(true));
    assert!(agent.teach_rule(85, "cold chain").result()["learned"] == json!(true));
    agent.stop();
    let stored = || LogStorage::open(&data).unwrap().load().unwrap();
    let before = stored();
    assert_eq!(before.len(), 2);

    let agent = Agent::start(&data);
    let file = || std::fs::read(data.join("knowledge.log")).unwrap();
    let bytes = file();
    let teach = |value: Value, taught_by: &str| {
        json!({
            "collection": "routing_rules", "entry": "86",
            "value": value, "taughtBy": taught_by
        })
    };
    let valid = teach(
        json!({"chapter": "86", "desk": "general"}),
        "alice@example.com",
    );
    let method = "rsaxb.learnables.Teach";
    let refusals = [
        (
            "unauthenticated",
            agent.call_with(method, valid.clone(), &[ACTIVATED]),
            codes::UNAUTHENTICATED,
        ),
        (
            "a wrong token",
            agent.call_with(
                method,
                valid.clone(),
                &[ACTIVATED, ("Authorization", "Bearer guess")],
            ),
            codes::UNAUTHENTICATED,
        ),
        (
            "not activated",
            agent.call_with(method, valid.clone(), &[AS_ALICE]),
            codes::EXTENSION_NOT_ACTIVATED,
        ),
        (
            "a forged teacher",
            agent.call(method, teach(json!({"chapter": "86"}), "bob@example.com")),
            codes::FORBIDDEN,
        ),
        (
            "a bad value",
            agent.call(method, teach(json!({"chapter": "x"}), "alice@example.com")),
            codes::INVALID_PARAMS,
        ),
        (
            "an unknown collection",
            agent.call(
                method,
                json!({"collection": "tariffs", "entry": "86", "value": {},
                       "taughtBy": "alice@example.com"}),
            ),
            codes::INVALID_PARAMS,
        ),
    ];
    for (what, reply, code) in &refusals {
        assert_eq!(reply.code(), *code, "{what}: {:?}", reply.body);
        assert_eq!(file(), bytes, "{what} changed the store file");
    }
    agent.stop();
    assert_eq!(stored(), before, "the refusals left a trace");
}
