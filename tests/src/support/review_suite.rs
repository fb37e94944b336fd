//! What every knowledge back end must do for review before learning, as
//! functions the back-end suite (`backend_suite!`) calls with a knowledge
//! of its back end: a lesson of a reviewed learnable waits as a proposal,
//! the author never approves it, the last approval makes its version, a
//! stale or rejected proposal teaches nothing, reviewers racing on one
//! proposal decide it once, and reopening a store keeps every proposal.

use std::sync::{Arc, Barrier};

use learnables::knowledge::ProposalStatus;
use learnables::{Decision, Knowledge, Learnable, Lesson, LessonValue, Review, TeachError};
use serde_json::json;

/// A learnable each of whose lessons two teachers other than its author
/// approve.
#[derive(Learnable, Debug, Clone, PartialEq)]
#[learnable(
    collection = "release_limits",
    entry = "port",
    teaches = "The highest value a port releases without a second look",
    how = "A fixed amount per port, set by the compliance team; ports without one hold \
           everything for a second look",
    decided_by = "rules",
    describes = "{entry} releases up to {euros} euros",
    review = 2
)]
pub struct ReleaseLimit {
    /// The amount, in euros.
    #[learnable(label = "Euros")]
    pub euros: u32,
}

/// Knowledge with [`ReleaseLimit`] registered.
pub fn with_limits(knowledge: Knowledge) -> Knowledge {
    knowledge.register::<ReleaseLimit>().unwrap();
    knowledge
}

/// `by`'s lesson that `port` releases up to `euros`.
pub fn limit(port: &str, euros: u32, by: &str) -> Lesson {
    let value = LessonValue::try_from(json!({"euros": euros})).unwrap();
    Lesson::new("release_limits", port, value, by).with_reason(format!("{by} says so"))
}

/// `by`'s decision on `proposal_id` of `port`.
pub fn decision(port: &str, proposal_id: &str, decision: Decision, by: &str) -> Review {
    Review {
        collection: "release_limits".into(),
        entry: port.into(),
        proposal_id: proposal_id.into(),
        decision,
        reviewed_by: by.into(),
        reason: Some(format!("{by} checked it")),
    }
}

/// Proposes `port` at `euros` as alice, returning the proposal's id.
fn propose(knowledge: &Knowledge, port: &str, euros: u32) -> String {
    let result = knowledge
        .teach(&limit(port, euros, "alice@example.com"))
        .unwrap();
    assert!(!result.learned, "{result:?}");
    result.proposal_id.expect("a proposal id")
}

/// The whole path of one proposal: waiting, refused approvals, the last
/// approval making the version its author taught, named with its
/// approvers.
pub fn a_reviewed_lesson_waits_until_two_others_approve(knowledge: &Knowledge) {
    let before = knowledge.pin();
    let result = knowledge
        .teach(&limit("Rotterdam", 10_000, "alice@example.com"))
        .unwrap();
    assert!(!result.learned);
    assert_eq!(result.definition_version, 0);
    assert_eq!(
        result.describes,
        "Waiting for review: Rotterdam releases up to 10000 euros"
    );
    let id = result.proposal_id.unwrap();
    assert_eq!(knowledge.pin().get::<ReleaseLimit>("Rotterdam"), None);
    assert!(knowledge.history("release_limits").is_empty());
    assert_eq!(knowledge.pin().position(), before.position());

    let open = knowledge.open_proposals().unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].proposed_by, "alice@example.com");
    assert_eq!(open[0].reason.as_deref(), Some("alice@example.com says so"));
    assert_eq!(open[0].based_on, None);
    assert_eq!(open[0].approvals_needed, 2);
    let changes = knowledge.proposal_changes(&open[0]).unwrap().unwrap();
    assert_eq!(changes[0].after.as_deref(), Some("10000"));

    let approve = |by: &str| knowledge.review(&decision("Rotterdam", &id, Decision::Approve, by));
    let own = approve("Alice@Example.com ").unwrap_err();
    assert!(matches!(own, TeachError::SelfApproval { .. }), "{own:?}");
    assert_eq!(own.review_reason(), Some("SELF_APPROVAL"));
    let first = approve("bob@example.com").unwrap();
    assert!(!first.learned);
    assert_eq!(
        first.describes,
        "1 more approval needed: Rotterdam releases up to 10000 euros"
    );
    let twice = approve("bob@example.com").unwrap_err();
    assert!(
        matches!(twice, TeachError::AlreadyApproved { .. }),
        "{twice:?}"
    );
    assert_eq!(knowledge.pin().get::<ReleaseLimit>("Rotterdam"), None);

    let learned = approve("carol@example.com").unwrap();
    assert!(learned.learned);
    assert_eq!(learned.definition_version, 1);
    assert_eq!(learned.proposal_id.as_deref(), Some(id.as_str()));
    assert_eq!(
        knowledge.pin().get::<ReleaseLimit>("Rotterdam"),
        Some(ReleaseLimit { euros: 10_000 })
    );
    let history = knowledge.history("release_limits");
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].taught_by, "alice@example.com");
    assert_eq!(
        history[0].reason.as_deref(),
        Some("alice@example.com says so")
    );
    assert_eq!(learned.version_id.as_ref(), Some(&history[0].version_id));
    let decided = knowledge
        .version_proposal(&history[0].version_id)
        .unwrap()
        .unwrap();
    let approvers: Vec<(&str, Option<&str>)> = decided
        .approvals
        .iter()
        .map(|approval| (approval.by.as_str(), approval.reason.as_deref()))
        .collect();
    assert_eq!(
        approvers,
        [
            ("bob@example.com", Some("bob@example.com checked it")),
            ("carol@example.com", Some("carol@example.com checked it")),
        ]
    );
    assert!(knowledge.open_proposals().unwrap().is_empty());
    let again = approve("dave@example.com").unwrap_err();
    assert!(
        matches!(again, TeachError::ProposalClosed { .. }),
        "{again:?}"
    );

    // The same value again learns nothing and proposes nothing.
    let same = knowledge
        .teach(&limit("Rotterdam", 10_000, "bob@example.com"))
        .unwrap();
    assert!(!same.learned);
    assert_eq!(same.proposal_id, None);
    assert_eq!(
        knowledge
            .proposals("release_limits", "Rotterdam")
            .unwrap()
            .len(),
        1
    );
}

/// A proposal whose entry changed since is refused as stale, saying what
/// changed; a rejection needs a reason, learns nothing and closes it;
/// retracting a reviewed entry is a proposal too.
pub fn a_stale_or_rejected_proposal_teaches_nothing(knowledge: &Knowledge) {
    let first = propose(knowledge, "Hamburg", 5_000);
    let second = propose(knowledge, "Hamburg", 7_000);
    for by in ["bob@example.com", "carol@example.com"] {
        knowledge
            .review(&decision("Hamburg", &first, Decision::Approve, by))
            .unwrap();
    }
    let stale = knowledge
        .review(&decision(
            "Hamburg",
            &second,
            Decision::Approve,
            "bob@example.com",
        ))
        .unwrap_err();
    let TeachError::StaleProposal { changed, .. } = &stale else {
        panic!("{stale:?}")
    };
    assert!(changed.contains("version 1"), "{changed}");
    assert!(
        changed.contains("Hamburg releases up to 5000 euros"),
        "{changed}"
    );
    assert_eq!(stale.review_reason(), Some("PROPOSAL_STALE"));
    let proposals = knowledge.proposals("release_limits", "Hamburg").unwrap();
    assert!(matches!(proposals[1].status, ProposalStatus::Stale { .. }));

    let third = propose(knowledge, "Hamburg", 9_000);
    let mut no_reason = decision("Hamburg", &third, Decision::Reject, "bob@example.com");
    no_reason.reason = Some("  ".into());
    assert!(matches!(
        knowledge.review(&no_reason),
        Err(TeachError::NoRejectionReason)
    ));
    let rejected = knowledge
        .review(&decision(
            "Hamburg",
            &third,
            Decision::Reject,
            "bob@example.com",
        ))
        .unwrap();
    assert!(!rejected.learned);
    assert_eq!(rejected.definition_version, 1);
    let closed = knowledge
        .review(&decision(
            "Hamburg",
            &third,
            Decision::Approve,
            "carol@example.com",
        ))
        .unwrap_err();
    assert!(
        matches!(closed, TeachError::ProposalClosed { .. }),
        "{closed:?}"
    );
    let status = &knowledge.proposals("release_limits", "Hamburg").unwrap()[2].status;
    assert_eq!(
        status,
        &ProposalStatus::Rejected {
            by: "bob@example.com".into(),
            reason: Some("bob@example.com checked it".into()),
            at_ms: match status {
                ProposalStatus::Rejected { at_ms, .. } => *at_ms,
                _ => 0,
            },
        }
    );
    assert_eq!(
        knowledge
            .pin()
            .get::<ReleaseLimit>("Hamburg")
            .unwrap()
            .euros,
        5_000
    );
    let unknown = knowledge
        .review(&decision(
            "Hamburg",
            "no-such-proposal",
            Decision::Approve,
            "bob@example.com",
        ))
        .unwrap_err();
    assert!(
        matches!(unknown, TeachError::UnknownProposal { .. }),
        "{unknown:?}"
    );

    let retract = knowledge
        .retract(
            "release_limits",
            "Hamburg",
            "alice@example.com",
            Some("port closed"),
        )
        .unwrap();
    assert!(!retract.learned);
    let id = retract.proposal_id.unwrap();
    assert!(knowledge.pin().get::<ReleaseLimit>("Hamburg").is_some());
    for by in ["bob@example.com", "carol@example.com"] {
        knowledge
            .review(&decision("Hamburg", &id, Decision::Approve, by))
            .unwrap();
    }
    assert_eq!(knowledge.pin().get::<ReleaseLimit>("Hamburg"), None);
    assert_eq!(knowledge.history("release_limits").len(), 2);
}

/// Reviewers racing on one proposal: each approves at once, one of them
/// with a rejection; the proposal is decided exactly once, with two
/// approvals and one version at most, and never learned once rejected.
pub fn reviewers_racing_on_one_proposal_decide_it_once(knowledge: &Knowledge) {
    const REVIEWERS: usize = 6;
    const ROUNDS: usize = 4;
    for round in 0..ROUNDS {
        let port = format!("Antwerp {round}");
        let id = propose(knowledge, &port, 1_000 + round as u32);
        let start = Arc::new(Barrier::new(REVIEWERS));
        let handles: Vec<_> = (0..REVIEWERS)
            .map(|reviewer| {
                let knowledge = knowledge.clone();
                let (port, id, start) = (port.clone(), id.clone(), start.clone());
                std::thread::spawn(move || {
                    let kind = if reviewer == round % REVIEWERS {
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
        let proposal = knowledge
            .proposals("release_limits", &port)
            .unwrap()
            .remove(0);
        let versions = knowledge
            .history("release_limits")
            .iter()
            .filter(|record| record.entry == port)
            .count();
        assert_eq!(learned + rejected, 1, "decided exactly once: {outcomes:?}");
        assert_eq!(
            versions, learned,
            "one version for the one approval that made it"
        );
        match &proposal.status {
            ProposalStatus::Learned { .. } => {
                assert_eq!(proposal.approvals.len(), 2);
                assert_eq!(rejected, 0);
            }
            ProposalStatus::Rejected { .. } => {
                assert!(proposal.approvals.len() < 2);
                assert_eq!(learned, 0);
            }
            other => panic!("still {other:?}"),
        }
        let approvals_ok = outcomes
            .iter()
            .filter(|(kind, outcome)| *kind == Decision::Approve && outcome.is_ok())
            .count();
        assert_eq!(
            approvals_ok,
            proposal.approvals.len(),
            "every approval answered is kept"
        );
    }
}

/// Proposes, approves once and rejects another through one knowledge
/// `open` gives, then checks that a knowledge `open` gives again holds
/// every proposal and approval, and that the next approval still learns.
pub fn assert_proposals_survive_reopening(open: impl Fn() -> Knowledge) {
    let (waiting, rejected) = {
        let knowledge = with_limits(open());
        let waiting = propose(&knowledge, "Genoa", 3_000);
        knowledge
            .review(&decision(
                "Genoa",
                &waiting,
                Decision::Approve,
                "bob@example.com",
            ))
            .unwrap();
        let rejected = propose(&knowledge, "Genoa", 4_000);
        knowledge
            .review(&decision(
                "Genoa",
                &rejected,
                Decision::Reject,
                "bob@example.com",
            ))
            .unwrap();
        (waiting, rejected)
    };
    let knowledge = with_limits(open());
    let proposals = knowledge.proposals("release_limits", "Genoa").unwrap();
    assert_eq!(proposals.len(), 2);
    assert_eq!(proposals[0].proposal_id, waiting);
    assert_eq!(proposals[0].status, ProposalStatus::Open);
    assert_eq!(proposals[0].approvals[0].by, "bob@example.com");
    assert_eq!(proposals[1].proposal_id, rejected);
    assert!(matches!(
        proposals[1].status,
        ProposalStatus::Rejected { .. }
    ));
    let twice = knowledge
        .review(&decision(
            "Genoa",
            &waiting,
            Decision::Approve,
            "bob@example.com",
        ))
        .unwrap_err();
    assert!(
        matches!(twice, TeachError::AlreadyApproved { .. }),
        "{twice:?}"
    );
    let learned = knowledge
        .review(&decision(
            "Genoa",
            &waiting,
            Decision::Approve,
            "carol@example.com",
        ))
        .unwrap();
    assert!(learned.learned);
    drop(knowledge);
    let reopened = with_limits(open());
    assert_eq!(
        reopened.pin().get::<ReleaseLimit>("Genoa").unwrap().euros,
        3_000
    );
    let version = &reopened.history("release_limits")[0];
    let decided = reopened
        .version_proposal(&version.version_id)
        .unwrap()
        .unwrap();
    assert_eq!(decided.proposal_id, waiting);
    assert_eq!(decided.approvals.len(), 2);
}

/// Exports a knowledge with a proposal waiting for its second approval,
/// a rejected one and one learned, imports it into `into` (empty), and
/// checks that they moved: the waiting one still waits, and its next
/// approval learns it there.
pub fn assert_proposals_move_with_an_export(into: Knowledge) {
    let from = with_limits(Knowledge::in_memory());
    let learned = propose(&from, "Bremen", 1_000);
    for by in ["bob@example.com", "carol@example.com"] {
        from.review(&decision("Bremen", &learned, Decision::Approve, by))
            .unwrap();
    }
    let waiting = propose(&from, "Bremen", 2_000);
    from.review(&decision(
        "Bremen",
        &waiting,
        Decision::Approve,
        "bob@example.com",
    ))
    .unwrap();
    let rejected = propose(&from, "Kiel", 3_000);
    from.review(&decision(
        "Kiel",
        &rejected,
        Decision::Reject,
        "bob@example.com",
    ))
    .unwrap();
    let mut file = Vec::new();
    from.export(&mut file).unwrap();
    let text = String::from_utf8(file.clone()).unwrap();
    assert!(
        text.trim_end().ends_with(r#""versions":1,"reviews":7}"#),
        "{text}"
    );

    let into = with_limits(into);
    assert_eq!(into.import(&file[..]).unwrap(), 1);
    let all = |port: &str| into.proposals("release_limits", port).unwrap();
    assert_eq!(
        all("Bremen"),
        from.proposals("release_limits", "Bremen").unwrap()
    );
    assert_eq!(
        all("Kiel"),
        from.proposals("release_limits", "Kiel").unwrap()
    );
    let decided = into
        .review(&decision(
            "Bremen",
            &waiting,
            Decision::Approve,
            "carol@example.com",
        ))
        .unwrap();
    assert!(decided.learned);
    assert_eq!(
        into.pin().get::<ReleaseLimit>("Bremen").unwrap().euros,
        2_000
    );

    // A record edited after the export fails its checksum.
    let edited = text.replacen(
        "bob@example.com checked it",
        "bob@example.com checked iT",
        1,
    );
    let refused = with_limits(Knowledge::in_memory())
        .import(edited.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(refused.contains("fails its checksum"), "{refused}");
}
