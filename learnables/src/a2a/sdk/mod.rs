//! Learnables with the A2A v1.0 SDK: the declaration as the SDK's
//! extension entry (feature `a2a-types`), and with its server
//! `a2a-server-lf` (feature `a2a-server`) the declaration on its card
//! ([`DeclaredCard`]), each task pinned to the knowledge it started on
//! ([`TaskPin`]), the tasks a lesson answers resumed ([`TaskResumer`]), and
//! push configs kept from clients that did not activate
//! ([`ActivatedPushConfigs`]).
//!
//! Their public paths are `learnables::a2a::*`, re-exported there; this
//! module only groups them.

#[cfg(feature = "a2a-server")]
mod declared_card;
#[cfg(feature = "a2a-server")]
mod push;
#[cfg(feature = "a2a-server")]
mod task_pin;
#[cfg(feature = "a2a-server")]
mod task_resumer;
#[cfg(all(test, feature = "a2a-types"))]
mod typed_paths;

#[cfg(feature = "a2a-server")]
pub use declared_card::DeclaredCard;
#[cfg(feature = "a2a-server")]
pub use push::ActivatedPushConfigs;
#[cfg(feature = "a2a-server")]
pub use task_pin::{TASK_POSITION_KEY, TaskPin};
#[cfg(feature = "a2a-server")]
pub(in crate::a2a) use task_resumer::resume_apart;
#[cfg(feature = "a2a-server")]
pub use task_resumer::{
    ANSWERING_LESSON_KEY, AnsweringLesson, DEFAULT_MAX_RESUMED, DEFAULT_RESUME_TIMEOUT,
    MAX_SCANNED_TASKS, Resumed, TaskResumer,
};
