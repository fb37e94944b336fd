//! The four eyes of review cannot be fooled by a look-alike name: an
//! approval by a name a person could not tell from the author's (a
//! Cyrillic `а`, a full-width `ａ`, a dotless `ı`, a trailing dot, another
//! letter case) is the author's own, and a second approval by such a name
//! is the first approver's again. The knowledge compares them so whatever
//! the authenticator in front of it.

use learnables_tests::support::review_suite::{decision, limit, with_limits};

use learnables::{Decision, Knowledge, TeachError};

#[test]
fn the_authors_look_alike_cannot_approve_nor_an_approvers_approve_again() {
    for look_alike in [
        "\u{430}lice@example.com",
        "\u{ff41}lice@example.com",
        "al\u{131}ce@example.com",
        "alice@example.com.",
        "ALICE@example.com",
    ] {
        let knowledge = with_limits(Knowledge::in_memory());
        let proposal = knowledge
            .teach(&limit("Bremen", 1_000, "alice@example.com"))
            .unwrap()
            .proposal_id
            .unwrap();
        let own = knowledge
            .review(&decision(
                "Bremen",
                &proposal,
                Decision::Approve,
                look_alike,
            ))
            .unwrap_err();
        assert!(
            matches!(own, TeachError::SelfApproval { .. }),
            "{look_alike:?}: {own}"
        );
        knowledge
            .review(&decision(
                "Bremen",
                &proposal,
                Decision::Approve,
                "bob@example.com",
            ))
            .unwrap();
        let again = knowledge
            .review(&decision(
                "Bremen",
                &proposal,
                Decision::Approve,
                "b\u{43e}b@example.com",
            ))
            .unwrap_err();
        assert!(
            matches!(again, TeachError::AlreadyApproved { .. }),
            "{look_alike:?}: {again}"
        );
        assert_eq!(knowledge.pin().position(), 0, "nothing learned");
    }
}
