//! The durable embedded back end, [`LogStorage`]: one log file in a directory.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::de::{DeserializeSeed, Deserializer, Error as _, SeqAccess, Visitor};

use super::log_frame::{self, GroupError, MAGIC};
use super::private_files;
use super::{ReviewsOf, Storage, StoreError, check_follows_on, check_review_follows_on};
use crate::StoreReason;
use crate::record_view::RecordView;
use crate::state::State;
use crate::version_record::now_ms;
use crate::{ReviewRecord, VersionRecord};

/// The name of the store file inside the knowledge directory.
pub(crate) const FILE_NAME: &str = "knowledge.log";

/// The durable embedded back end: one directory holding one file, to which
/// each group of versions is appended as a checksummed frame and synced
/// (`fdatasync`) before it is acknowledged. A commit costs what the disk
/// charges for writing a few hundred bytes and syncing them, and no more:
/// the knowledge keeps every version in memory, so the file needs no index,
/// and the file keeps room written ahead of its frames (256 KiB of
/// zeros, refreshed as it fills), so that a commit's sync carries no change
/// of the file's size.
///
/// Crash-safe: a group is stored whole or not at all, and sealed by the
/// store's next write, when the store opens and when it closes. When the
/// store opens, whatever follows its last intact frame (zeros a file
/// system left after a power cut, the room, junk, a write a crash cut
/// short, a last unsealed group that no longer checks out) was never known
/// to be acknowledged: it is copied to `knowledge.log.cut-<time>` beside
/// the log, logged at warn with its byte range and the versions it held,
/// and cut off. Damage with an intact frame after it (a sealed group that
/// fails its checksum) is refused with the file and the byte, never read
/// as different lessons or dropped. A write that fails (a full disk, a
/// file that became read-only) is undone, so nothing of it is stored and
/// the store takes lessons again once the fault is gone. One process at a
/// time opens a store: the file is locked while open.
///
/// The layout, frame by frame, is in `docs/store-format.md`.
///
/// ```
/// use learnables_knowledge::{LogStorage, Storage};
/// let dir = std::env::temp_dir().join(format!("learnables-doc-{}", std::process::id()));
/// let storage = LogStorage::open(&dir).unwrap();
/// assert!(storage.load().unwrap().is_empty());
/// # drop(storage); std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug)]
pub struct LogStorage {
    file: Mutex<OpenLog>,
    path: PathBuf,
}

/// How many bytes of zeros the store writes ahead of its frames when the
/// room left is too small for the next one. Writing into bytes the file
/// already holds lets `fdatasync` skip the file's size and block map, so a
/// durable lesson's sync carries its frame and nothing else.
pub const ROOM: u64 = 256 * 1024;

/// The open file and where its intact frames end.
#[derive(Debug)]
struct OpenLog {
    file: File,
    /// Where the next frame goes.
    end: u64,
    /// The file's length: zeros from `end` to here are room for frames.
    allocated: u64,
    /// The position of the last stored version (0 before the first).
    last_position: u64,
    /// The payload checksum of the last group, until a seal follows it.
    unsealed: Option<u32>,
    /// Set when a failed write may have left bytes past `end` that could
    /// not be cut off yet: they are, before the next write.
    cut_pending: bool,
    /// The versions read when the store opened, until the first load.
    opened_with: Option<Vec<VersionRecord>>,
    /// Every record of a proposal in the log, in order: read when the
    /// store opens, kept as they are appended.
    reviews: Vec<ReviewRecord>,
}

impl LogStorage {
    /// Opens the store in `dir`, creating the directory (and its parents,
    /// each made durable in its own parent) and the store file if they do
    /// not exist.
    ///
    /// What follows the log's last intact frame is kept aside and cut off
    /// (see above), and a last group left unsealed by a crash is sealed,
    /// before this returns.
    pub fn open(dir: impl AsRef<Path>) -> Result<LogStorage, StoreError> {
        let mut records = Vec::new();
        let mut storage =
            LogStorage::open_with(dir.as_ref(), log_frame::collect_into(&mut records))?;
        storage
            .file
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .opened_with = Some(records);
        Ok(storage)
    }

    /// [`LogStorage::open`], applying every version the store holds to
    /// `state` (empty) as it is read, each checked to follow on, without
    /// making a [`VersionRecord`] of it (see `record_view.rs`).
    pub(crate) fn open_into(dir: &Path, state: &mut State) -> Result<LogStorage, StoreError> {
        LogStorage::open_with(dir, |payload| {
            let mut group = ApplyGroup {
                state: &mut *state,
                last: None,
                refused: None,
            };
            let mut deserializer = serde_json::Deserializer::from_slice(payload);
            let read = (&mut group)
                .deserialize(&mut deserializer)
                .and_then(|()| deserializer.end());
            if let Some(refused) = group.refused {
                return Err(GroupError::Refused(refused));
            }
            read?;
            Ok(group.last)
        })
    }

    /// Opens the store in `dir`, handing each group of versions it holds
    /// to `read_group` (see [`log_frame::scan_with`]).
    fn open_with(
        dir: &Path,
        read_group: impl FnMut(&[u8]) -> Result<Option<u64>, GroupError>,
    ) -> Result<LogStorage, StoreError> {
        let open_error = |reason: StoreReason| private_files::cannot_open(dir, reason);
        private_files::create_dir(dir)?;
        let path = dir.join(FILE_NAME);
        let mut file = private_files::file_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|error| {
                open_error(StoreReason::with_source(
                    format!("{}: {error}", path.display()),
                    error,
                ))
            })?;
        file.try_lock().map_err(|error| {
            open_error(match error {
                std::fs::TryLockError::WouldBlock => format!(
                    "{} is open already, in this process or another; one process at a time \
                     opens a store",
                    path.display()
                )
                .into(),
                std::fs::TryLockError::Error(error) => {
                    StoreReason::with_source(format!("{}: {error}", path.display()), error)
                }
            })
        })?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|error| {
            open_error(StoreReason::with_source(
                format!("{} could not be read: {error}", path.display()),
                error,
            ))
        })?;
        let mut reviews = Vec::new();
        let scanned =
            log_frame::scan_all(&bytes, &path.display().to_string(), read_group, |record| {
                reviews.push(record)
            })?;
        let mut tail = OpenLog {
            file,
            end: scanned.end,
            allocated: bytes.len() as u64,
            last_position: scanned.last_position,
            unsealed: scanned.unsealed,
            cut_pending: false,
            opened_with: None,
            reviews,
        };
        if tail.end == 0 {
            // New, or its creation was cut short: the header, made durable
            // with the directory entry naming the file.
            let created = tail
                .file
                .set_len(0)
                .and_then(|()| write_at(&tail.file, MAGIC, 0))
                .and_then(|()| tail.file.sync_data())
                .and_then(|()| private_files::sync_directory(dir));
            created.map_err(|error| {
                open_error(StoreReason::with_source(
                    format!("{} could not be created: {error}", path.display()),
                    error,
                ))
            })?;
            tail.end = MAGIC.len() as u64;
            tail.allocated = tail.end;
        } else if tail.allocated > tail.end {
            let cut = &bytes[usize::try_from(tail.end).unwrap_or(usize::MAX)..];
            keep_aside(&path, tail.end, cut).map_err(|error| {
                open_error(StoreReason::with_source(
                    format!(
                        "{} ends in {} bytes that were never acknowledged (from byte {}), which \
                         could not be kept aside before they are cut off: {error}",
                        path.display(),
                        cut.len(),
                        tail.end
                    ),
                    error,
                ))
            })?;
        }
        drop(bytes);
        if tail.allocated > tail.end || tail.unsealed.is_some() {
            tail.close().map_err(|error| {
                open_error(StoreReason::with_source(
                    format!(
                        "{} could not be sealed after the last lesson it holds: {error}",
                        path.display()
                    ),
                    error,
                ))
            })?;
        }
        Ok(LogStorage {
            file: Mutex::new(tail),
            path,
        })
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn tail(&self) -> MutexGuard<'_, OpenLog> {
        // Every change to the tail is made whole or undone before a panic
        // could unwind past it.
        self.file.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A failure to write, naming the file, caused by `error`.
    fn unwritable(&self, error: std::io::Error) -> StoreError {
        StoreError::Failed(StoreReason::with_source(
            self.unwritable_text(&error),
            error,
        ))
    }

    /// Why a write failed, naming the file.
    fn unwritable_text(&self, error: &dyn std::fmt::Display) -> String {
        format!(
            "{} could not be written: {error}; nothing of this write was stored",
            self.path.display()
        )
    }

    /// Every version in the file, read again.
    fn read_all(&self, tail: &OpenLog) -> Result<Vec<VersionRecord>, StoreError> {
        let mut bytes = vec![0; usize::try_from(tail.end).unwrap_or(usize::MAX)];
        let mut file = &tail.file;
        let read = file
            .seek(SeekFrom::Start(0))
            .and_then(|_| file.read_exact(&mut bytes));
        read.map_err(|error| {
            StoreError::Failed(StoreReason::with_source(
                format!("{} could not be read: {error}", self.path.display()),
                error,
            ))
        })?;
        let mut records = Vec::new();
        let name = self.path.display().to_string();
        log_frame::scan_with(&bytes, &name, log_frame::collect_into(&mut records))?;
        Ok(records)
    }
}

impl OpenLog {
    /// Cuts the file back to `end`, durably: what a failed write left
    /// there is gone, and so is the room. If that fails too, it is tried
    /// again before the next write.
    fn cut_back(&mut self) -> std::io::Result<()> {
        let cut = self
            .file
            .set_len(self.end)
            .and_then(|()| self.file.sync_data());
        self.cut_pending = cut.is_err();
        if !self.cut_pending {
            self.allocated = self.end;
        }
        cut
    }

    /// Writes `frame` at `end` and syncs it. With room too small for it,
    /// the frame is written with [`ROOM`] zeros after it, in the same write
    /// and sync; when that fails (a disk nearly full), the frame alone.
    fn write_frame(&mut self, frame: &[u8]) -> std::io::Result<()> {
        let needed = self.end + frame.len() as u64;
        if needed <= self.allocated {
            return write_at(&self.file, frame, self.end).and_then(|()| self.file.sync_data());
        }
        let mut with_room = Vec::with_capacity(frame.len() + ROOM as usize);
        with_room.extend_from_slice(frame);
        with_room.resize(frame.len() + ROOM as usize, 0);
        let written =
            write_at(&self.file, &with_room, self.end).and_then(|()| self.file.sync_data());
        if written.is_ok() {
            self.allocated = needed + ROOM;
            return written;
        }
        self.cut_back()?;
        write_at(&self.file, frame, self.end).and_then(|()| self.file.sync_data())?;
        self.allocated = needed;
        Ok(())
    }

    /// Seals the last group if it is not sealed, and cuts off the room (and
    /// anything else past `end`), in one sync: how the store leaves its
    /// file when it opens and when it closes.
    fn close(&mut self) -> std::io::Result<()> {
        if let Some(payload_crc) = self.unsealed {
            write_at(&self.file, &log_frame::seal(payload_crc), self.end)?;
            self.end += log_frame::HEADER_LEN as u64;
            self.unsealed = None;
        }
        self.file.set_len(self.end)?;
        self.allocated = self.end;
        self.file.sync_data()
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
        let (frame, payload_crc) = log_frame::group(tail.unsealed, records)
            .map_err(|error| StoreError::Failed(self.unwritable_text(&error).into()))?;
        if let Err(error) = tail.write_frame(&frame) {
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

    fn append_review(&self, record: &ReviewRecord) -> Result<(), StoreError> {
        let mut tail = self.tail();
        check_review_follows_on(&tail.reviews, record)?;
        if tail.cut_pending {
            tail.cut_back().map_err(|error| self.unwritable(error))?;
        }
        let (frame, payload_crc) = log_frame::review(tail.unsealed, record)
            .map_err(|error| StoreError::Failed(self.unwritable_text(&error).into()))?;
        if let Err(error) = tail.write_frame(&frame) {
            let _ = tail.cut_back();
            return Err(self.unwritable(error));
        }
        tail.end += frame.len() as u64;
        tail.unsealed = Some(payload_crc);
        tail.reviews.push(record.clone());
        Ok(())
    }

    fn load_reviews(&self) -> Result<Vec<ReviewRecord>, StoreError> {
        Ok(self.tail().reviews.clone())
    }

    fn load_reviews_of(&self, which: ReviewsOf<'_>) -> Result<Vec<ReviewRecord>, StoreError> {
        Ok(which.select(&self.tail().reviews))
    }
}

impl Drop for LogStorage {
    /// Seals the last group, so that damage to it is told from a crash,
    /// gives the room back, and releases the store's lock.
    fn drop(&mut self) {
        let tail = self.file.get_mut().unwrap_or_else(PoisonError::into_inner);
        if !tail.cut_pending || tail.cut_back().is_ok() {
            // A seal that did not reach the disk is one a crash cut short.
            let _ = tail.close();
        }
        // Released here, not when the file closes: a process this one
        // started shares the open file until it runs its program, and the
        // lock with it, so a store reopened at once would be "open already".
        let _ = tail.file.unlock();
    }
}

/// Applies a group's versions to `state` as they are read, keeping none:
/// each record's texts are borrowed, and freed before the next is read.
struct ApplyGroup<'s> {
    state: &'s mut State,
    /// The position of the last version applied.
    last: Option<u64>,
    /// Why a version was refused, if one was.
    refused: Option<StoreError>,
}

impl<'de> DeserializeSeed<'de> for &mut ApplyGroup<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for &mut ApplyGroup<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of versions")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut records: A) -> Result<(), A::Error> {
        while let Some(record) = records.next_element::<RecordView<'de>>()? {
            if let Err(refused) = self.state.apply_stored(&record) {
                self.refused = Some(refused);
                return Err(A::Error::custom("a version was refused"));
            }
            self.last = Some(record.position);
        }
        Ok(())
    }
}

/// Copies `cut`, the bytes from `from` to the end of the store file at
/// `path`, to a new file beside it (`knowledge.log.cut-<time>`), durably,
/// and logs it: what a store cuts off is never destroyed.
fn keep_aside(path: &Path, from: u64, cut: &[u8]) -> std::io::Result<()> {
    let stamp: String = crate::core_shared::rfc3339(now_ms())
        .chars()
        .filter(|c| !matches!(c, '-' | ':'))
        .collect();
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut kept = dir.join(format!("{FILE_NAME}.cut-{stamp}"));
    let mut copy = 1;
    let mut file = loop {
        match private_files::file_options()
            .write(true)
            .create_new(true)
            .open(&kept)
        {
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                copy += 1;
                kept = dir.join(format!("{FILE_NAME}.cut-{stamp}-{copy}"));
            }
            opened => break opened?,
        }
    };
    std::io::Write::write_all(&mut file, cut)?;
    file.sync_all()?;
    private_files::sync_directory(dir)?;
    let versions = log_frame::versions_in(cut);
    let zeros = cut.iter().all(|byte| *byte == 0);
    tracing::warn!(
        file = %path.display(),
        from,
        to = from + cut.len() as u64,
        versions,
        all_zeros = zeros,
        kept = %kept.display(),
        "the store file ends in bytes that were never acknowledged (a crash, a power cut, \
         or room the store wrote ahead); they are kept aside and cut off"
    );
    Ok(())
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
