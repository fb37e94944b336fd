//! `learnables completions SHELL` and `learnables man`, through the built
//! binary: a script for every shell that names every command, and manual
//! pages that read as roff.

use crate::common;

use std::process::Command;

use common::run;

const COMMANDS: [&str; 6] = ["card", "check", "teach", "show", "completions", "man"];

#[test]
fn every_shell_gets_a_script_naming_every_command() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef learnables"),
        ("fish", "complete -c learnables"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[learnables]"),
    ] {
        let script = run(&["completions", shell]).ok();
        assert!(script.contains(marker), "{shell}: {marker:?} in\n{script}");
        for command in COMMANDS {
            assert!(script.contains(command), "{shell} completes {command}");
        }
        assert!(script.contains("collection"), "{shell} completes options");
    }
}

/// Checks `page` as roff: the `.TH` title line after the preamble, the
/// sections a manual page has, and every request line a known macro.
fn assert_roff(page: &str, title: &str) {
    let lines: Vec<&str> = page.lines().collect();
    let th = lines
        .iter()
        .position(|line| line.starts_with(".TH "))
        .unwrap_or_else(|| panic!("no .TH in\n{page}"));
    assert!(
        lines[th].starts_with(&format!(".TH {title} 1 ")),
        "{}",
        lines[th]
    );
    assert!(
        lines[..th].iter().all(|line| line.starts_with(".ie")
            || line.starts_with(".el")
            || line.starts_with(".\\\"")),
        "only the quote preamble before .TH: {:?}",
        &lines[..th]
    );
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS"] {
        assert!(lines.contains(&section), "{title}: {section}");
    }
    for line in &lines[th..] {
        if let Some(request) = line.strip_prefix('.') {
            let name = request.split_whitespace().next().unwrap_or_default();
            assert!(
                [
                    "TH", "SH", "SS", "TP", "PP", "IP", "RS", "RE", "br", "B", "I", "ie", "el"
                ]
                .contains(&name),
                "{title}: unknown request {line:?}"
            );
        }
    }
}

/// Renders `file` with groff, where it is installed, and asserts it warns
/// of nothing: `None` when there is no groff to ask.
fn groff_warnings(file: &std::path::Path) -> Option<String> {
    let output = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(file)
        .output()
        .ok()?;
    assert!(output.status.success(), "groff fails on {}", file.display());
    Some(String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn the_man_page_is_roff_and_documents_the_exit_statuses() {
    let page = run(&["man"]).ok();
    assert_roff(&page, "learnables");
    assert!(page.contains(".SH SUBCOMMANDS"), "{page}");
    assert!(page.contains("Exit status:"), "{page}");
    assert!(page.contains("130"), "{page}");
}

#[test]
fn man_out_writes_a_page_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("share/man/man1");
    let said = run(&["man", "--out", out.to_str().unwrap()]).ok();
    for name in std::iter::once("learnables".to_owned()).chain(
        COMMANDS
            .iter()
            .map(|command| format!("learnables-{command}")),
    ) {
        let file = out.join(format!("{name}.1"));
        assert!(
            said.contains(&format!("wrote {}\n", file.display())),
            "{said}"
        );
        let page = std::fs::read_to_string(&file).unwrap();
        assert_roff(&page, &name);
        if let Some(warnings) = groff_warnings(&file) {
            assert_eq!(warnings, "", "groff on {name}.1");
        }
    }
    let teach = std::fs::read_to_string(out.join("learnables-teach.1")).unwrap();
    assert!(teach.contains("taught\\-by"), "{teach}");
}
