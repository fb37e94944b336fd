//! Moving house: a knowledge exported as JSON Lines and imported into an
//! empty store of another back end keeps every version, id and show-back
//! (embedded → PostgreSQL → embedded), and a file that is not whole, was
//! edited or does not follow on is refused with its line number, storing
//! nothing.
//!
//! PostgreSQL: `DATABASE_URL`, or a throwaway server (see
//! `postgres_harness`); without either the round trip fails, unless
//! `LEARNABLES_ALLOW_SKIP=postgres` is set.

use learnables_tests::support::backend_suite;
use learnables_tests::support::postgres as postgres_harness;

use backend_suite::{registered, rule_lesson};
use learnables::Knowledge;
use learnables::knowledge::{ImportError, VersionRecord};
use learnables_examples::RoutingRule;

/// A knowledge with history worth moving: several entries, reasons,
/// a revert and a retraction.
fn taught(knowledge: &Knowledge) {
    for (entry, desk) in [
        ("84", "general"),
        ("85", "cold chain"),
        ("84", "dangerous-goods"),
        ("86", "general"),
    ] {
        let lesson = rule_lesson(entry, desk).with_reason(format!("{entry} to {desk}"));
        knowledge.teach(&lesson).unwrap();
    }
    let first = knowledge.history("routing_rules")[0].version_id.clone();
    knowledge
        .revert(
            "routing_rules",
            "84",
            &first,
            "bob@example.com",
            Some("undo \"quotes\" ü"),
        )
        .unwrap();
    knowledge
        .retract("routing_rules", "86", "bob@example.com", None)
        .unwrap();
    backend_suite::teach_approved(
        knowledge,
        &backend_suite::lesson(
            "clearance_limits",
            "b1",
            serde_json::json!({"amountEur": "10"}),
        ),
    );
}

fn export(knowledge: &Knowledge) -> Vec<u8> {
    let mut file = Vec::new();
    knowledge.export(&mut file).unwrap();
    file
}

/// Everything a reader sees of a knowledge: every collection's history,
/// each entry's typed history and show-back record.
fn seen(knowledge: &Knowledge) -> (Vec<VersionRecord>, Vec<VersionRecord>, Vec<String>) {
    let pin = knowledge.pin();
    let histories = ["84", "85", "86"]
        .iter()
        .map(|entry| format!("{:?}", pin.entry_history::<RoutingRule>(entry)))
        .chain(["84", "85", "86"].iter().map(|entry| {
            format!(
                "{:?} {:?}",
                pin.entry_record("routing_rules", entry),
                pin.retraction("routing_rules", entry)
            )
        }))
        .collect();
    (
        knowledge.history("routing_rules"),
        knowledge.history("clearance_limits"),
        histories,
    )
}

#[test]
fn embedded_to_postgres_to_embedded_keeps_every_version() {
    let Some(database) = postgres_harness::fresh_database() else {
        return;
    };
    let first_dir = tempfile::tempdir().unwrap();
    let embedded = registered(Knowledge::open(first_dir.path()).unwrap());
    taught(&embedded);
    let original = seen(&embedded);
    assert_eq!(original.0.len(), 6);
    assert_eq!(original.1.len(), 1);
    let file = export(&embedded);
    drop(embedded);

    let on_postgres = registered(Knowledge::connect(database.url()).unwrap());
    assert_eq!(on_postgres.import(&file[..]).unwrap(), file_versions(&file));
    assert_eq!(seen(&on_postgres), original);
    let again = export(&on_postgres);
    assert_eq!(again, file, "the same export, byte for byte");
    drop(on_postgres);
    // Reconnected, PostgreSQL holds it all.
    let reconnected = registered(Knowledge::connect(database.url()).unwrap());
    assert_eq!(seen(&reconnected), original);

    let back_dir = tempfile::tempdir().unwrap();
    let back = registered(Knowledge::open(back_dir.path()).unwrap());
    back.import(&again[..]).unwrap();
    drop(back);
    let back = registered(Knowledge::open(back_dir.path()).unwrap());
    assert_eq!(seen(&back), original, "after reopening the embedded store");
    assert_eq!(export(&back), file);
    // The knowledge carries on from where it was.
    let next = back.teach(&rule_lesson("87", "general")).unwrap();
    assert_eq!(next.definition_version, original.0.len() as u64 + 1);
    assert_eq!(
        next.previous_version_id.as_deref(),
        Some(original.0.last().unwrap().version_id.as_str())
    );
}

fn file_versions(file: &[u8]) -> u64 {
    file.split(|byte| *byte == b'\n')
        .filter(|line| line.starts_with(b"{\"crc32\":"))
        .count() as u64
}

/// The line and reason `file` is refused with, and that the knowledge it
/// was imported into stayed empty.
fn refusal(file: &[u8]) -> (u64, String) {
    let dir = tempfile::tempdir().unwrap();
    let knowledge = registered(Knowledge::open(dir.path()).unwrap());
    let error = knowledge.import(file).unwrap_err();
    assert_eq!(knowledge.pin().position(), 0, "nothing imported");
    drop(knowledge);
    assert_eq!(
        Knowledge::open(dir.path()).unwrap().pin().position(),
        0,
        "nothing stored"
    );
    match error {
        ImportError::Refused { line, reason } => (line, reason),
        other => panic!("{other:?}"),
    }
}

fn exported() -> Vec<u8> {
    let knowledge = registered(Knowledge::in_memory());
    taught(&knowledge);
    export(&knowledge)
}

fn lines(file: &[u8]) -> Vec<Vec<u8>> {
    file.split_inclusive(|byte| *byte == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

#[test]
fn a_file_cut_short_is_refused_at_the_line_where_it_ends() {
    let file = exported();
    let all = lines(&file);
    // The header, 7 versions, the clearance limit's proposal and its
    // approval, the last line.
    assert_eq!(all.len(), 2 + 7 + 2);
    // Without its last line.
    let without_end: Vec<u8> = all[..all.len() - 1].concat();
    let (line, reason) = refusal(&without_end);
    assert_eq!(line, all.len() as u64);
    assert!(reason.contains("without its last line"), "{reason}");
    // Cut in the middle of the fourth line.
    let cut = all[..3].concat().len() + 20;
    let (line, reason) = refusal(&file[..cut]);
    assert_eq!(line, 4);
    assert!(reason.contains("cut short"), "{reason}");
    // Cut right after a version's line end.
    let (line, _) = refusal(&all[..5].concat());
    assert_eq!(line, 6);
    // Empty.
    assert_eq!(refusal(b"").0, 1);
}

#[test]
fn an_edited_line_is_refused_with_its_number() {
    let file = exported();
    let mut all = lines(&file);
    let text = String::from_utf8(all[2].clone()).unwrap();
    assert!(text.contains("cold chain"), "{text}");
    all[2] = text.replace("cold chain", "general").into_bytes();
    let (line, reason) = refusal(&all.concat());
    assert_eq!(line, 3);
    assert!(reason.contains("fails its checksum"), "{reason}");
    // A count that does not match in the last line.
    let mut all = lines(&file);
    let last = all.len() - 1;
    // (The clearance limit's proposal and approval are counted as they were.)
    all[last] = b"{\"end\":\"learnables-knowledge\",\"versions\":99,\"reviews\":2}\n".to_vec();
    let (line, reason) = refusal(&all.concat());
    assert_eq!(line, last as u64 + 1);
    assert!(reason.contains("99"), "{reason}");
    // Lines after the last.
    let mut longer = file.clone();
    longer.extend_from_slice(&lines(&file)[2]);
    assert_eq!(refusal(&longer).0, all.len() as u64 + 1);
}

#[test]
fn versions_out_of_order_are_refused_at_the_first_that_does_not_follow_on() {
    let file = exported();
    let mut all = lines(&file);
    all.swap(2, 3);
    let (line, reason) = refusal(&all.concat());
    assert_eq!(line, 3);
    assert!(reason.contains("does not follow on"), "{reason}");
    // A version left out.
    let mut all = lines(&file);
    all.remove(4);
    let last = all.len() - 1;
    all[last] = format!(
        "{{\"end\":\"learnables-knowledge\",\"versions\":{}}}\n",
        last - 1
    )
    .into_bytes();
    assert_eq!(refusal(&all.concat()).0, 5);
}

#[test]
fn another_format_or_version_is_refused_at_line_one() {
    let file = exported();
    let body: Vec<u8> = lines(&file)[1..].concat();
    for header in [
        &b"{\"format\":\"learnables-knowledge\",\"version\":2}\n"[..],
        b"{\"format\":\"something else\",\"version\":1}\n",
        b"position,collection\n",
    ] {
        let (line, reason) = refusal(&[header, &body].concat());
        assert_eq!(line, 1, "{reason}");
    }
}

#[test]
fn a_knowledge_that_is_not_empty_takes_no_import() {
    let file = exported();
    let knowledge = registered(Knowledge::in_memory());
    knowledge.teach(&rule_lesson("84", "general")).unwrap();
    let error = knowledge.import(&file[..]).unwrap_err();
    assert!(
        matches!(error, ImportError::NotEmpty { versions: 1 }),
        "{error:?}"
    );
    assert_eq!(knowledge.history("routing_rules").len(), 1);
    // An empty in-memory knowledge takes it, and gives the same export.
    let moved = registered(Knowledge::in_memory());
    moved.import(&file[..]).unwrap();
    assert_eq!(export(&moved), file);
}

#[test]
fn proposals_approvals_and_rejections_move_with_an_export() {
    learnables_tests::support::review_suite::assert_proposals_move_with_an_export(
        Knowledge::in_memory(),
    );
    let dir = tempfile::tempdir().unwrap();
    learnables_tests::support::review_suite::assert_proposals_move_with_an_export(
        Knowledge::open(dir.path()).unwrap(),
    );
}
