//! Two example agents on one PostgreSQL database (`--data postgres://...`)
//! share their knowledge: what one is taught, the other answers from, while
//! a task each pinned earlier keeps its version.

use learnables_tests::support::agent as agent_harness;
use learnables_tests::support::postgres as postgres_harness;

use agent_harness::{ACTIVATED, Agent};
use learnables_examples::customs_agent::{DataLocation, POSITION_KEY};

#[test]
fn a_lesson_taught_to_one_agent_is_known_to_the_other() {
    let Some(database) = postgres_harness::fresh_database() else {
        return;
    };
    let one = Agent::start_on(DataLocation::parse(database.url()));
    let two = Agent::start_on(DataLocation::parse(database.url()));
    let pinned_on_two = two.route(85, None, &[ACTIVATED]);
    assert_eq!(
        pinned_on_two["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );

    let taught = one.teach_rule(85, "dangerous-goods");
    assert_eq!(taught.result()["learned"], true);

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let answered = loop {
        let task = two.route(85, None, &[ACTIVATED]);
        if task["status"]["state"] == "TASK_STATE_COMPLETED" {
            break task;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the second agent never learned the lesson"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(
        answered["status"]["message"]["parts"][0]["text"],
        "Chapter 85 declarations go to the dangerous-goods desk."
    );
    assert_eq!(answered["metadata"][POSITION_KEY], "1");
    // The task the second agent pinned before the lesson waits on the
    // question the lesson answered (taught on the first agent, which does
    // not hold the task): its next turn takes the lesson.
    let task = pinned_on_two["id"].as_str().unwrap();
    let followed_up = two.route(85, Some(task), &[ACTIVATED]);
    assert_eq!(followed_up["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(followed_up["metadata"][POSITION_KEY], "1");
    // Taught on the second agent, the same value learns nothing.
    assert_eq!(
        two.teach_rule(85, "dangerous-goods").result()["learned"],
        false
    );
}
