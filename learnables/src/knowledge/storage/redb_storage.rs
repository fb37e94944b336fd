use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use super::{Storage, StoreError};
use crate::knowledge::VersionRecord;

/// Every version, by position, as the JSON of its [`VersionRecord`].
const VERSIONS: TableDefinition<u64, &[u8]> = TableDefinition::new("versions");

/// The name of the database file inside the knowledge directory.
const FILE_NAME: &str = super::earlier_format::EARLIER_FILE_NAME;

/// The embedded back end of earlier releases (the `redb` feature): one
/// directory holding a [redb](https://docs.rs/redb) database, crash-safe
/// (copy-on-write B-trees with checksummed commits), each group of versions
/// committed and synced to disk before it is acknowledged.
/// [`Knowledge::open`](crate::Knowledge::open) uses
/// [`LogStorage`](super::LogStorage), which writes a fraction of the bytes
/// a commit here does, and converts a store of this kind the first time it
/// opens one.
///
/// A write that fails (a full disk, a file that became read-only) is
/// refused with nothing of it stored, and the database is reopened, so
/// that once the fault is gone the store works again without a restart.
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
    /// `None` after a failure, until the database reopens.
    database: Mutex<Option<Database>>,
    path: PathBuf,
}

impl RedbStorage {
    /// Opens the store in `dir`, creating the directory and the database if
    /// they do not exist.
    pub fn open(dir: impl AsRef<Path>) -> Result<RedbStorage, StoreError> {
        let dir = dir.as_ref();
        let open_error = |reason: String| super::private_files::cannot_open(dir, reason);
        super::private_files::create_dir(dir)?;
        let path = dir.join(FILE_NAME);
        if !path.exists() {
            super::private_files::file_options()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|error| open_error(error.to_string()))?;
        }
        let database = open_database(&path).map_err(|error| match error {
            OpenFailure::Damaged(error) => error,
            OpenFailure::Open(reason) => open_error(reason),
        })?;
        Ok(RedbStorage {
            database: Mutex::new(Some(database)),
            path,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `operation` on the database, reopening it first if an earlier
    /// failure closed it. A failure closes it: redb refuses every later
    /// operation after an I/O error until the database is opened again.
    fn with_database<T>(
        &self,
        operation: impl FnOnce(&Database) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut guard = self.database.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.is_none() {
            *guard = Some(open_database(&self.path).map_err(|error| match error {
                OpenFailure::Damaged(error) => error,
                OpenFailure::Open(reason) => StoreError::Failed(format!(
                    "{} could not be reopened after an earlier failure: {reason}",
                    self.path.display()
                )),
            })?);
        }
        let database = guard.as_ref().expect("opened above");
        let outcome = operation(database);
        if matches!(outcome, Err(StoreError::Failed(_))) {
            // Closed now, reopened on the next use.
            *guard = None;
        }
        outcome
    }
}

/// Why the database file did not open.
enum OpenFailure {
    /// It holds something unreadable.
    Damaged(StoreError),
    /// It could not be opened or written (the reason).
    Open(String),
}

/// Opens (or creates) the database at `path`, checked and with its table.
fn open_database(path: &Path) -> Result<Database, OpenFailure> {
    // redb may panic on a file damaged in some ways: that is a damaged
    // store to report, not a crash.
    let created = std::panic::catch_unwind(|| Database::create(path)).map_err(|_| {
        OpenFailure::Damaged(StoreError::Damaged(format!(
            "{} is not a readable store",
            path.display()
        )))
    })?;
    let mut database = created.map_err(|error| OpenFailure::Open(error.to_string()))?;
    // redb recovers from crashes by itself; this walks every page's
    // checksum so that a file damaged in any other way is refused here,
    // clearly, rather than read with lessons missing.
    match database.check_integrity() {
        Ok(true) => {}
        Ok(false) => {
            return Err(OpenFailure::Damaged(StoreError::Damaged(format!(
                "{} failed its integrity check (it was changed outside this program, or \
                 the disk lost data); restore it from a backup",
                path.display()
            ))));
        }
        Err(error) => {
            return Err(OpenFailure::Damaged(StoreError::Damaged(format!(
                "{} failed its integrity check: {error}",
                path.display()
            ))));
        }
    }
    let open = |error: &dyn std::fmt::Display| OpenFailure::Open(error.to_string());
    let write = database.begin_write().map_err(|error| open(&error))?;
    write.open_table(VERSIONS).map_err(|error| open(&error))?;
    write.commit().map_err(|error| open(&error))?;
    Ok(database)
}

impl Storage for RedbStorage {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.with_database(|database| {
            // A damaged page that slipped past the integrity check must
            // still end in an error, not a panic in the caller.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.load_records(database)))
                .unwrap_or_else(|_| {
                    Err(StoreError::Damaged(format!(
                        "{} could not be read back",
                        self.path.display()
                    )))
                })
        })
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        self.with_database(|database| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.append_records(database, records)
            }))
            .unwrap_or_else(|_| {
                Err(StoreError::Failed(format!(
                    "{} could not be written; nothing of this write was stored",
                    self.path.display()
                )))
            })
        })
    }
}

impl RedbStorage {
    /// A failure to read, naming the file.
    fn unreadable(&self, error: impl std::fmt::Display) -> StoreError {
        StoreError::Failed(format!(
            "{} could not be read: {error}",
            self.path.display()
        ))
    }

    /// A failure to write, naming the file.
    fn unwritable(&self, error: impl std::fmt::Display) -> StoreError {
        StoreError::Failed(format!(
            "{} could not be written: {error}; nothing of this write was stored",
            self.path.display()
        ))
    }

    fn load_records(&self, database: &Database) -> Result<Vec<VersionRecord>, StoreError> {
        let read = database
            .begin_read()
            .map_err(|error| self.unreadable(error))?;
        let table = read
            .open_table(VERSIONS)
            .map_err(|error| self.unreadable(error))?;
        let mut records = Vec::new();
        for row in table.iter().map_err(|error| self.unreadable(error))? {
            let (position, bytes) = row.map_err(|error| self.unreadable(error))?;
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

    fn append_records(
        &self,
        database: &Database,
        records: &[VersionRecord],
    ) -> Result<(), StoreError> {
        let failed = |error: &dyn std::fmt::Display| self.unwritable(error);
        let write = database.begin_write().map_err(|error| failed(&error))?;
        {
            let mut table = write.open_table(VERSIONS).map_err(|error| failed(&error))?;
            let found = table
                .last()
                .map_err(|error| failed(&error))?
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
                let bytes = serde_json::to_vec(record).map_err(|error| failed(&error))?;
                table
                    .insert(record.position, bytes.as_slice())
                    .map_err(|error| failed(&error))?;
            }
        }
        write.commit().map_err(|error| failed(&error))
    }
}
