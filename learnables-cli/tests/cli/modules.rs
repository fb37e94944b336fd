//! The command's code: only its command line is public, and no two of its
//! files import each other, as the workspace's import-circle check reads
//! them (full paths in code included).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate is in the workspace")
        .to_owned()
}

/// Runs the import-circle check with `args`, from the workspace's root:
/// its exit status and everything it printed.
fn import_circles(args: &[&str]) -> (i32, String) {
    let root = workspace();
    let output = Command::new("python3")
        .arg(root.join(".ci/import-circles"))
        .args(args)
        .current_dir(&root)
        .output()
        .expect("python3 runs the import-circle check");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.code().expect("an exit code"), printed)
}

#[test]
fn only_the_command_line_is_a_public_module() {
    let lib = std::fs::read_to_string(workspace().join("learnables-cli/src/lib.rs")).unwrap();
    let public: Vec<&str> = lib
        .lines()
        .filter(|line| line.starts_with("pub mod "))
        .collect();
    assert_eq!(public, ["pub mod cli;"]);
}

#[test]
fn the_commands_files_import_no_circle() {
    let (code, printed) = import_circles(&["learnables-cli/src"]);
    assert_eq!(code, 0, "{printed}");
}

#[test]
fn the_import_circle_check_sees_full_paths_in_code() {
    let (code, printed) = import_circles(&["--self-test"]);
    assert_eq!(code, 0, "{printed}");
    assert!(printed.contains("cases read right"), "{printed}");
}
