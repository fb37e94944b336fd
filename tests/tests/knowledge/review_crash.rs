//! Kills a process proposing and reviewing lessons in the embedded store
//! with SIGKILL at random moments, 12 times; after each kill the reopened
//! store must hold every proposal, approval, rejection and version that
//! was acknowledged, each proposal decided at most once.
//!
//! The kill times come from the clock's nanoseconds, printed; set
//! `LEARNABLES_CRASH_SEED` to replay them.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt as _;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use learnables::Knowledge;
use learnables::knowledge::ProposalStatus;
use learnables_tests::support::review_suite::with_limits;

const KILLS: u64 = 12;

/// What the test knows each proposal reached before its child died.
#[derive(Default, Debug)]
struct Acknowledged {
    port: String,
    approved: bool,
    learned: Option<String>,
    rejected: bool,
}

#[test]
fn every_acknowledged_proposal_and_decision_survives_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::env::var("LEARNABLES_CRASH_SEED")
        .ok()
        .and_then(|seed| seed.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    println!("seed {seed}");
    let mut acknowledged: HashMap<String, Acknowledged> = HashMap::new();
    for round in 0..KILLS {
        let mut child = Command::new(env!("CARGO_BIN_EXE_review_loop"))
            .arg(dir.path())
            .arg(round.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
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
        let first = received
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("round {round}: the child acknowledged nothing"));
        let mut said = vec![first];
        let wait = (seed.rotate_left(round as u32 * 5) % 150) + 10;
        let deadline = Instant::now() + Duration::from_millis(wait);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match received.recv_timeout(left) {
                Ok(line) => said.push(line),
                Err(_) => break,
            }
        }
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "round {round}: {status}");
        reader.join().unwrap();
        said.extend(received.try_iter());
        for line in said {
            let parts: Vec<&str> = line.split_whitespace().collect();
            let one = acknowledged.entry(parts[1].to_owned()).or_default();
            match parts[0] {
                "proposed" => one.port = parts[2].to_owned(),
                "approved" => one.approved = true,
                "learned" => one.learned = Some(parts[2].to_owned()),
                "rejected" => one.rejected = true,
                other => panic!("round {round}: the child said {other}"),
            }
        }

        let knowledge =
            with_limits(Knowledge::open(dir.path()).unwrap_or_else(|error| {
                panic!("round {round}: the store does not reopen: {error}")
            }));
        let history = knowledge.history("release_limits");
        let mut made: HashMap<&str, usize> = HashMap::new();
        for record in &history {
            *made.entry(record.entry.as_str()).or_default() += 1;
        }
        assert!(
            made.values().all(|count| *count == 1),
            "round {round}: a proposal learned twice"
        );
        let mut every = knowledge.open_proposals().unwrap();
        for port in acknowledged.values().map(|known| known.port.clone()) {
            every.extend(knowledge.proposals("release_limits", &port).unwrap());
        }
        let proposals: HashMap<String, learnables::knowledge::Proposal> = every
            .into_iter()
            .map(|proposal| (proposal.proposal_id.clone(), proposal))
            .collect();
        for (id, known) in &acknowledged {
            let proposal = proposals
                .get(id)
                .unwrap_or_else(|| panic!("round {round}: proposal {id} was lost"));
            assert_eq!(proposal.entry, known.port);
            if known.approved {
                assert_eq!(
                    proposal.approvals.first().map(|a| a.by.as_str()),
                    Some("bob@example.com")
                );
            }
            if let Some(version_id) = &known.learned {
                assert_eq!(
                    proposal.status,
                    ProposalStatus::Learned {
                        version_id: version_id.clone()
                    },
                    "round {round}: learned {id} lost"
                );
            }
            if known.rejected {
                assert!(
                    matches!(proposal.status, ProposalStatus::Rejected { .. }),
                    "round {round}"
                );
            }
        }
    }
    assert!(acknowledged.len() as u64 >= KILLS);
}
