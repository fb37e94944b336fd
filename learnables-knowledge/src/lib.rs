//! The versioned store of the A2A **Learnables** extension: immutable
//! versions of what an agent has been taught, pinned snapshots for running
//! tasks, and the back ends that keep the versions (an embedded log file,
//! memory, PostgreSQL behind the feature `postgres`).
//!
//! Agents use it through the `learnables` crate, which re-exports it as
//! `learnables::knowledge` (and [`Knowledge`], [`Snapshot`],
//! [`KnowledgeError`] and [`TeachError`] at its root), with the same
//! feature names. It depends on `learnables-core` (the wire types and the
//! `Learnable` trait) and on no web server or A2A SDK.
//!
//! Each lesson absorbed makes one new version of its collection (a linear
//! history per collection, `definitionVersion` 1, 2, 3, ...) and one new
//! position of the whole knowledge. A [`Snapshot`] pinned before the lesson
//! keeps seeing the knowledge as it was.
//!
//! # Which type is a version, for whom
//!
//! - [`VersionRecord`]: one version whole, owned: what a [`Storage`] back
//!   end stores and loads, and what [`Knowledge::history`],
//!   [`Snapshot::entry_records`] and [`Snapshot::retraction`] give a
//!   reader of the history.
//! - [`EntryVersion`]: one version of one entry for the agent's own code,
//!   from [`Snapshot::entry_history`]: its [`VersionRecord`] and its value
//!   read as the learnable's type, a [`VersionValue`] (taught, unreadable,
//!   or retracted).
//! - [`CollectionVersion`]: only the ids of a collection's latest version
//!   as a snapshot sees it ([`Snapshot::version`]), what a lesson's result
//!   and show-back name.
//!
//! Inside the module, a version is a `Version` (`version.rs`: the node the
//! states share, its value kept as compact JSON) and, while one is made, a
//! `RecordView` (`record_view.rs`: a record's fields borrowed from a lesson
//! or read from a store's bytes, so that neither is copied first).
//!
//! # The parts
//!
//! [`Knowledge`] (the handle, in `knowledge.rs`; what its handles share,
//! and the steps of registering and teaching, in `shared.rs`), the single
//! writer that decides each batch of lessons, has the back end store it
//! and publishes the new state (`writer.rs`; pins read the latest through
//! `latest.rs`, as lessons read the registry of learnables), the commit
//! thread of a durable back end (`commit_thread.rs`), the state pins share
//! (`state.rs`: persistent maps of shared versions, `version.rs`, each
//! collection's entries in the order of `entry_key.rs`; what only grows,
//! kept once for all states, in `published.rs`), what registering
//! a type finds that does not read (`unreadable.rs`), and the back ends
//! (`storage/`). One entry's history, newest first, is read in
//! `entry_history.rs`, what each version changed in `change_between.rs`;
//! reverting and retracting an entry in `revert.rs`; a knowledge leaves its
//! store as JSON Lines (`export.rs`) and enters another (`import.rs`).

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_debug_implementations)]

// The code `#[derive(Learnable)]` generates names `::learnables::...`,
// which the core provides; only this crate's own tests derive.
#[cfg(test)]
extern crate learnables_core as learnables;

// What the store names from the core, at the paths its files use.
use learnables_core::__shared as core_shared;
#[cfg(test)]
use learnables_core::FieldKind;
use learnables_core::{
    Decision, Declaration, Learnable, Lesson, LessonError, LessonField, LessonProblem,
    LessonResult, LessonValue, Review, ReviewRule, Violations,
};
use learnables_core::{identity, untrusted};

mod approved;
#[cfg(feature = "tokio")]
mod async_calls;
mod change_between;
mod checked_line;
mod commit_thread;
mod entry_history;
mod entry_key;
mod error;
mod export;
mod import;
mod imported_reviews;
mod imported_version;
mod knowledge;
mod latest;
mod off_runtime;
mod proposal;
mod proposal_limits;
mod proposal_lines;
mod published;
mod record_view;
mod registry;
mod revert;
mod review;
mod shared;
mod snapshot;
mod state;
mod storage;
mod unreadable;
mod version;
mod version_record;
mod writer;

pub use change_between::{FieldChange, field_changes};
pub use entry_history::{EntryVersion, VersionValue};
pub use error::{
    Disagreement, ImportError, KnowledgeError, ProposalsOf, StoreError, StoreReason, TeachError,
    review_reasons,
};
pub use knowledge::Knowledge;
pub use proposal::{Approval, Proposal, ProposalStatus, ReviewEvent, ReviewRecord};
pub use proposal_limits::ProposalLimits;
pub use shared::DEFAULT_COMMIT_TIMEOUT;
pub use snapshot::{CollectionVersion, Snapshot};
#[cfg(feature = "embedded")]
pub use storage::LogStorage;
#[cfg(feature = "postgres")]
pub use storage::PostgresStorage;
pub use storage::{MemoryStorage, Redecide, ReviewsOf, Storage, Wake};
pub use unreadable::{OnUnreadable, UnreadableCause, UnreadableReport};
pub use version_record::VersionRecord;
