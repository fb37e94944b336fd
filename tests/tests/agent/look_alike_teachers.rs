//! A teacher table the agent refuses to start with: two rows a person
//! could not tell apart (letter case, a Cyrillic `а`, a full-width `ａ`, a
//! dotless `ı`, a trailing dot), and names no teacher can have (hidden
//! characters, mixed scripts: `bоt@` with a Cyrillic `о`). Either would let
//! one person pass for two, and approve their own proposal.

use learnables::a2a::TokenTableError;
use learnables_examples::customs_agent::{self, Teacher};

fn teacher(email: &str, token: &str) -> Teacher {
    Teacher {
        email: email.to_owned(),
        token: token.to_owned(),
    }
}

#[test]
fn a_look_alike_second_teacher_is_refused_at_start_up_naming_both() {
    for look_alike in [
        "Alice@example.com",
        "\u{ff41}lice@example.com",
        "al\u{131}ce@example.com",
        "alice@example.com.",
    ] {
        let teachers = [
            teacher("alice@example.com", "alice-token"),
            teacher(look_alike, "second-token"),
        ];
        let error = customs_agent::tokens(&teachers).unwrap_err();
        let shown = error.to_string();
        assert!(
            matches!(error, TokenTableError::LookAlike { .. }),
            "{look_alike:?}: {shown}"
        );
        assert!(shown.contains("alice@example.com"), "{shown}");
        assert!(!shown.contains("token"), "{shown}");
    }
}

#[test]
fn names_no_teacher_can_have_are_refused_at_start_up() {
    for unfit in [
        // The first finding: a Cyrillic `а`.
        "\u{430}lice@example.com",
        "al\u{200b}ice@example.com",
        "b\u{43e}t@example.com",
        "j\u{435}nkins@example.com",
        "\u{455}vc@example.com",
        "b\u{200b}ot@example.com",
        "build-bot\u{202e}@example.com",
    ] {
        let teachers = [
            teacher("alice@example.com", "alice-token"),
            teacher(unfit, "second-token"),
        ];
        let error = customs_agent::tokens(&teachers).unwrap_err();
        let shown = error.to_string();
        assert!(
            matches!(error, TokenTableError::Unfit { .. }),
            "{unfit:?}: {shown}"
        );
        assert!(
            !shown.contains(['\u{200b}', '\u{202e}']),
            "shown escaped: {shown}"
        );
    }
}

#[test]
fn the_command_line_refuses_them_too() {
    // What `--teacher` parses reaches the same table.
    let teachers: Vec<Teacher> = ["alice@example.com=T1", "\u{430}lice@example.com=T2"]
        .iter()
        .map(|entry| Teacher::parse(entry).unwrap())
        .collect();
    assert!(customs_agent::tokens(&teachers).is_err());
}
