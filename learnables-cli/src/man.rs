//! `learnables man [--out DIR]`: the manual page, made by `clap_mangen`
//! from the command line itself: printed (`learnables.1`), or written to a
//! directory with one page for each command.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use serde_json::json;

use crate::cli::{Cli, ManArgs};
use crate::error::CliError;
use crate::outcome::Outcome;
use crate::render::line;

/// The page `learnables.1`, as roff: after the preamble that defines the
/// quote string, its title line.
pub fn page() -> String {
    let mut bytes = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = clap_mangen::Man::new(Cli::command()).render(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Writes `learnables.1` and a page for each command (`learnables-card.1`,
/// ...) into `dir`, made if missing: the files written.
pub fn write_pages(dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    let shown = line(&dir.display().to_string());
    std::fs::create_dir_all(dir)
        .map_err(|error| CliError::usage(format!("cannot make {shown}: {error}")))?;
    let mut command = Cli::command().disable_help_subcommand(true);
    // Building names each command's page: `learnables-card`, ...
    command.build();
    let mut written = Vec::new();
    for page_command in std::iter::once(&command).chain(command.get_subcommands()) {
        let man = clap_mangen::Man::new(page_command.clone());
        let file = man.generate_to(dir).map_err(|error| {
            CliError::usage(format!(
                "cannot write {}: {error}",
                line(&dir.join(man.get_filename()).display().to_string())
            ))
        })?;
        written.push(file);
    }
    Ok(written)
}

/// Runs `man`: the page as the report, or the list of files written; in
/// JSON, `{"page"}` or `{"written": [...]}`.
pub fn run(args: &ManArgs) -> Result<Outcome, CliError> {
    match &args.out {
        None => {
            let page = page();
            let json = json!({ "page": page });
            Ok(Outcome::ok(page, json))
        }
        Some(dir) => {
            let written = write_pages(dir)?;
            let text = written
                .iter()
                .map(|file| format!("wrote {}\n", line(&file.display().to_string())))
                .collect();
            let json = json!({
                "written": written.iter().map(|file| file.display().to_string()).collect::<Vec<_>>()
            });
            Ok(Outcome::ok(text, json))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_gets_its_page() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_pages(dir.path()).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|file| file.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        for name in [
            "learnables.1",
            "learnables-card.1",
            "learnables-check.1",
            "learnables-teach.1",
            "learnables-show.1",
            "learnables-completions.1",
            "learnables-man.1",
        ] {
            assert!(names.contains(&name.to_owned()), "{name} in {names:?}");
        }
        let teach = std::fs::read_to_string(dir.path().join("learnables-teach.1")).unwrap();
        assert!(
            teach
                .lines()
                .any(|line| line.starts_with(".TH learnables-teach 1")),
            "{teach}"
        );
        assert!(teach.contains("taught\\-by"), "{teach}");
    }

    #[test]
    fn the_page_documents_the_exit_statuses() {
        let page = page();
        assert!(page.contains("Exit status"), "{page}");
        assert!(page.contains("130"), "{page}");
    }

    #[test]
    fn the_page_is_roff() {
        let page = crate::man::page();
        assert!(
            page.lines()
                .any(|line| line.starts_with(".TH learnables 1"))
        );
    }
}
