//! PostgreSQL restarted while teachers teach: every acknowledged lesson is
//! kept, every refusal says what failed, nothing half-written is visible,
//! and the same knowledge teaches again once the server is back. (On a
//! server of its own: restarting it would disturb the other tests.)

use learnables_tests::support::backend_suite;
use learnables_tests::support::postgres as postgres_harness;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use backend_suite::{registered, rule_lesson};
use learnables::knowledge::StoreError;
use learnables::{Knowledge, TeachError};

#[test]
fn a_restart_under_load_loses_nothing_acknowledged() {
    // A server of its own: the restart would disturb the other tests.
    let Some(server) = postgres_harness::own_server() else {
        return;
    };
    let database = postgres_harness::fresh_database_on(server);
    let knowledge = registered(Knowledge::connect(database.url()).unwrap());
    let stop = AtomicBool::new(false);
    let (acknowledged, refusals) = std::thread::scope(|scope| {
        let teachers: Vec<_> = (0..4)
            .map(|teacher| {
                let knowledge = &knowledge;
                let stop = &stop;
                scope.spawn(move || {
                    let mut acknowledged = Vec::new();
                    let mut refusals = Vec::new();
                    let mut i = 0usize;
                    while !stop.load(Ordering::Relaxed) {
                        i += 1;
                        let entry = learnables_examples::Chapter::nth((teacher * 1000 + i) % 96)
                            .to_string();
                        let desk = ["general", "cold chain", "dangerous-goods"][i % 3];
                        let tag = format!("{teacher}-{i}");
                        let lesson = rule_lesson(&entry, desk).with_reason(&tag);
                        match knowledge.teach(&lesson) {
                            Ok(result) if result.learned => {
                                acknowledged.push(result.version_id.unwrap());
                            }
                            Ok(_) => {}
                            Err(error) => {
                                refusals.push((tag, error));
                                std::thread::sleep(Duration::from_millis(20));
                            }
                        }
                    }
                    (acknowledged, refusals)
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let restarted = server.restart();
        std::thread::sleep(Duration::from_millis(700));
        stop.store(true, Ordering::Relaxed);
        let mut acknowledged = Vec::new();
        let mut refusals = Vec::new();
        for teacher in teachers {
            let (acked, refused) = teacher.join().unwrap();
            acknowledged.extend(acked);
            refusals.extend(refused);
        }
        if !restarted {
            learnables_tests::skip::cannot_run(
                "a_restart_under_load_loses_nothing_acknowledged",
                "postgres-restart",
                "the server given by DATABASE_URL is not restarted by the tests",
            );
        }
        (acknowledged, refusals)
    });
    assert!(
        !acknowledged.is_empty(),
        "lessons were taught around the restart"
    );
    // A lesson whose commit outcome is unknown says so; every other
    // refusal stored nothing (checked against the database below).
    let mut not_absorbed = std::collections::HashSet::new();
    for (tag, refusal) in &refusals {
        let message = refusal.to_string();
        match refusal {
            TeachError::Store(StoreError::OutcomeUnknown(_)) => {
                assert!(
                    message.starts_with("the lesson may have been absorbed"),
                    "{message}"
                );
            }
            TeachError::Store(_) => {
                assert!(
                    message.starts_with("the lesson was not absorbed:"),
                    "{message}"
                );
                not_absorbed.insert(tag.clone());
            }
            other => panic!("lesson {tag}: {other}"),
        }
        assert!(!message.contains("password"), "{message}");
    }

    // The same knowledge teaches again once the server is back.
    let mut after = None;
    for _ in 0..100 {
        match knowledge.teach(&rule_lesson("96", "cold chain")) {
            Ok(result) => {
                after = Some(result);
                break;
            }
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    assert!(
        after.is_some(),
        "the knowledge teaches again after the restart"
    );

    // A fresh look at the database: every acknowledged lesson, one linear history.
    let fresh = registered(Knowledge::connect(database.url()).unwrap());
    let history = fresh.history("routing_rules");
    for pair in history.windows(2) {
        assert_eq!(pair[1].definition_version, pair[0].definition_version + 1);
        assert_eq!(
            pair[1].previous_version_id.as_ref(),
            Some(&pair[0].version_id)
        );
    }
    let stored: std::collections::HashSet<&str> = history
        .iter()
        .map(|record| record.version_id.as_str())
        .collect();
    for record in &history {
        assert!(
            !record
                .reason
                .as_ref()
                .is_some_and(|tag| not_absorbed.contains(tag)),
            "a lesson reported as not absorbed was stored: {record:?}"
        );
    }
    for id in &acknowledged {
        assert!(
            stored.contains(id.as_str()),
            "acknowledged version {id} was lost"
        );
    }
    println!(
        "{} lessons acknowledged, {} refused around the restart",
        acknowledged.len(),
        refusals.len()
    );
}
