//! Kills a process teaching into the embedded store with SIGKILL at random
//! moments, 24 times; after each kill the reopened store must hold every
//! lesson that was acknowledged, with an intact version chain.
//!
//! The kill times come from a seed, printed when the test fails; set
//! `LEARNABLES_CRASH_SEED` to it to replay the same kill times. (The page
//! cache survives these kills, so this test cannot see a missing sync:
//! `durability.rs` does.)

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt as _;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use learnables::Knowledge;
use learnables_examples::RoutingRule;

const KILLS: usize = 24;

/// What the child said on its standard error, to explain a death.
fn child_stderr(child: &mut std::process::Child) -> Vec<u8> {
    let mut text = Vec::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = std::io::Read::read_to_end(&mut stderr, &mut text);
    }
    text
}

/// A small xorshift generator: random kill times without a dependency.
struct Random(u64);

impl Random {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// The seed of the kill times: `LEARNABLES_CRASH_SEED`, or the clock.
fn seed() -> u64 {
    match std::env::var("LEARNABLES_CRASH_SEED") {
        Ok(seed) => seed
            .trim()
            .parse::<u64>()
            .unwrap_or_else(|error| panic!("LEARNABLES_CRASH_SEED={seed}: {error}")),
        Err(_) => SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    }
}

/// Prints the seed if the test fails (panics) while this is alive.
struct ReplayHint(u64);

impl Drop for ReplayHint {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "the crash test failed with seed {0}; replay it with \
                 LEARNABLES_CRASH_SEED={0} cargo test -p learnables-tests --test knowledge_crash",
                self.0
            );
        }
    }
}

#[test]
fn every_acknowledged_lesson_survives_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let seed = seed();
    let _hint = ReplayHint(seed);
    println!("seed {seed}");
    // xorshift needs a state other than zero.
    let mut random = Random(seed | 1);
    let mut acknowledged: HashMap<String, u64> = HashMap::new();
    for round in 0..KILLS {
        let mut child = Command::new(env!("CARGO_BIN_EXE_teach_loop"))
            .arg(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (lines, received) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        // Wait for the first acknowledgement, so every round kills a
        // process that is writing, then kill it a random while later.
        let first = received
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("round {round}: the child acknowledged nothing"));
        let mut round_acks = vec![first];
        let deadline = Instant::now() + Duration::from_millis(random.below(200));
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match received.recv_timeout(left) {
                Ok(line) => round_acks.push(line),
                Err(_) => break,
            }
        }
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert_eq!(
            status.signal(),
            Some(9),
            "round {round}: the child must have died of SIGKILL, not {status} ({})",
            String::from_utf8_lossy(&child_stderr(&mut child))
        );
        reader.join().unwrap();
        round_acks.extend(received.try_iter());
        for line in round_acks {
            let mut parts = line.split_whitespace();
            assert_eq!(parts.next(), Some("ack"), "{line}");
            let version: u64 = parts.next().unwrap().parse().unwrap();
            let id = parts.next().unwrap().to_owned();
            acknowledged.insert(id, version);
        }

        let knowledge = Knowledge::open(dir.path())
            .unwrap_or_else(|error| panic!("round {round}: the store does not reopen: {error}"));
        knowledge.register::<RoutingRule>().unwrap();
        let history = knowledge.history("routing_rules");
        for (index, record) in history.iter().enumerate() {
            assert_eq!(record.definition_version, index as u64 + 1, "round {round}");
            let previous = index.checked_sub(1).map(|i| history[i].version_id.clone());
            assert_eq!(
                record.previous_version_id, previous,
                "round {round}: chain broken"
            );
        }
        let stored: HashMap<&str, u64> = history
            .iter()
            .map(|record| (record.version_id.as_str(), record.definition_version))
            .collect();
        for (id, version) in &acknowledged {
            assert_eq!(
                stored.get(id.as_str()),
                Some(version),
                "round {round}: acknowledged version {version} ({id}) was lost"
            );
        }
    }
    assert!(
        acknowledged.len() >= KILLS,
        "every round acknowledged lessons"
    );
}
