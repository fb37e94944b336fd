//! Knowledge: immutable versions of what an agent has been taught, pinned
//! snapshots for running tasks, and the back ends that keep the versions:
//! the crate `learnables-knowledge`, re-exported whole.
//!
//! See [`Knowledge`] to open, teach and pin, [`Snapshot`] to read, and
//! [`VersionRecord`] for a version as back ends keep it.

pub use learnables_knowledge::*;
