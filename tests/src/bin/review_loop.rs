//! The child process of the review crash test (`tests/knowledge/review_crash.rs`):
//! proposes lessons of a reviewed learnable into the embedded store in
//! `DIR` and decides them, printing a line on its standard output for each
//! step once the knowledge has acknowledged it:
//!
//! - `proposed ID PORT` once a lesson is kept as a proposal;
//! - `approved ID` once a first approval is kept;
//! - `learned ID VERSION_ID` once the last approval made the version;
//! - `rejected ID` once a rejection is kept.
//!
//! `review_loop DIR ROUND`: ports are named after `ROUND`, so that the
//! rounds of one test never share an entry.

use learnables::{Decision, Knowledge};
use learnables_tests::support::review_suite::{decision, limit, with_limits};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(round)) = (args.next(), args.next()) else {
        eprintln!("usage: review_loop DIR ROUND");
        std::process::exit(2);
    };
    let knowledge = with_limits(Knowledge::open(&dir).unwrap_or_else(|error| {
        eprintln!("the store does not open: {error}");
        std::process::exit(1);
    }));
    // Bounded: the test kills it long before.
    for step in 0..100_000u32 {
        let port = format!("R{round}-{step}");
        let id = knowledge
            .teach(&limit(&port, step + 1, "alice@example.com"))
            .unwrap()
            .proposal_id
            .unwrap();
        println!("proposed {id} {port}");
        if step % 3 == 2 {
            knowledge
                .review(&decision(&port, &id, Decision::Reject, "bob@example.com"))
                .unwrap();
            println!("rejected {id}");
            continue;
        }
        knowledge
            .review(&decision(&port, &id, Decision::Approve, "bob@example.com"))
            .unwrap();
        println!("approved {id}");
        let learned = knowledge
            .review(&decision(
                &port,
                &id,
                Decision::Approve,
                "carol@example.com",
            ))
            .unwrap();
        println!("learned {id} {}", learned.version_id.unwrap());
    }
}
