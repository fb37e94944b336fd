//! The example agent's `export FILE` and `import FILE` subcommands: its
//! knowledge written out as JSON Lines (a backup, or a move to another back
//! end), and read into an empty store.

use std::fs::File;
use std::path::Path;

use super::DataLocation;

/// Writes every version of the knowledge at `location` to `file` (created,
/// or replaced); returns how many versions it wrote.
///
/// ```
/// use learnables_examples::customs_agent::{DataLocation, moving_house};
/// let dir = std::env::temp_dir().join(format!("customs-export-doc-{}", std::process::id()));
/// let file = dir.join("backup.jsonl");
/// let location = DataLocation::Directory(dir.join("data"));
/// assert_eq!(moving_house::export(&location, &file).unwrap(), 0);
/// let copy = DataLocation::Directory(dir.join("copy"));
/// assert_eq!(moving_house::import(&copy, &file).unwrap(), 0);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn export(location: &DataLocation, file: &Path) -> Result<u64, String> {
    let knowledge = location
        .open()
        .map_err(|error| format!("cannot open the knowledge: {error}"))?;
    let out =
        File::create(file).map_err(|error| format!("cannot create {}: {error}", file.display()))?;
    let count = knowledge
        .export(out)
        .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    Ok(count)
}

/// Reads `file`, written by [`export`], into the knowledge at `location`,
/// which must be empty; returns how many versions it read. The agent's
/// learnables are registered first, so that each version is checked as a
/// lesson on its collection would be.
pub fn import(location: &DataLocation, file: &Path) -> Result<u64, String> {
    let input =
        File::open(file).map_err(|error| format!("cannot open {}: {error}", file.display()))?;
    let knowledge = location
        .open()
        .map_err(|error| format!("cannot open the knowledge: {error}"))?;
    super::register(&knowledge)
        .map_err(|error| format!("cannot register the agent's learnables: {error}"))?;
    knowledge
        .import(input)
        .map_err(|error| format!("cannot import {}: {error}", file.display()))
}
