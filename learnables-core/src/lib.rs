//! The core of the A2A **Learnables** extension
//! (`https://rsaxb.com/a2a/learnables/v1`): what every other part builds on
//! and that itself depends on no server, store or SDK.
//!
//! - the spec's wire types ([`LearnableDescriptor`], [`LessonField`],
//!   [`Lesson`], [`LessonValue`], [`LessonResult`], [`DeclarationParams`]);
//! - the [`Learnable`] and [`Choice`] traits, with their derives (feature
//!   `derive`), and a learnable type's registration;
//! - the [`Declaration`] an agent card carries, and the card section read
//!   back ([`CardDeclaration`]);
//! - run-time validation of the spec's rules ([`Violations`]) and a
//!   lesson's field errors ([`LessonError`]);
//! - [`untrusted`] text: what came from outside, escaped for a terminal or
//!   a log.
//!
//! Agents use these through the `learnables` crate, which re-exports every
//! public item here at the same name; this crate is for code that needs the
//! types without a server or a store.
//!
//! ```
//! # extern crate learnables_core as learnables;
//! use learnables_core::{Lesson, LessonValue};
//!
//! let value = LessonValue::try_from(serde_json::json!({"desk": "general"})).unwrap();
//! let lesson = Lesson::new("routing_rules", "85", value, "alice@example.com");
//! assert_eq!(lesson.entry, "85");
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_debug_implementations)]

// The derive names `::learnables::...`; inside this crate that is itself.
extern crate self as learnables;

/// The crate README's example, compiled and run as a doc-test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

mod card;
mod choice;
mod constants;
mod declaration;
#[allow(missing_debug_implementations)] // generated code's helpers, never printed
mod derive_support;
pub mod field_check;
mod field_ref;
pub mod identity;
mod key_name;
mod learnable;
mod lesson_error;
mod registration;
mod timestamp;
pub mod untrusted;
mod validation;
mod wire;

pub use card::{CardDeclaration, CardError};
pub use choice::{Choice, ChoiceError};
pub use constants::{
    ACTIVATION_HEADER, EXTENSION_URI, RETRACT_METHOD, REVIEW_METHOD, SHOW_BACK_METHOD,
    TEACH_METHOD, TEACHER_METHOD,
};
pub use declaration::{AgentExtension, Declaration};
pub use field_ref::FieldRef;
pub use learnable::Learnable;
pub use lesson_error::{FieldErrors, LessonError, LessonProblem};
pub use validation::{Violation, Violations};
pub use wire::{
    Decision, DeclarationParams, FieldBound, FieldKind, LIST_SEPARATOR, LearnableDescriptor,
    Lesson, LessonField, LessonResult, LessonValue, NotAnObject, Rendering, Review, ReviewRule,
};

#[cfg(feature = "derive")]
#[doc = include_str!("derive_support/learnable.md")]
pub use learnables_derive::Learnable;

#[cfg(feature = "derive")]
#[doc = include_str!("derive_support/choice.md")]
pub use learnables_derive::Choice;
// Named at the crate's root, the compiler's notes on a field type the
// derive refuses read `LessonFieldOf<..>` and `DefaultIsAChoice<..>`, not
// the path of the derive's support.
#[doc(hidden)]
pub use derive_support::{DefaultIsAChoice, FieldOf as LessonFieldOf};

/// Support for the code `#[derive(Learnable)]` generates. Not a public API:
/// it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::derive_support::*;
}

/// What the other learnables crates (the store, the server side) share
/// with this one and users never name. Not a public API: it may change in
/// any release.
#[doc(hidden)]
pub mod __shared {
    #[cfg(feature = "a2a-types")]
    pub use crate::card::card_json;
    pub use crate::key_name::KeyName;
    pub use crate::lesson_error::shortened;
    pub use crate::registration::{Registration, Taught, Unfit};
    pub use crate::timestamp::rfc3339;
    pub use crate::validation::Report;
}
