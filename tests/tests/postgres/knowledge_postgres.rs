//! The back-end suite on PostgreSQL, plus what only a store shared by
//! replicas must do: replicas see each other's lessons promptly and make
//! one linear history between them, the database itself refuses a broken
//! history, migrations run safely from many replicas at once, and a lost
//! connection never leaves a lesson half-written.
//!
//! Uses `DATABASE_URL`, or starts a throwaway server (see
//! `postgres_harness`); without either, each test fails, unless
//! `LEARNABLES_ALLOW_SKIP=postgres` is set: then it prints `SKIPPED:` and
//! passes.

use learnables_tests::backend_suite;
use learnables_tests::support::backend_suite;
use learnables_tests::support::postgres as postgres_harness;

use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use backend_suite::assert_linear;
use learnables::knowledge::{PostgresStorage, Storage, StoreError};
use postgres_harness::fresh_database;

/// Knowledge on a database of its own; on a machine without PostgreSQL,
/// where `LEARNABLES_ALLOW_SKIP=postgres` allows it (a `SKIPPED:` line was
/// printed), in memory, so the suite still passes.
fn knowledge_on_a_fresh_database() -> Knowledge {
    match fresh_database() {
        Some(database) => Knowledge::connect(&database.into_url()).unwrap(),
        None => Knowledge::in_memory(),
    }
}

backend_suite!(knowledge_on_a_fresh_database);

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn reconnecting_restores_every_version_with_the_same_ids() {
    let Some(database) = fresh_database() else {
        return;
    };
    backend_suite::assert_reopening_restores_every_version(|| {
        Knowledge::connect(database.url()).unwrap()
    });
}

#[test]
fn reopening_keeps_every_proposal_approval_and_rejection() {
    let Some(database) = fresh_database() else {
        return;
    };
    learnables_tests::support::review_suite::assert_proposals_survive_reopening(|| {
        Knowledge::connect(database.url()).unwrap()
    });
}

/// Reviewers on two replicas (each its own connection, neither waiting
/// for the other's turn) race on each proposal: the records' numbers
/// alone keep each proposal decided once, with one version at most.
#[test]
fn reviewers_on_two_replicas_racing_on_one_proposal_decide_it_once() {
    use learnables::knowledge::ProposalStatus;
    use learnables::{Decision, TeachError};
    use learnables_tests::support::review_suite::{decision, limit, with_limits};
    let Some(database) = fresh_database() else {
        return;
    };
    let replicas = [
        with_limits(Knowledge::connect(database.url()).unwrap()),
        with_limits(Knowledge::connect(database.url()).unwrap()),
    ];
    const REVIEWERS: usize = 6;
    for round in 0..4 {
        let port = format!("Le Havre {round}");
        let proposed = replicas[round % 2]
            .teach(&limit(&port, 2_000 + round as u32, "alice@example.com"))
            .unwrap();
        let id = proposed.proposal_id.unwrap();
        let start = Arc::new(Barrier::new(REVIEWERS));
        let handles: Vec<_> = (0..REVIEWERS)
            .map(|reviewer| {
                let knowledge = replicas[reviewer % 2].clone();
                let (port, id, start) = (port.clone(), id.clone(), start.clone());
                std::thread::spawn(move || {
                    let kind = if reviewer == round {
                        Decision::Reject
                    } else {
                        Decision::Approve
                    };
                    let by = format!("reviewer{reviewer}@example.com");
                    start.wait();
                    (kind, knowledge.review(&decision(&port, &id, kind, &by)))
                })
            })
            .collect();
        let outcomes: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        for (_, outcome) in &outcomes {
            if let Err(error) = outcome {
                assert!(
                    matches!(error, TeachError::ProposalClosed { .. }),
                    "only a closed proposal is refused: {error:?}"
                );
            }
        }
        let learned = outcomes
            .iter()
            .filter(|(_, outcome)| matches!(outcome, Ok(result) if result.learned))
            .count();
        let rejected = outcomes
            .iter()
            .filter(|(kind, outcome)| *kind == Decision::Reject && outcome.is_ok())
            .count();
        assert_eq!(learned + rejected, 1, "decided exactly once: {outcomes:?}");
        for replica in &replicas {
            replica.catch_up().unwrap();
            let versions = replica
                .history("release_limits")
                .iter()
                .filter(|record| record.entry == port)
                .count();
            assert_eq!(versions, learned);
            let proposal = replica
                .proposals("release_limits", &port)
                .unwrap()
                .remove(0);
            let expected_learned = matches!(proposal.status, ProposalStatus::Learned { .. });
            assert_eq!(expected_learned, learned == 1, "{:?}", proposal.status);
        }
    }
}

#[test]
fn a_lesson_taught_to_one_replica_reaches_the_other_and_pins_never_change() {
    let Some(database) = fresh_database() else {
        return;
    };
    let one = registered(Knowledge::connect(database.url()).unwrap());
    let two = registered(Knowledge::connect(database.url()).unwrap());
    let pinned_on_one = one.pin();
    let pinned_on_two = two.pin();

    let first = one.teach(&rule_lesson("84", "cold chain")).unwrap();
    // No catch_up: the notification brings it.
    wait_for("the lesson on the second replica", || {
        two.pin().get::<RoutingRule>("84").is_some()
    });
    assert_eq!(
        two.pin().get::<RoutingRule>("84").unwrap().desk,
        Desk::Perishables
    );
    let pinned_after_first = two.pin();

    let second = two.teach(&rule_lesson("84", "general")).unwrap();
    assert_eq!(second.definition_version, 2);
    assert_eq!(second.previous_version_id, first.version_id);
    wait_for("the answer on the first replica", || {
        one.pin().get::<RoutingRule>("84").map(|rule| rule.desk) == Some(Desk::General)
    });

    assert_eq!(pinned_on_one.get::<RoutingRule>("84"), None);
    assert_eq!(pinned_on_two.get::<RoutingRule>("84"), None);
    assert_eq!(
        pinned_after_first.get::<RoutingRule>("84").unwrap().desk,
        Desk::Perishables,
        "a pin never changes"
    );
    assert_eq!(one.history("routing_rules"), two.history("routing_rules"));
    // The same value again learns nothing, whichever replica hears it.
    assert!(!one.teach(&rule_lesson("84", "general")).unwrap().learned);
}

#[test]
fn eight_replicas_teaching_at_once_refuse_nothing_and_make_one_linear_history() {
    const REPLICAS: usize = 8;
    const LESSONS: usize = 25;
    let Some(database) = fresh_database() else {
        return;
    };
    let replicas: Vec<Knowledge> = (0..REPLICAS)
        .map(|_| registered(Knowledge::connect(database.url()).unwrap()))
        .collect();
    let start = Barrier::new(REPLICAS);
    let outcomes: Vec<(String, Result<learnables::LessonResult, TeachError>)> =
        std::thread::scope(|scope| {
            let handles: Vec<_> = replicas
                .iter()
                .enumerate()
                .map(|(index, replica)| {
                    let start = &start;
                    scope.spawn(move || {
                        start.wait();
                        (0..LESSONS)
                            .map(|i| {
                                let tag = format!("{index}-{i}");
                                // Replicas share entries, so they also
                                // decide on each other's values.
                                let entry = learnables_examples::Chapter::nth((index * 7 + i) % 40)
                                    .to_string();
                                let desk =
                                    ["general", "cold chain", "dangerous-goods"][(index + i) % 3];
                                let lesson = rule_lesson(&entry, desk).with_reason(&tag);
                                (tag, replica.teach(&lesson))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|handle| handle.join().unwrap())
                .collect()
        });

    let mut learned = BTreeSet::new();
    for (tag, outcome) in &outcomes {
        match outcome {
            Ok(result) if result.learned => {
                learned.insert((tag.clone(), result.version_id.clone().unwrap()));
            }
            Ok(_) => {}
            Err(error) => panic!("lesson {tag} was refused: {error}"),
        }
    }
    assert_eq!(outcomes.len(), REPLICAS * LESSONS);
    let history = registered(Knowledge::connect(database.url()).unwrap()).history("routing_rules");
    backend_suite::assert_stored_exactly(&history, &learned);
    for replica in &replicas {
        replica.catch_up().unwrap();
        assert_eq!(replica.history("routing_rules"), history);
    }
}

#[test]
fn the_database_itself_refuses_a_broken_history() {
    let Some(database) = fresh_database() else {
        return;
    };
    let knowledge = registered(Knowledge::connect(database.url()).unwrap());
    knowledge.teach(&rule_lesson("84", "general")).unwrap();
    knowledge.teach(&rule_lesson("85", "general")).unwrap();
    let history = knowledge.history("routing_rules");

    // A replica that has not heard of version 2 writes its own version 2.
    let storage = PostgresStorage::connect(database.url()).unwrap();
    let mut stale = history[1].clone();
    stale.version_id = "another-replicas-version".into();
    assert_eq!(
        storage.append(std::slice::from_ref(&stale)),
        Err(StoreError::Conflict {
            expected: 2,
            found: 2
        })
    );
    // A group must start right after the last stored version.
    let mut gap = history[1].clone();
    gap.position = 5;
    gap.version_id = "from-the-future".into();
    assert_eq!(
        storage.append(&[gap]),
        Err(StoreError::Conflict {
            expected: 5,
            found: 2
        })
    );
    assert_eq!(storage.load().unwrap(), history, "nothing was stored");

    // Written by hand, around the back end: the constraints refuse it.
    let mut client = database.client();
    for (what, sql) in [
        (
            "a second version 2",
            "INSERT INTO learnables_versions SELECT 3, collection, definition_version, 'x', \
             NULL, entry, taught_by, taught_at, record FROM learnables_versions WHERE position = 2",
        ),
        (
            "a version id used twice",
            "INSERT INTO learnables_versions SELECT 3, collection, 3, version_id, \
             previous_version_id, entry, taught_by, taught_at, record \
             FROM learnables_versions WHERE position = 2",
        ),
        (
            "a version replacing one already replaced",
            "INSERT INTO learnables_versions SELECT 3, collection, 3, 'y', \
             previous_version_id, entry, taught_by, taught_at, record \
             FROM learnables_versions WHERE position = 2",
        ),
        (
            "a version replacing one that does not exist",
            "INSERT INTO learnables_versions SELECT 3, collection, 3, 'z', \
             'no-such-version', entry, taught_by, taught_at, record \
             FROM learnables_versions WHERE position = 2",
        ),
    ] {
        let error = client.batch_execute(sql).expect_err(what);
        assert!(
            error
                .code()
                .is_some_and(|code| code.code().starts_with("23")),
            "{what}: {error:?}"
        );
    }
    assert_eq!(storage.load().unwrap(), history);
}

#[test]
fn catching_up_reads_only_the_tail() {
    let Some(database) = fresh_database() else {
        return;
    };
    let knowledge = registered(Knowledge::connect(database.url()).unwrap());
    for entry in ["84", "85", "86", "87"] {
        knowledge.teach(&rule_lesson(entry, "general")).unwrap();
    }
    let storage = PostgresStorage::connect(database.url()).unwrap();
    let tail = storage.load_since(2).unwrap();
    let positions: Vec<u64> = tail.iter().map(|record| record.position).collect();
    assert_eq!(positions, [3, 4]);
    assert_eq!(tail, knowledge.history("routing_rules")[2..]);
    assert!(storage.load_since(4).unwrap().is_empty());
    let mut client = database.client();
    client
        .batch_execute("SET enable_seqscan = off; ANALYZE learnables_versions")
        .unwrap();
    let plan: Vec<String> = client
        .query(
            "EXPLAIN SELECT position, collection, definition_version, version_id, record::text \
             FROM learnables_versions WHERE position > 2 ORDER BY position",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert!(
        plan.iter().any(|line| line.contains("Index Scan")),
        "{plan:#?}"
    );
}

#[test]
fn migrations_run_concurrently_from_several_connections() {
    const REPLICAS: usize = 8;
    let Some(database) = fresh_database() else {
        return;
    };
    let barrier = Arc::new(Barrier::new(REPLICAS));
    let url = database.url().to_owned();
    let handles: Vec<_> = (0..REPLICAS)
        .map(|_| {
            let barrier = Arc::clone(&barrier);
            let url = url.clone();
            std::thread::spawn(move || {
                barrier.wait();
                PostgresStorage::connect(&url).map(|_| ())
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap().unwrap();
    }
    let mut client = database.client();
    let versions: Vec<i32> = client
        .query(
            "SELECT version FROM learnables_schema ORDER BY version",
            &[],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    let expected: Vec<i32> = (1..=PostgresStorage::SCHEMA_VERSION as i32).collect();
    assert_eq!(versions, expected, "each migration applied exactly once");
    // Connecting again changes nothing.
    PostgresStorage::connect(&url).unwrap();
    let count: i64 = client
        .query_one("SELECT count(*) FROM learnables_schema", &[])
        .unwrap()
        .get(0);
    assert_eq!(count, expected.len() as i64);

    // A database a newer release migrated is refused, not misread.
    client
        .batch_execute("INSERT INTO learnables_schema (version) VALUES (99)")
        .unwrap();
    let error = PostgresStorage::connect(&url).unwrap_err().to_string();
    assert!(
        error.contains("schema version 99, newer than this release knows"),
        "{error}"
    );
}

#[test]
fn errors_name_the_database_and_never_the_password() {
    let Some(database) = fresh_database() else {
        return;
    };
    let server = postgres_harness::server().unwrap();
    // Add a password to the URL (trust authentication ignores it).
    let with_password = database.url().replacen('@', ":hunter2@", 1);
    if server.throwaway {
        Knowledge::connect(&with_password).unwrap();
    }
    let missing = with_password.replace(database.name(), "no_such_database");
    let error = Knowledge::connect(&missing).unwrap_err().to_string();
    assert!(!error.contains("hunter2"), "{error}");
    assert!(
        error.starts_with("the knowledge store at postgresql://")
            && error.contains("no_such_database"),
        "{error}"
    );
}

#[test]
fn a_dropped_connection_is_retried_or_refused_never_half_written() {
    let Some(database) = fresh_database() else {
        return;
    };
    let knowledge = registered(Knowledge::connect(database.url()).unwrap());
    let observer = registered(Knowledge::connect(database.url()).unwrap());
    knowledge.teach(&rule_lesson("1", "general")).unwrap();
    let mut learned = vec![];
    for round in 0..10 {
        let ended = database.terminate_other_sessions();
        assert!(ended >= 1, "the knowledge's connection was ended");
        let lesson =
            rule_lesson(&(round + 2).to_string(), "cold chain").with_reason(round.to_string());
        match knowledge.teach(&lesson) {
            Ok(result) => learned.push(result.version_id.unwrap()),
            Err(error) => {
                let message = error.to_string();
                assert!(
                    message.starts_with("the lesson was not absorbed: the knowledge store failed:"),
                    "{message}"
                );
                // The next one goes through on a new connection.
                learned.push(knowledge.teach(&lesson).unwrap().version_id.unwrap());
            }
        }
    }
    let history = knowledge.history("routing_rules");
    assert_linear(&history);
    assert_eq!(history.len(), 11);
    let ids: Vec<String> = history[1..]
        .iter()
        .map(|record| record.version_id.clone())
        .collect();
    assert_eq!(ids, learned);
    assert_eq!(
        PostgresStorage::connect(database.url())
            .unwrap()
            .load()
            .unwrap(),
        history
    );
    // The listeners reconnected: lessons still reach the other replica.
    wait_for("the observer to catch up after reconnecting", || {
        observer.history("routing_rules") == history
    });
    let last = observer.teach(&rule_lesson("96", "general")).unwrap();
    wait_for("the lesson on the first replica", || {
        knowledge
            .pin()
            .version("routing_rules")
            .map(|v| v.version_id)
            == last.version_id
    });
}

#[test]
fn sessions_killed_while_teachers_write_leave_one_linear_history() {
    const THREADS: usize = 4;
    const LESSONS: usize = 30;
    let Some(database) = fresh_database() else {
        return;
    };
    let knowledge = registered(Knowledge::connect(database.url()).unwrap());
    let done = std::sync::atomic::AtomicBool::new(false);
    let (outcomes, kills) = std::thread::scope(|scope| {
        let killer = scope.spawn(|| {
            let mut kills = 0;
            while !done.load(std::sync::atomic::Ordering::Acquire) {
                kills += database.terminate_other_sessions();
                std::thread::sleep(Duration::from_millis(7));
            }
            kills
        });
        let teachers: Vec<_> = (0..THREADS)
            .map(|thread| {
                let knowledge = &knowledge;
                scope.spawn(move || {
                    (0..LESSONS)
                        .map(|i| {
                            let tag = format!("{thread}-{i}");
                            // 120 lessons over 96 chapters: the last thread's
                            // share chapters with the first's, with another desk,
                            // so that every lesson still changes its entry.
                            let desk = if thread == THREADS - 1 {
                                "cold chain"
                            } else {
                                "general"
                            };
                            let lesson = rule_lesson(
                                &learnables_examples::Chapter::nth(thread * LESSONS + i)
                                    .to_string(),
                                desk,
                            )
                            .with_reason(&tag);
                            (tag, knowledge.teach(&lesson))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let outcomes: Vec<_> = teachers
            .into_iter()
            .flat_map(|handle| handle.join().unwrap())
            .collect();
        done.store(true, std::sync::atomic::Ordering::Release);
        (outcomes, killer.join().unwrap())
    });
    assert!(kills > 0);
    let mut learned = BTreeSet::new();
    let mut unknown = BTreeSet::new();
    for (tag, outcome) in outcomes {
        match outcome {
            Ok(result) => {
                assert!(result.learned);
                learned.insert(tag);
            }
            Err(TeachError::Store(StoreError::OutcomeUnknown(message))) => {
                // Only a commit whose outcome could not be checked may have
                // been stored after all, and it says so.
                assert!(message.contains("could not be checked"), "{message}");
                unknown.insert(tag);
            }
            Err(TeachError::Store(StoreError::Failed(message))) => {
                assert!(message.ends_with("nothing was stored"), "{message}");
            }
            Err(error) => panic!("lesson {tag}: {error}"),
        }
    }
    let history = PostgresStorage::connect(database.url())
        .unwrap()
        .load()
        .unwrap();
    assert_linear(&history);
    let stored: BTreeSet<String> = history
        .iter()
        .map(|record| record.reason.clone().unwrap())
        .collect();
    assert!(
        learned.is_subset(&stored),
        "every lesson acknowledged was stored"
    );
    let extra: BTreeSet<_> = stored.difference(&learned).cloned().collect();
    assert!(
        extra.is_subset(&unknown),
        "lessons refused were stored: {extra:?}"
    );
    knowledge.catch_up().unwrap();
    assert_eq!(knowledge.history("routing_rules"), history);
}

#[test]
fn dropping_the_knowledge_ends_its_listener_and_sessions_even_mid_wake() {
    let Some(database) = fresh_database() else {
        return;
    };
    let teacher = registered(Knowledge::connect(database.url()).unwrap());
    let sessions = || -> i64 {
        database
            .client()
            .query_one(
                "SELECT count(*) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
                &[],
            )
            .unwrap()
            .get(0)
    };
    let before = sessions();
    for round in 0..20 {
        let listener = registered(Knowledge::connect(database.url()).unwrap());
        teacher
            .teach(&rule_lesson(&(round + 1).to_string(), "general"))
            .unwrap();
        // Often dropped while its listener is waking it: the listener
        // thread then drops the last handle itself, and must not wait for
        // itself to end.
        if round % 2 == 0 {
            std::thread::sleep(Duration::from_millis(round));
        }
        drop(listener);
    }
    // Each listener holds a session until its thread ends.
    wait_for(
        "the dropped knowledges' sessions and listeners to end",
        || sessions() == before,
    );
}

#[test]
fn tls_required_of_a_server_without_it_is_refused_clearly() {
    let Some(database) = fresh_database() else {
        return;
    };
    let url = format!("{}?sslmode=require", database.url());
    let message = Knowledge::connect(&url).unwrap_err().to_string();
    assert!(message.contains("cannot be opened"), "{message}");
    assert!(message.contains("server does not support TLS"), "{message}");
    // `prefer`, the default, falls back to plain text.
    Knowledge::connect(&format!("{}?sslmode=prefer", database.url())).unwrap();
}
