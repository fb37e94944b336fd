use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::log_frame::{self, MAGIC};
use super::private_files;
use super::{Storage, StoreError, check_follows_on};
use crate::knowledge::VersionRecord;

/// The name of the store file inside the knowledge directory.
pub(crate) const FILE_NAME: &str = "knowledge.log";

/// The durable embedded back end: one directory holding one file, to which
/// each group of versions is appended as a checksummed frame and synced
/// (`fdatasync`) before it is acknowledged. A commit costs what the disk
/// charges for appending a few hundred bytes and syncing them, and no more:
/// the knowledge keeps every version in memory, so the file needs no index.
///
/// Crash-safe: a group is stored whole or not at all. When the store opens,
/// a frame a crash cut short (never acknowledged) is cut off; a frame that
/// is whole but fails its checksum is refused as damage, never read as
/// different lessons or dropped silently. A write that fails (a full disk,
/// a file that became read-only) is undone, so nothing of it is stored and
/// the store takes lessons again once the fault is gone. One process at a
/// time opens a store: the file is locked while open.
///
/// ```
/// use learnables::knowledge::{LogStorage, Storage};
/// let dir = std::env::temp_dir().join(format!("learnables-doc-{}", std::process::id()));
/// let storage = LogStorage::open(&dir).unwrap();
/// assert!(storage.load().unwrap().is_empty());
/// # drop(storage); std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug)]
pub struct LogStorage {
    file: Mutex<Tail>,
    path: PathBuf,
}

/// The open file and where its intact frames end.
#[derive(Debug)]
struct Tail {
    file: File,
    /// Where the next frame goes.
    end: u64,
    /// The position of the last stored version (0 before the first).
    last_position: u64,
    /// The payload checksum of the last group, until a seal follows it.
    unsealed: Option<u32>,
    /// Set when a failed write may have left bytes past `end` that could
    /// not be cut off yet: they are, before the next write.
    cut_pending: bool,
    /// The versions read when the store opened, until the first load.
    opened_with: Option<Vec<VersionRecord>>,
}

impl LogStorage {
    /// Opens the store in `dir`, creating the directory and the store file
    /// if they do not exist. A store in the format of earlier releases
    /// (`knowledge.redb`) is converted first, with the `redb` feature, or
    /// refused with an error saying so.
    pub fn open(dir: impl AsRef<Path>) -> Result<LogStorage, StoreError> {
        let dir = dir.as_ref();
        let open_error = |reason: String| private_files::cannot_open(dir, reason);
        private_files::create_dir(dir)?;
        let path = dir.join(FILE_NAME);
        if !path.exists() {
            super::earlier_format::convert(dir, &path)?;
        }
        let mut file = private_files::file_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|error| open_error(format!("{}: {error}", path.display())))?;
        file.try_lock().map_err(|error| {
            open_error(match error {
                std::fs::TryLockError::WouldBlock => format!(
                    "{} is open already, in this process or another; one process at a time \
                     opens a store",
                    path.display()
                ),
                std::fs::TryLockError::Error(error) => format!("{}: {error}", path.display()),
            })
        })?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|error| {
            open_error(format!("{} could not be read: {error}", path.display()))
        })?;
        let scanned = log_frame::scan(&bytes, &path.display().to_string())?;
        let mut end = scanned.end;
        let written = bytes.len() as u64;
        drop(bytes);
        if end == 0 {
            // New, or its creation was cut short: the header, made durable
            // with the directory entry naming the file.
            let created = file
                .set_len(0)
                .and_then(|()| write_at(&file, MAGIC, 0))
                .and_then(|()| file.sync_data())
                .and_then(|()| sync_directory(dir));
            created.map_err(|error| {
                open_error(format!("{} could not be created: {error}", path.display()))
            })?;
            end = MAGIC.len() as u64;
        } else if written > end {
            // A write cut short by a crash, never acknowledged.
            file.set_len(end)
                .and_then(|()| file.sync_data())
                .map_err(|error| {
                    open_error(format!(
                        "{} ends in a write a crash cut short, which could not be cut off: \
                         {error}",
                        path.display()
                    ))
                })?;
        }
        let last_position = scanned.records.last().map_or(0, |record| record.position);
        Ok(LogStorage {
            file: Mutex::new(Tail {
                file,
                end,
                last_position,
                unsealed: scanned.unsealed,
                cut_pending: false,
                opened_with: Some(scanned.records),
            }),
            path,
        })
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn tail(&self) -> MutexGuard<'_, Tail> {
        // Every change to the tail is made whole or undone before a panic
        // could unwind past it.
        self.file.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A failure to write, naming the file.
    fn unwritable(&self, error: impl std::fmt::Display) -> StoreError {
        StoreError::Failed(format!(
            "{} could not be written: {error}; nothing of this write was stored",
            self.path.display()
        ))
    }

    /// Every version in the file, read again.
    fn read_all(&self, tail: &Tail) -> Result<Vec<VersionRecord>, StoreError> {
        let mut bytes = vec![0; usize::try_from(tail.end).unwrap_or(usize::MAX)];
        let mut file = &tail.file;
        let read = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.read_exact(&mut bytes));
        read.map_err(|error| {
            StoreError::Failed(format!(
                "{} could not be read: {error}",
                self.path.display()
            ))
        })?;
        Ok(log_frame::scan(&bytes, &self.path.display().to_string())?.records)
    }
}

impl Tail {
    /// Cuts the file back to `end`, durably: what a failed write left
    /// there is gone. If that fails too, it is tried again before the next
    /// write.
    fn cut_back(&mut self) -> std::io::Result<()> {
        let cut = self
            .file
            .set_len(self.end)
            .and_then(|()| self.file.sync_data());
        self.cut_pending = cut.is_err();
        cut
    }
}

impl Storage for LogStorage {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        let mut tail = self.tail();
        match tail.opened_with.take() {
            Some(records) => Ok(records),
            None => self.read_all(&tail),
        }
    }

    fn load_since(&self, position: u64) -> Result<Vec<VersionRecord>, StoreError> {
        let mut tail = self.tail();
        // Only this process writes the store: nothing after the last
        // version it stored.
        if position >= tail.last_position {
            return Ok(Vec::new());
        }
        let mut records = match tail.opened_with.take() {
            Some(records) => records,
            None => self.read_all(&tail)?,
        };
        records.retain(|record| record.position > position);
        Ok(records)
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        let mut tail = self.tail();
        check_follows_on(tail.last_position, records)?;
        let Some(last) = records.last() else {
            return Ok(());
        };
        if tail.cut_pending {
            tail.cut_back().map_err(|error| self.unwritable(error))?;
        }
        let (frame, payload_crc) =
            log_frame::group(tail.unsealed, records).map_err(|error| self.unwritable(error))?;
        let written = write_at(&tail.file, &frame, tail.end).and_then(|()| tail.file.sync_data());
        if let Err(error) = written {
            // Whether the cut succeeds or is left for the next write, the
            // group is not in the file the store reads.
            let _ = tail.cut_back();
            return Err(self.unwritable(error));
        }
        tail.end += frame.len() as u64;
        tail.last_position = last.position;
        tail.unsealed = Some(payload_crc);
        Ok(())
    }

    /// A write and a sync of a local file: safe on any thread, and over
    /// when the disk answers.
    fn may_append_on_teachers_thread(&self) -> bool {
        true
    }
}

impl Drop for LogStorage {
    /// Seals the last group, so that damage to it is told from a crash.
    fn drop(&mut self) {
        let tail = self.file.get_mut().unwrap_or_else(PoisonError::into_inner);
        if let (Some(payload_crc), false) = (tail.unsealed, tail.cut_pending) {
            let sealed = write_at(&tail.file, &log_frame::seal(payload_crc), tail.end)
                .and_then(|()| tail.file.sync_data());
            // A seal that did not reach the disk is one a crash cut short.
            let _ = sealed;
        }
    }
}

/// Writes all of `bytes` at `offset` (one `pwrite` on Unix).
fn write_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::Write;
        let mut file = file;
        file.seek(SeekFrom::Start(offset))?;
        file.write_all(bytes)
    }
}

/// Makes a new file's name in `dir` durable.
pub(super) fn sync_directory(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
