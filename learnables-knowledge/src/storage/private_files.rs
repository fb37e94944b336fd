//! The embedded stores' directories and files: their owner's alone (on
//! Unix 0700 and 0600) when a store creates them, as lessons name their
//! teachers, and durable once created.

use std::fs::{DirBuilder, OpenOptions};
use std::path::Path;

use super::StoreError;
use crate::StoreReason;

/// Creates the store directory `dir` and its parents if they do not
/// exist, the owner's alone, each made durable in its parent: every
/// directory created is synced into the one that holds it, up to the first
/// that existed, so that a power cut cannot take a new store's path away.
pub(super) fn create_dir(dir: &Path) -> Result<(), StoreError> {
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|ancestor| !ancestor.as_os_str().is_empty() && !ancestor.exists())
        .collect();
    let mut builder = DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    for created in missing.iter().rev() {
        match builder.create(created) {
            // Made meanwhile by someone else: its entry is theirs to sync.
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            made => made.map_err(|error| cannot_open_io(dir, error))?,
        }
        let parent = created
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        sync_directory(parent).map_err(|error| cannot_open_io(dir, error))?;
    }
    if !dir.is_dir() {
        // Names a file, or a dangling link: say what opening it says.
        builder
            .recursive(true)
            .create(dir)
            .map_err(|error| cannot_open_io(dir, error))?;
    }
    Ok(())
}

/// The store in `dir` could not be opened, for `reason`.
pub(super) fn cannot_open(dir: &Path, reason: impl Into<StoreReason>) -> StoreError {
    StoreError::Open {
        location: dir.display().to_string(),
        reason: reason.into(),
    }
}

/// The store in `dir` could not be opened, for `error`, kept as the source.
pub(super) fn cannot_open_io(dir: &Path, error: std::io::Error) -> StoreError {
    cannot_open(dir, StoreReason::with_source(error.to_string(), error))
}

/// Options that create a file the owner's alone (set the access wanted).
pub(super) fn file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

/// Makes a new file's name in `dir` durable.
pub(super) fn sync_directory(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    std::fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
