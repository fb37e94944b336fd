use std::path::{Path, PathBuf};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use super::{Storage, StoreError};
use crate::knowledge::VersionRecord;

/// Every version, by position, as the JSON of its [`VersionRecord`].
const VERSIONS: TableDefinition<u64, &[u8]> = TableDefinition::new("versions");

/// The name of the database file inside the knowledge directory.
const FILE_NAME: &str = "knowledge.redb";

/// The durable embedded back end: one directory holding a
/// [redb](https://docs.rs/redb) database, crash-safe (copy-on-write B-trees
/// with checksummed commits), each group of versions committed and synced
/// to disk before it is acknowledged.
///
/// ```
/// use learnables::knowledge::{RedbStorage, Storage};
/// let dir = std::env::temp_dir().join(format!("learnables-doc-{}", std::process::id()));
/// let storage = RedbStorage::open(&dir).unwrap();
/// assert!(storage.load().unwrap().is_empty());
/// # drop(storage); std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug)]
pub struct RedbStorage {
    database: Database,
    path: PathBuf,
}

impl RedbStorage {
    /// Opens the store in `dir`, creating the directory and the database if
    /// they do not exist.
    pub fn open(dir: impl AsRef<Path>) -> Result<RedbStorage, StoreError> {
        let dir = dir.as_ref();
        let open_error = |reason: String| StoreError::Open {
            location: dir.display().to_string(),
            reason,
        };
        std::fs::create_dir_all(dir).map_err(|error| open_error(error.to_string()))?;
        let path = dir.join(FILE_NAME);
        // redb may panic on a file damaged in some ways: that is a damaged
        // store to report, not a crash.
        let created = std::panic::catch_unwind(|| Database::create(&path)).map_err(|_| {
            StoreError::Damaged(format!("{} is not a readable store", path.display()))
        })?;
        let mut database = created.map_err(|error| open_error(error.to_string()))?;
        // redb recovers from crashes by itself; this walks every page's
        // checksum so that a file damaged in any other way is refused here,
        // clearly, rather than read with lessons missing.
        match database.check_integrity() {
            Ok(true) => {}
            Ok(false) => {
                return Err(StoreError::Damaged(format!(
                    "{} failed its integrity check (it was changed outside this program, or \
                     the disk lost data); restore it from a backup",
                    path.display()
                )));
            }
            Err(error) => {
                return Err(StoreError::Damaged(format!(
                    "{} failed its integrity check: {error}",
                    path.display()
                )));
            }
        }
        let write = database
            .begin_write()
            .map_err(|error| open_error(error.to_string()))?;
        write
            .open_table(VERSIONS)
            .map_err(|error| open_error(error.to_string()))?;
        write
            .commit()
            .map_err(|error| open_error(error.to_string()))?;
        Ok(RedbStorage { database, path })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn failed(error: impl std::fmt::Display) -> StoreError {
    StoreError::Failed(error.to_string())
}

impl Storage for RedbStorage {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        // A damaged page that slipped past the integrity check must still
        // end in an error, not a panic in the caller.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.load_records()))
            .unwrap_or_else(|_| {
                Err(StoreError::Damaged(format!(
                    "{} could not be read back",
                    self.path.display()
                )))
            })
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.append_records(records)
        }))
        .unwrap_or_else(|_| {
            Err(StoreError::Failed(format!(
                "{} could not be written; nothing of this write was stored",
                self.path.display()
            )))
        })
    }
}

impl RedbStorage {
    fn load_records(&self) -> Result<Vec<VersionRecord>, StoreError> {
        let read = self.database.begin_read().map_err(failed)?;
        let table = read.open_table(VERSIONS).map_err(failed)?;
        let mut records = Vec::new();
        for row in table.iter().map_err(failed)? {
            let (position, bytes) = row.map_err(failed)?;
            let position = position.value();
            let record: VersionRecord = serde_json::from_slice(bytes.value()).map_err(|error| {
                StoreError::Damaged(format!(
                    "the version at position {position} in {} cannot be read: {error}",
                    self.path.display()
                ))
            })?;
            if record.position != position {
                return Err(StoreError::Damaged(format!(
                    "the version stored at position {position} in {} says it is at position {}",
                    self.path.display(),
                    record.position
                )));
            }
            records.push(record);
        }
        Ok(records)
    }

    fn append_records(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        let write = self.database.begin_write().map_err(failed)?;
        {
            let mut table = write.open_table(VERSIONS).map_err(failed)?;
            let found = table
                .last()
                .map_err(failed)?
                .map_or(0, |(position, _)| position.value());
            if let Some(first) = records.first()
                && first.position != found + 1
            {
                return Err(StoreError::Conflict {
                    expected: first.position,
                    found,
                });
            }
            for record in records {
                let bytes = serde_json::to_vec(record).map_err(failed)?;
                table
                    .insert(record.position, bytes.as_slice())
                    .map_err(failed)?;
            }
        }
        write.commit().map_err(failed)
    }
}
