//! An export edited on purpose, its checksums computed again, brings in
//! nothing a teacher could not have taught: each imported version is
//! checked as a lesson is (its collection registered, its value one its
//! entry could be taught, its teacher and reason within a lesson's limits
//! and rules), the line and field at fault are named, and nothing of the
//! file is stored.

use learnables_tests::support::backend_suite::{registered, rule_lesson};

use learnables::Knowledge;
use learnables::knowledge::ImportError;
use serde_json::{Value, json};

/// An export of two routing rules, with a reason each.
fn exported() -> Vec<u8> {
    let knowledge = registered(Knowledge::in_memory());
    for entry in ["84", "85"] {
        let lesson = rule_lesson(entry, "general").with_reason("the usual desk");
        knowledge.teach(&lesson).unwrap();
    }
    let mut file = Vec::new();
    knowledge.export(&mut file).unwrap();
    file
}

/// `file` with its version on line `line` (1 for the first line) changed
/// by `edit`, and its checksum computed again, as anyone can.
fn edited(
    file: &[u8],
    line: usize,
    edit: impl FnOnce(&mut serde_json::Map<String, Value>),
) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = file
        .split_inclusive(|byte| *byte == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let mut version: serde_json::Map<String, Value> =
        serde_json::from_slice(&lines[line - 1]).unwrap();
    version.remove("crc32");
    edit(&mut version);
    let body = serde_json::to_string(&version).unwrap();
    let body = body.strip_prefix('{').unwrap();
    let checksum = crc32fast::hash(body.as_bytes());
    lines[line - 1] = format!("{{\"crc32\":{checksum},{body}\n").into_bytes();
    lines.concat()
}

/// The error `file` is refused with, on a registered embedded store that
/// holds nothing afterwards, open or reopened.
fn refused(file: &[u8]) -> ImportError {
    let dir = tempfile::tempdir().unwrap();
    let knowledge = registered(Knowledge::open(dir.path()).unwrap());
    let error = knowledge.import(file).unwrap_err();
    assert_eq!(knowledge.pin().position(), 0, "nothing imported: {error}");
    drop(knowledge);
    let reopened = Knowledge::open(dir.path()).unwrap();
    assert_eq!(reopened.pin().position(), 0, "nothing stored: {error}");
    error
}

/// The line, field and reason of an [`ImportError::Invalid`].
fn invalid(file: &[u8]) -> (u64, &'static str, String) {
    match refused(file) {
        ImportError::Invalid {
            line,
            field,
            reason,
        } => (line, field, reason),
        other => panic!("not refused as invalid: {other:?} ({other})"),
    }
}

#[test]
fn a_file_rewritten_with_its_checksums_computed_again_is_imported() {
    // What the tests below edit passes every check of a whole file, so
    // only the checks of what a version holds can refuse them.
    let file = edited(&edited(&exported(), 2, |_| {}), 3, |_| {});
    let knowledge = registered(Knowledge::in_memory());
    assert_eq!(knowledge.import(&file[..]).unwrap(), 2);
}

#[test]
fn a_value_for_another_entry_is_refused() {
    let file = edited(&exported(), 3, |version| {
        assert_eq!(version["entry"], "85");
        version["value"]["chapter"] = json!("12");
    });
    let (line, field, reason) = invalid(&file);
    assert_eq!((line, field), (3, "value"), "{reason}");
    assert!(
        reason.contains("\"12\"") && reason.contains("\"85\""),
        "{reason}"
    );
    let error = refused(&file).to_string();
    assert!(
        error.starts_with("line 3 of the export, `value`: "),
        "{error}"
    );
    assert!(error.ends_with("; nothing was imported"), "{error}");
}

#[test]
fn a_reason_longer_than_a_lesson_may_give_is_refused() {
    let file = edited(&exported(), 2, |version| {
        version["reason"] = json!("x".repeat(150_000));
    });
    let (line, field, reason) = invalid(&file);
    assert_eq!((line, field), (2, "reason"), "{reason}");
    assert!(reason.contains("2000 characters"), "{reason}");
    // At the limit, it is taken.
    let file = edited(&exported(), 2, |version| {
        version["reason"] = json!("x".repeat(2_000));
    });
    assert_eq!(
        registered(Knowledge::in_memory())
            .import(&file[..])
            .unwrap(),
        2
    );
}

#[test]
fn a_teacher_named_with_terminal_escapes_or_by_no_one_is_refused() {
    let escapes = "\u{1b}]52;c;aGk=\u{7}alice@example.com\u{1b}[2J";
    let file = edited(&exported(), 3, |version| {
        version["taughtBy"] = json!(escapes);
    });
    let (line, field, reason) = invalid(&file);
    assert_eq!((line, field), (3, "taughtBy"), "{reason}");
    assert!(
        !reason.contains('\u{1b}') && !reason.contains('\u{7}'),
        "shown escaped: {reason:?}"
    );
    assert!(reason.contains(r"\u{1b}"), "{reason}");
    for teacher in [
        "",
        "   ",
        "bob\u{202e}moc.elpmaxe@",
        "x".repeat(321).as_str(),
    ] {
        let file = edited(&exported(), 2, |version| {
            version["taughtBy"] = json!(teacher);
        });
        let (line, field, reason) = invalid(&file);
        assert_eq!((line, field), (2, "taughtBy"), "{teacher:?}: {reason}");
    }
}

#[test]
fn a_collection_not_registered_is_refused() {
    // The first version of a collection of its own: the file still
    // follows on.
    let file = edited(&exported(), 3, |version| {
        version["collection"] = json!("wire_transfers");
        version["definitionVersion"] = json!(1);
        version.remove("previousVersionId");
    });
    let (line, field, reason) = invalid(&file);
    assert_eq!((line, field), (3, "collection"), "{reason}");
    assert!(reason.contains("`wire_transfers`"), "{reason}");
    assert!(
        reason.contains("routing_rules"),
        "names what is registered: {reason}"
    );
    // Nor is a collection declared in the file but not registered here.
    let file = exported();
    let knowledge = Knowledge::in_memory();
    let error = knowledge.import(&file[..]).unwrap_err();
    assert!(
        matches!(
            error,
            ImportError::Invalid {
                line: 2,
                field: "collection",
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("none is registered"), "{error}");
    assert_eq!(knowledge.pin().position(), 0);
}

#[test]
fn an_empty_entry_and_a_retraction_with_a_value_are_refused() {
    let file = edited(&exported(), 2, |version| {
        version["entry"] = json!("");
    });
    assert_eq!(invalid(&file).1, "entry");
    let file = edited(&exported(), 2, |version| {
        version["entry"] = json!("8".repeat(257));
    });
    assert_eq!(invalid(&file).1, "entry");
    let file = edited(&exported(), 3, |version| {
        version.insert("retracted".into(), json!(true));
    });
    let (line, field, reason) = invalid(&file);
    assert_eq!((line, field), (3, "value"), "{reason}");
}

#[test]
fn values_that_do_not_read_are_reported_as_registering_reports_them() {
    let file = edited(&exported(), 2, |version| {
        version["value"]["desk"] = json!("the roof");
    });
    let file = edited(&file, 3, |version| {
        version["value"]["desk"] = json!("the roof");
    });
    match refused(&file) {
        ImportError::Unreadable { line, report } => {
            assert_eq!(line, 2);
            assert_eq!(report.versions(), 2);
            assert!(report.names("routing_rules", "84"), "{report}");
            assert!(report.names("routing_rules", "85"), "{report}");
            let error = ImportError::Unreadable { line, report }.to_string();
            assert!(
                error.starts_with("line 2 of the export, `value`: "),
                "{error}"
            );
            assert!(error.contains("the roof"), "{error}");
        }
        other => panic!("not reported as unreadable: {other:?}"),
    }
}
