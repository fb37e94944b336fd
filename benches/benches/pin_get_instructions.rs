//! `pin()` + `get` against a `HashMap` get + clone, counted instead of
//! timed: the instructions and the level-1 data cache misses one read
//! costs, as Valgrind's cachegrind simulates them. Unlike a time, these do
//! not move with the machine or its neighbours, so they tell a change to
//! the read path from a change of machine.
//!
//! The bench runs itself under cachegrind four times (each side with no
//! reads and with `READS` reads, over the same 1,024 keys of 100,000
//! entries as the `knowledge` bench) and reports the difference per read.
//! Without `valgrind` on the `PATH` it says so and measures nothing.
//! (`valgrind` is not installed by `.ci/run`: CI runs the bench in test
//! mode, a short round of reads on each side, uncounted.)
//!
//! `cargo bench -p learnables-benches --bench pin_get_instructions`

mod cachegrind;

use std::hint::black_box;

use cachegrind::{Counts, per_operation};

use learnables_examples::RoutingRule;
use learnables_tests::routing_entries;

const ENTRIES: u64 = 100_000;
const READS: u64 = 200_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, side, reads] = args.as_slice()
        && flag == "--child"
    {
        read(side, reads.parse().expect("a number of reads"));
        return;
    }
    if args.iter().any(|arg| arg == "--test") {
        // Criterion's test mode, as CI runs every bench: one short round.
        read("pin", 10);
        read("map", 10);
        return;
    }
    let per_read = |side: &str| -> Option<Counts> {
        per_operation(
            |reads| vec!["--child".into(), side.into(), reads.to_string()],
            READS,
        )
    };
    let (Some(pin), Some(map)) = (per_read("pin"), per_read("map")) else {
        println!(
            "pin_get_instructions: valgrind did not run or printed no counts (is it on the \
             PATH?); nothing measured"
        );
        return;
    };
    println!(
        "per read: pin + get {:.0} instructions, {:.2} L1d misses; HashMap get + clone {:.0} \
         instructions, {:.2} L1d misses; ratios {:.2} and {:.2}",
        pin.instructions,
        pin.l1_data_misses,
        map.instructions,
        map.l1_data_misses,
        pin.instructions / map.instructions,
        pin.l1_data_misses / map.l1_data_misses,
    );
}

/// Builds both sides, reads each key once, then reads `reads` times on
/// `side` ("pin" or "map").
fn read(side: &str, reads: u64) {
    let (records, map) = routing_entries::entries(ENTRIES, |position| format!("v{position}"));
    let knowledge = routing_entries::knowledge_of(&records);
    let keys = routing_entries::keys(ENTRIES);
    // Every typed value cached, as in the timed bench after its warm-up.
    for key in &keys {
        black_box(knowledge.pin().get::<RoutingRule>(key));
    }
    let key = |i: u64| black_box(&keys[(i % keys.len() as u64) as usize]);
    match side {
        "pin" => {
            for i in 0..reads {
                black_box(knowledge.pin().get::<RoutingRule>(key(i)));
            }
        }
        "map" => {
            for i in 0..reads {
                black_box(map.get(key(i)).cloned());
            }
        }
        other => panic!("no side named {other:?}: \"pin\" or \"map\""),
    }
}
