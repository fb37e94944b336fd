//! Every call of `Knowledge` from async code, on both tokio runtime
//! flavours and with every back end: it works (or fails with an error),
//! never panics ("Cannot start a runtime from within a runtime").

mod backend_suite;
mod postgres_harness;

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
