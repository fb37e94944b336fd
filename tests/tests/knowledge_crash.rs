//! Kills a process teaching into the embedded store with SIGKILL at random
//! moments, 24 times; after each kill the reopened store must hold every
//! lesson that was acknowledged, with an intact version chain.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use learnables::Knowledge;
use learnables_examples::RoutingRule;

const KILLS: usize = 24;

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

#[test]
fn every_acknowledged_lesson_survives_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("seed {seed}");
    let mut random = Random(seed);
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
        assert!(
            !status.success(),
            "round {round}: the child must have been killed"
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
