//! A list field and a range check through the command: the desk plan
//! agent's `desks` (a `Vec<Desk>`, `--set` repeated) and `limit_eur` (at
//! least 100, at most 1,000,000), taught, refused out of range by label
//! with nothing learned, and shown back.

use crate::common;

use common::{ALICE_TOKEN, Agent, run, show};

fn teach(agent: &Agent, sets: &[&str]) -> common::Run {
    let extra: Vec<&str> = sets.iter().flat_map(|set| ["--set", set]).collect();
    common::teach_as_alice(agent, "desk_plans", "85", &extra)
}

#[test]
fn a_list_of_desks_and_a_checked_limit_are_taught_and_an_out_of_range_limit_is_refused() {
    let agent = Agent::start_desk_plans();
    let card = run(&["card", &agent.url]).ok();
    assert!(
        card.contains("Desks the chapter may go to"),
        "the card names the list by its label:\n{card}"
    );

    let refused = teach(
        &agent,
        &["desks=general", "desks=cold chain", "limit_eur=2000000"],
    );
    let words = refused.failed();
    assert!(
        words.contains("Limit in euros: at most 1,000,000"),
        "the refusal names the field by its label and its limit:\n{words}"
    );
    let nothing = run(&[
        "show",
        &agent.url,
        "--collection",
        "desk_plans",
        "--entry",
        "85",
        "--token",
        ALICE_TOKEN,
    ]);
    assert_ne!(
        nothing.code, 0,
        "nothing was learned from the refused lesson"
    );

    let taught = teach(
        &agent,
        &["desks=general", "desks=cold chain", "limit_eur=5000"],
    )
    .ok();
    assert!(
        taught.contains("Chapter 85 may go to the general and cold chain desks, up to EUR 5000"),
        "the lesson is said back in words:\n{taught}"
    );
    let shown = show(&agent, "desk_plans", "85");
    for expected in ["general", "cold chain", "5000"] {
        assert!(shown.contains(expected), "show has {expected:?}:\n{shown}");
    }
}
