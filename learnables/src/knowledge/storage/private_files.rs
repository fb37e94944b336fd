//! Lessons name their teachers: the embedded stores' directories and files
//! are their owner's alone (on Unix 0700 and 0600) when a store creates
//! them.

use std::fs::{DirBuilder, OpenOptions};
use std::path::Path;

use super::StoreError;

/// Creates the store directory `dir` and its parents if they do not
/// exist, the owner's alone.
pub(super) fn create_dir(dir: &Path) -> Result<(), StoreError> {
    let mut builder = DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .recursive(true)
        .create(dir)
        .map_err(|error| cannot_open(dir, error))
}

/// The store in `dir` could not be opened, for `reason`.
pub(super) fn cannot_open(dir: &Path, reason: impl std::fmt::Display) -> StoreError {
    StoreError::Open {
        location: dir.display().to_string(),
        reason: reason.to_string(),
    }
}

/// Options that create a file the owner's alone (set the access wanted).
pub(super) fn file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}
