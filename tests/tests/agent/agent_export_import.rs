//! The example agent's `export FILE` and `import FILE` subcommands, run as
//! the agent's own binary: a store written out and read into an empty one
//! keeps every version; a store not empty, or a file edited (its checksum
//! left as it was, or computed again), is refused with exit code 1 and a
//! line saying why.

use learnables_tests::support::backend_suite;

use std::process::{Command, Output};

use backend_suite::{registered, rule_lesson};
use learnables::Knowledge;

fn agent(data: &std::path::Path, args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_customs_agent"))
        .arg("--data")
        .arg(data)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn export_then_import_moves_every_version_and_refuses_what_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to, file) = (
        dir.path().join("from"),
        dir.path().join("to"),
        dir.path().join("knowledge.jsonl"),
    );
    let history = {
        let knowledge = registered(Knowledge::open(&from).unwrap());
        knowledge.teach(&rule_lesson("84", "general")).unwrap();
        knowledge.teach(&rule_lesson("84", "cold chain")).unwrap();
        knowledge
            .retract("routing_rules", "84", "bob@example.com", Some("gone"))
            .unwrap();
        knowledge.history("routing_rules")
    };
    let exported = agent(&from, &["export".as_ref(), file.as_os_str()]);
    assert!(exported.status.success(), "{exported:?}");
    assert!(String::from_utf8_lossy(&exported.stdout).contains("exported 3 versions"));

    let imported = agent(&to, &["import".as_ref(), file.as_os_str()]);
    assert!(imported.status.success(), "{imported:?}");
    assert!(String::from_utf8_lossy(&imported.stdout).contains("imported 3 versions"));
    assert_eq!(
        Knowledge::open(&to).unwrap().history("routing_rules"),
        history
    );

    // Not empty any more: refused.
    let again = agent(&to, &["import".as_ref(), file.as_os_str()]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));

    // An edited file: refused, naming the line.
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("cold chain", "general")).unwrap();
    let edited = agent(
        &dir.path().join("other"),
        &["import".as_ref(), file.as_os_str()],
    );
    assert_eq!(edited.status.code(), Some(1));
    let said = String::from_utf8_lossy(&edited.stderr);
    assert!(said.contains("line 3"), "{said}");
    assert!(said.contains("checksum"), "{said}");

    // Edited with its checksum computed again: the version is checked as
    // a lesson would be, and refused naming the line and the field.
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut version: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&lines[1]).unwrap();
    version.remove("crc32");
    version["value"]["chapter"] = serde_json::json!("12");
    let body = serde_json::to_string(&version).unwrap();
    let body = body.strip_prefix('{').unwrap();
    lines[1] = format!("{{\"crc32\":{},{body}", crc32fast::hash(body.as_bytes()));
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let forged = agent(
        &dir.path().join("forged"),
        &["import".as_ref(), file.as_os_str()],
    );
    assert_eq!(forged.status.code(), Some(1));
    let said = String::from_utf8_lossy(&forged.stderr);
    assert!(said.contains("line 2 of the export, `value`"), "{said}");
    assert!(said.contains("nothing was imported"), "{said}");
    assert!(
        Knowledge::open(dir.path().join("forged"))
            .unwrap()
            .history("routing_rules")
            .is_empty()
    );
}
