//! Knowledge: immutable versions of what an agent has been taught, pinned
//! snapshots for running tasks, and the back ends that keep the versions.
//!
//! Each lesson absorbed makes one new version of its collection (a linear
//! history per collection, `definitionVersion` 1, 2, 3, ...) and one new
//! position of the whole knowledge. A [`Snapshot`] pinned before the lesson
//! keeps seeing the knowledge as it was.
//!
//! The parts: [`Knowledge`] (the handle, in `knowledge.rs`), the commit loop
//! that decides and stores each batch of lessons (`commit.rs`) on the
//! commit thread (`committer.rs`), the state pins share (`state.rs`: every
//! version once, compact (`change.rs`), in an append-only log
//! (`append_log.rs`), each collection's entries indexed by key
//! (`entry_index.rs`)), a thread's last pin (`pin_cache.rs`), and the back
//! ends (`storage/`).

mod append_log;
#[cfg(feature = "tokio")]
mod async_calls;
mod change;
mod commit;
mod committer;
#[cfg(feature = "postgres")]
mod connect;
mod entry_index;
mod error;
mod id_index;
// The handle is the concept this module is named after.
#[allow(clippy::module_inception)]
mod knowledge;
mod off_runtime;
mod pin_cache;
mod registry;
mod same_text;
mod snapshot;
mod state;
mod storage;
mod text_blocks;
mod version_record;

pub use error::{KnowledgeError, TeachError};
pub use knowledge::{DEFAULT_COMMIT_TIMEOUT, Knowledge};
pub use snapshot::{CollectionVersion, Snapshot};
#[cfg(feature = "embedded")]
pub use storage::LogStorage;
#[cfg(feature = "postgres")]
pub use storage::PostgresStorage;
pub use storage::{MemoryStorage, Redecide, Storage, StoreError, Wake};
pub use version_record::VersionRecord;
