//! Service accounts may not teach: over HTTP on 127.0.0.1, teachers whose
//! identity names a service account (after NFKC and case folding, digits
//! read as the letters they stand in for) are refused `-31041` by the
//! example agent's default policy, while people whose names only look
//! alike teach.

use learnables_tests::support::agent as agent_harness;

use agent_harness::{ACTIVATED, Agent};
use learnables::Knowledge;
use learnables::a2a::json_rpc::codes;
use learnables_examples::customs_agent::{self, Teacher};
use serde_json::json;

const SERVICE_ACCOUNTS: &[&str] = &[
    "deploybot@example.com",
    "donotreply@example.com",
    "ci-b0t@example.com",
    "ｂｏｔ.nightly@example.com",
    "github-actions@example.com",
    "bot@example.com",
    "svc-billing@example.com",
    "jenkins@example.com",
    "no-reply@example.com",
    // Spelled out: the word is the local part run together.
    "b.o.t@example.com",
    "s.v.c@example.com",
];

const PEOPLE: &[&str] = &[
    "abbot@example.com",
    "cibele@example.com",
    "roberta.botha@example.com",
    "mary.jenkins@example.com",
    "talbot@example.com",
];

fn token(index: usize) -> String {
    format!("token-{index}")
}

#[test]
fn service_accounts_are_refused_and_people_with_lookalike_names_teach() {
    let teachers: Vec<Teacher> = SERVICE_ACCOUNTS
        .iter()
        .chain(PEOPLE)
        .enumerate()
        .map(|(index, email)| Teacher {
            email: (*email).to_owned(),
            token: token(index),
        })
        .collect();
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    let agent = Agent::start_router({
        let teachers = teachers.clone();
        move |base_url| customs_agent::router(knowledge, &teachers, base_url).unwrap()
    });
    for (index, teacher) in teachers.iter().enumerate() {
        let bearer = format!("Bearer {}", token(index));
        let lesson = json!({
            "collection": "clearance_limits",
            "entry": format!("broker-{index}"),
            "value": {"amountEur": "9000"},
            "taughtBy": teacher.email,
        });
        let reply = agent.call_with(
            "rsaxb.learnables.Teach",
            lesson,
            &[ACTIVATED, ("Authorization", &bearer)],
        );
        if SERVICE_ACCOUNTS.contains(&teacher.email.as_str()) {
            assert_eq!(
                reply.code(),
                codes::FORBIDDEN,
                "{}: {}",
                teacher.email,
                reply.body
            );
            assert!(
                reply.message().contains("looks like a service account"),
                "{}: {}",
                teacher.email,
                reply.message()
            );
        } else {
            // Taken: clearance limits are reviewed, so as a proposal.
            assert!(
                reply.result()["proposalId"].is_string(),
                "{}: {}",
                teacher.email,
                reply.body
            );
        }
    }
}
