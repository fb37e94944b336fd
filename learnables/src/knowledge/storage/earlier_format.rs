//! Stores written by earlier releases of the embedded store, which kept
//! versions in a redb database (`knowledge.redb`): converted to the log
//! file when [`LogStorage::open`](super::LogStorage::open) first meets
//! one, with the `redb` feature, and refused clearly without it.

use std::path::Path;

use super::StoreError;

/// The earlier format's file inside the knowledge directory.
pub(crate) const EARLIER_FILE_NAME: &str = "knowledge.redb";

/// What the earlier file is renamed to once converted: kept, not deleted,
/// until its owner removes it.
#[cfg(feature = "redb")]
const CONVERTED_FILE_NAME: &str = "knowledge.redb.converted";

/// Converts the earlier store in `dir`, if there is one, into the log file
/// at `log` (which does not exist yet).
pub(super) fn convert(dir: &Path, log: &Path) -> Result<(), StoreError> {
    let earlier = dir.join(EARLIER_FILE_NAME);
    if !earlier.exists() {
        return Ok(());
    }
    #[cfg(feature = "redb")]
    {
        write_converted(dir, &earlier, log)
    }
    #[cfg(not(feature = "redb"))]
    {
        let _ = log;
        Err(super::private_files::cannot_open(
            dir,
            format!(
                "{} is a store in the format of earlier releases; open it once with the \
                 `redb` feature of learnables, which converts it",
                earlier.display()
            ),
        ))
    }
}

/// How many versions go in one frame of a converted store.
#[cfg(feature = "redb")]
const VERSIONS_PER_FRAME: usize = 1024;

#[cfg(feature = "redb")]
fn write_converted(dir: &Path, earlier: &Path, log: &Path) -> Result<(), StoreError> {
    use std::io::Write;

    use super::log_frame::{self, MAGIC};
    use super::private_files::sync_directory;
    use super::{RedbStorage, Storage};

    let records = RedbStorage::open(dir)?.load()?;
    let failed = |error: &dyn std::fmt::Display| {
        super::private_files::cannot_open(
            dir,
            format!(
                "{} could not be converted: {error}; it is unchanged",
                earlier.display()
            ),
        )
    };
    let converting = log.with_extension("log.converting");
    let mut file = super::private_files::file_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&converting)
        .map_err(|error| failed(&error))?;
    let mut bytes = MAGIC.to_vec();
    let mut unsealed = None;
    for chunk in records.chunks(VERSIONS_PER_FRAME) {
        let (frame, payload_crc) =
            log_frame::group(unsealed, chunk).map_err(|error| failed(&error))?;
        bytes.extend(frame);
        unsealed = Some(payload_crc);
    }
    if let Some(payload_crc) = unsealed {
        bytes.extend(log_frame::seal(payload_crc));
    }
    file.write_all(&bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&converting, log))
        .and_then(|()| std::fs::rename(earlier, dir.join(CONVERTED_FILE_NAME)))
        .and_then(|()| sync_directory(dir))
        .map_err(|error| failed(&error))
}
