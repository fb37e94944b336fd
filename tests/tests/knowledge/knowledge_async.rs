//! Every call of `Knowledge` from async code, on both tokio runtime
//! flavours and with every back end: it works (or fails with an error),
//! never panics ("Cannot start a runtime from within a runtime").

use learnables_tests::support::backend_suite;
use learnables_tests::support::postgres as postgres_harness;

use backend_suite::{registered, rule_lesson};
use learnables::Knowledge;
use learnables_examples::{Desk, RoutingRule};

/// A fresh database's URL. The harness itself uses the synchronous client,
/// so it runs on a thread outside the runtime.
fn fresh_database_url() -> Option<String> {
    std::thread::spawn(|| postgres_harness::fresh_database().map(|database| database.into_url()))
        .join()
        .unwrap()
}

/// Each back end this machine offers, opened from inside the runtime.
fn back_ends(dir: &std::path::Path) -> Vec<(&'static str, Knowledge)> {
    let mut knowledges = vec![
        ("in memory", Knowledge::in_memory()),
        ("embedded", Knowledge::open(dir).unwrap()),
    ];
    if let Some(url) = fresh_database_url() {
        knowledges.push(("postgres", Knowledge::connect(&url).unwrap()));
    }
    knowledges
}

/// Every blocking call, then the async ones, from inside a runtime.
async fn every_call_from_async_code() {
    let dir = tempfile::tempdir().unwrap();
    for (name, knowledge) in back_ends(dir.path()) {
        let knowledge = registered(knowledge);
        let first = knowledge.teach(&rule_lesson("84", "general")).unwrap();
        assert_eq!(first.definition_version, 1, "{name}");
        knowledge.catch_up().unwrap();
        let second = knowledge
            .teach_async(rule_lesson("84", "cold chain"))
            .await
            .unwrap();
        assert_eq!(second.previous_version_id, first.version_id, "{name}");
        knowledge.catch_up_async().await.unwrap();
        assert_eq!(
            knowledge.pin().get::<RoutingRule>("84").unwrap().desk,
            Desk::Perishables,
            "{name}"
        );
        let past = knowledge
            .pin_as_of(first.version_id.as_deref().unwrap())
            .unwrap();
        assert_eq!(past.get::<RoutingRule>("84").unwrap().desk, Desk::General);
        assert_eq!(knowledge.history("routing_rules").len(), 2, "{name}");
        // Dropped inside the runtime too.
        drop(knowledge);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn every_call_works_on_a_current_thread_runtime() {
    every_call_from_async_code().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_works_on_a_multi_thread_runtime() {
    every_call_from_async_code().await;
}

#[tokio::test(flavor = "current_thread")]
async fn connecting_from_async_code_works_and_a_bad_database_is_an_error() {
    let Some(url) = fresh_database_url() else {
        return;
    };
    let knowledge = registered(Knowledge::connect_async(&url).await.unwrap());
    knowledge
        .teach_async(rule_lesson("85", "general"))
        .await
        .unwrap();
    let other = registered(Knowledge::connect(&url).unwrap());
    assert_eq!(other.history("routing_rules").len(), 1);
    let refused = Knowledge::connect_async("postgres://agent:s3cret@127.0.0.1:1/k").await;
    let message = refused.unwrap_err().to_string();
    assert!(message.contains("cannot be opened"), "{message}");
    assert!(!message.contains("s3cret"), "{message}");
}

/// A back end whose appends wait while `closed` is set, as a slow disk
/// would.
#[derive(Default)]
struct Gated {
    inner: std::sync::Arc<learnables::knowledge::MemoryStorage>,
    closed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl learnables::knowledge::Storage for Gated {
    fn load(
        &self,
    ) -> Result<Vec<learnables::knowledge::VersionRecord>, learnables::knowledge::StoreError> {
        self.inner.load()
    }

    fn append(
        &self,
        records: &[learnables::knowledge::VersionRecord],
    ) -> Result<(), learnables::knowledge::StoreError> {
        while self.closed.load(std::sync::atomic::Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        self.inner.append(records)
    }
}

/// Knowledge on a [`Gated`] back end whose gate is shut, with
/// `commit_timeout`, and the switch that opens the gate (store `false`).
fn shut_gate(
    commit_timeout: std::time::Duration,
) -> (Knowledge, std::sync::Arc<std::sync::atomic::AtomicBool>) {
    let gated = Gated::default();
    let closed = gated.closed.clone();
    closed.store(true, std::sync::atomic::Ordering::SeqCst);
    let knowledge = registered(Knowledge::with_storage(gated).unwrap());
    knowledge.set_commit_timeout(commit_timeout);
    (knowledge, closed)
}

/// While a lesson waits for a slow back end, the task waits, not the
/// thread: on a one-thread runtime, another task opens the gate the
/// lesson waits behind. Were the thread blocked, the gate would stay shut
/// and the lesson would time out.
#[tokio::test(flavor = "current_thread")]
async fn teach_async_leaves_the_thread_to_other_tasks_while_it_waits() {
    use std::sync::atomic::Ordering;
    let (knowledge, closed) = shut_gate(std::time::Duration::from_secs(30));
    let opener = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        closed.store(false, Ordering::SeqCst);
    });
    let started = std::time::Instant::now();
    let result = knowledge
        .teach_async(rule_lesson("84", "general"))
        .await
        .unwrap();
    assert!(result.learned);
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    opener.await.unwrap();
    assert_eq!(knowledge.history("routing_rules").len(), 1);
}

/// A back end that does not answer: the waiting task is told so within the
/// commit timeout (the lesson in flight: outcome unknown; one still queued
/// behind it: withdrawn, nothing stored), and teaching goes on once the
/// back end answers again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn teach_async_of_a_hanging_back_end_ends_at_the_commit_timeout() {
    use learnables::TeachError;
    use learnables::knowledge::StoreError;
    use std::sync::atomic::Ordering;
    let (knowledge, closed) = shut_gate(std::time::Duration::from_millis(300));
    let in_flight = knowledge.teach_async(rule_lesson("84", "general")).await;
    assert!(
        matches!(
            in_flight,
            Err(TeachError::Store(StoreError::OutcomeUnknown(_)))
        ),
        "{in_flight:?}"
    );
    let queued = knowledge.teach_async(rule_lesson("85", "general")).await;
    assert!(
        matches!(queued, Err(TeachError::Store(StoreError::Failed(_)))),
        "{queued:?}"
    );
    closed.store(false, Ordering::SeqCst);
    knowledge.set_commit_timeout(std::time::Duration::from_secs(30));
    let next = knowledge
        .teach_async(rule_lesson("85", "cold chain"))
        .await
        .unwrap();
    assert!(next.learned);
    // The lesson whose outcome was unknown was stored once the back end
    // answered; the withdrawn one never was.
    let history = knowledge.history("routing_rules");
    assert_eq!(history.len(), 2, "{history:?}");
    assert_eq!(history[0].entry, "84");
}

/// Tasks that stopped waiting leave their lessons to the commit thread:
/// dropping the knowledge waits until the one being written and the one
/// queued behind it are stored, then closes the back end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_knowledge_stores_the_lessons_of_tasks_that_stopped_waiting() {
    use learnables::knowledge::Storage as _;
    use std::sync::atomic::Ordering;
    let gated = Gated::default();
    let (stored, closed) = (gated.inner.clone(), gated.closed.clone());
    closed.store(true, Ordering::SeqCst);
    let knowledge = registered(Knowledge::with_storage(gated).unwrap());
    knowledge.set_commit_timeout(std::time::Duration::from_secs(60));
    for entry in ["84", "85"] {
        // Polled once, the call has queued its lesson and waits; then it
        // is dropped, as a task that stopped waiting drops it.
        let mut teaching = std::pin::pin!(knowledge.teach_async(rule_lesson(entry, "general")));
        let mut context = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(teaching.as_mut().poll(&mut context).is_pending());
    }
    let dropping = std::thread::spawn(move || drop(knowledge));
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert!(!dropping.is_finished(), "the drop waits for the writes");
    closed.store(false, Ordering::SeqCst);
    tokio::task::spawn_blocking(move || dropping.join().unwrap())
        .await
        .unwrap();
    let entries: Vec<String> = stored
        .load()
        .unwrap()
        .into_iter()
        .map(|record| record.entry)
        .collect();
    assert_eq!(entries, ["84", "85"]);
}
