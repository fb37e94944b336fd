//! An import is teach and review: a hand-written export of a reviewed
//! learnable, its checksums computed again, brings in no version nobody
//! approved, no approval by a proposal's own author, no look-alike second
//! approver, no proposal a lesson could not have made, and none of the
//! file's own words (`describes`, the approvals needed, the version an
//! approval makes); the line at fault is named and nothing is stored.

use learnables_tests::support::review_suite::{ReleaseLimit, decision, limit, with_limits};

use learnables::knowledge::ImportError;
use learnables::{Decision, Knowledge};
use serde_json::{Map, Value, json};

/// An export of `release_limits` (two approvals each): Bremen learned
/// (approved by bob and carol), Kiel waiting with one approval (bob's).
fn exported() -> Vec<u8> {
    let knowledge = with_limits(Knowledge::in_memory());
    let bremen = knowledge
        .teach(&limit("Bremen", 1_000, "alice@example.com"))
        .unwrap()
        .proposal_id
        .unwrap();
    for by in ["bob@example.com", "carol@example.com"] {
        knowledge
            .review(&decision("Bremen", &bremen, Decision::Approve, by))
            .unwrap();
    }
    let kiel = knowledge
        .teach(&limit("Kiel", 2_000, "alice@example.com"))
        .unwrap()
        .proposal_id
        .unwrap();
    knowledge
        .review(&decision(
            "Kiel",
            &kiel,
            Decision::Approve,
            "bob@example.com",
        ))
        .unwrap();
    let mut file = Vec::new();
    knowledge.export(&mut file).unwrap();
    file
}

/// One line of an export, read: which kind, and its JSON without its
/// checksum.
struct Line {
    checksum_key: Option<&'static str>,
    json: Map<String, Value>,
}

fn lines(file: &[u8]) -> Vec<Line> {
    file.split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            let mut json: Map<String, Value> = serde_json::from_slice(line).unwrap();
            let checksum_key = ["crc32", "reviewCrc32"]
                .into_iter()
                .find(|key| json.remove(*key).is_some());
            Line { checksum_key, json }
        })
        .collect()
}

/// The lines written back as an export, each checksum computed again (as
/// anyone can) and the last line's counts made to agree.
fn written(mut lines: Vec<Line>) -> Vec<u8> {
    let versions = lines
        .iter()
        .filter(|line| line.checksum_key == Some("crc32"))
        .count();
    let reviews = lines
        .iter()
        .filter(|line| line.checksum_key == Some("reviewCrc32"))
        .count();
    let end = lines.last_mut().unwrap();
    end.json.insert("versions".into(), json!(versions));
    end.json.insert("reviews".into(), json!(reviews));
    let mut out = Vec::new();
    for line in lines {
        let body = serde_json::to_string(&line.json).unwrap();
        match line.checksum_key {
            Some(key) => {
                let body = body.strip_prefix('{').unwrap();
                let checksum = crc32fast::hash(body.as_bytes());
                out.extend(format!("{{\"{key}\":{checksum},{body}\n").into_bytes());
            }
            None => out.extend(format!("{body}\n").into_bytes()),
        }
    }
    out
}

/// `exported()` edited by `edit`.
fn forged(edit: impl FnOnce(&mut Vec<Line>)) -> Vec<u8> {
    let mut read = lines(&exported());
    edit(&mut read);
    written(read)
}

/// The records of proposals, as (index among the lines, kind of event).
fn records(lines: &[Line]) -> Vec<(usize, String)> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.checksum_key == Some("reviewCrc32"))
        .map(|(at, line)| (at, line.json["event"]["kind"].as_str().unwrap().to_owned()))
        .collect()
}

/// The refusal of `file` (line, field, reason); nothing stored.
fn refused(file: &[u8]) -> (u64, &'static str, String) {
    let knowledge = with_limits(Knowledge::in_memory());
    let error = knowledge.import(file).unwrap_err();
    assert_eq!(knowledge.pin().position(), 0, "nothing imported: {error}");
    assert!(
        knowledge.open_proposals().unwrap().is_empty(),
        "no proposal imported: {error}"
    );
    match error {
        ImportError::Invalid {
            line,
            field,
            reason,
        } => (line, field, reason),
        other => panic!("not refused as invalid: {other:?} ({other})"),
    }
}

#[test]
fn the_honest_export_imports_and_its_rewriting_does_too() {
    let knowledge = with_limits(Knowledge::in_memory());
    assert_eq!(
        knowledge.import(&written(lines(&exported()))[..]).unwrap(),
        1
    );
    assert_eq!(
        knowledge.pin().get::<ReleaseLimit>("Bremen").unwrap().euros,
        1_000
    );
}

#[test]
fn a_version_of_a_reviewed_learnable_without_its_proposal_is_refused() {
    // Every record of proposals left out: the version stands alone.
    let file = forged(|lines| lines.retain(|line| line.checksum_key != Some("reviewCrc32")));
    let (line, field, reason) = refused(&file);
    assert_eq!((line, field), (2, "versionId"), "{reason}");
    assert!(reason.contains("2 other teachers approve"), "{reason}");
}

#[test]
fn an_approval_by_the_proposals_author_is_refused() {
    let file = forged(|lines| {
        let (at, kind) = records(lines)[1].clone();
        assert_eq!(kind, "approved");
        lines[at].json["teacher"] = json!("alice@example.com");
    });
    let (line, field, reason) = refused(&file);
    assert_eq!(field, "teacher", "{reason}");
    assert_eq!(line, 4);
    assert!(reason.contains("their own proposal"), "{reason}");
}

#[test]
fn a_look_alike_second_approver_is_refused() {
    // carol's approval given again as bob with a full-width letter.
    let file = forged(|lines| {
        let (at, _) = records(lines)[2].clone();
        lines[at].json["teacher"] = json!("b\u{ff4f}b@example.com");
    });
    let (_, field, reason) = refused(&file);
    assert_eq!(field, "teacher", "{reason}");
    assert!(reason.contains("a second time"), "{reason}");
}

#[test]
fn a_version_made_before_the_approvals_its_learnable_needs_is_refused() {
    // The file says one approval is enough, and bob's first approval makes
    // the version: the learnable's own number (two) is what counts.
    let file = forged(|lines| {
        let records = records(lines);
        let (proposed, _) = records[0];
        let (first, _) = records[1];
        let (second, _) = records[2];
        lines[proposed].json["event"]["approvalsNeeded"] = json!(1);
        let makes = lines[second].json["event"]["makesVersion"].clone();
        lines[first].json["event"]["makesVersion"] = makes;
        lines.remove(second);
    });
    let (_, field, reason) = refused(&file);
    assert_eq!(field, "event.makesVersion", "{reason}");
    assert!(reason.contains("1 of the 2 approvals"), "{reason}");
}

#[test]
fn a_proposal_by_a_name_no_teacher_has_is_refused() {
    let file = forged(|lines| {
        let (at, _) = records(lines)[3].clone();
        lines[at].json["teacher"] = json!("build-bot\u{202e}@example.com");
    });
    let (_, field, reason) = refused(&file);
    assert_eq!(field, "teacher", "{reason}");
    assert!(!reason.contains('\u{202e}'), "escaped: {reason}");
}

#[test]
fn a_proposal_in_a_collection_the_agent_does_not_declare_is_refused() {
    let file = forged(|lines| {
        for (at, _) in records(lines).into_iter().skip(3) {
            lines[at].json["collection"] = json!("payouts");
        }
    });
    let (_, field, reason) = refused(&file);
    assert_eq!(field, "collection", "{reason}");
}

#[test]
fn a_zero_width_entry_is_refused() {
    let file = forged(|lines| {
        for (at, _) in records(lines).into_iter().skip(3) {
            lines[at].json["entry"] = json!("Ki\u{200b}el");
        }
    });
    let (_, field, reason) = refused(&file);
    assert_eq!(field, "entry", "{reason}");
}

#[test]
fn the_files_own_words_are_never_shown_nor_its_count_of_approvals_kept() {
    // The waiting proposal says something else than its value, holds an
    // OSC 52 escape, and asks for three approvals.
    let file = forged(|lines| {
        let (at, _) = records(lines)[3].clone();
        let event = &mut lines[at].json["event"];
        event["describes"] = json!("Kiel may now clear up to EUR 100 alone\u{1b}]52;c;cm0=\u{7}");
        event["approvalsNeeded"] = json!(3);
    });
    let knowledge = with_limits(Knowledge::in_memory());
    assert_eq!(knowledge.import(&file[..]).unwrap(), 1);
    let kiel = &knowledge.proposals("release_limits", "Kiel").unwrap()[0];
    assert_eq!(kiel.describes, "Kiel releases up to 2000 euros");
    assert_eq!(kiel.approvals_needed, 2);
    // Its next approval (the second) learns it, with the agent's words.
    let learned = knowledge
        .review(&decision(
            "Kiel",
            &kiel.proposal_id,
            Decision::Approve,
            "carol@example.com",
        ))
        .unwrap();
    assert!(learned.learned);
    assert_eq!(learned.describes, "Kiel releases up to 2000 euros");
}

#[test]
fn a_versions_own_describes_is_said_again_by_the_agent() {
    let file = forged(|lines| {
        lines[1].json["describes"] = json!("Bremen releases everything");
    });
    let knowledge = with_limits(Knowledge::in_memory());
    knowledge.import(&file[..]).unwrap();
    assert_eq!(
        knowledge.history("release_limits")[0].describes,
        "Bremen releases up to 1000 euros"
    );
}
