//! The Rust framework for the A2A **Learnables** extension
//! (`https://rsaxb.com/a2a/learnables/v1`).
//!
//! An agent publishes what it can be taught, attaches a teachable proposal to
//! a question it asks, and absorbs a person's answer as a new, immutable
//! version of its knowledge. This crate holds the spec's wire types, the
//! [`Learnable`] trait with its derive, run-time validation of the spec's
//! rules, and the extension's declaration.
//!
//! # A knowledge type
//!
//! ```
//! use learnables::{Choice, Declaration, Learnable, Lesson, LessonValue, TEACH_METHOD};
//!
//! #[derive(Learnable, Debug, Clone, PartialEq)]
//! #[learnable(
//!     collection = "routing_rules",
//!     entry = "routing rule",
//!     teaches = "Which desk handles a declaration",
//!     how = "A table keyed on the HS chapter; anything unmatched goes to the general desk",
//!     decided_by = "rules",
//!     skills("route-declaration"),
//!     describes = "Chapter {chapter} declarations now go to the {desk} desk",
//! )]
//! pub struct RoutingRule {
//!     /// HS chapter
//!     ///
//!     /// Two-digit chapter of the Harmonized System.
//!     pub chapter: u8,
//!     /// Desk
//!     #[learnable(default = "general")]
//!     pub desk: Desk,
//!     /// Note for the broker
//!     pub note: Option<String>,
//! }
//!
//! #[derive(Choice, Debug, Clone, Copy, PartialEq)]
//! pub enum Desk {
//!     General,
//!     DangerousGoods,
//!     #[choice(rename = "cold chain")]
//!     Perishables,
//! }
//!
//! // The spec's LearnableDescriptor, exactly:
//! let descriptor = serde_json::to_value(RoutingRule::descriptor()).unwrap();
//! assert_eq!(descriptor, serde_json::json!({
//!     "collection": "routing_rules",
//!     "entry": "routing rule",
//!     "skills": ["route-declaration"],
//!     "teaches": "Which desk handles a declaration",
//!     "how": "A table keyed on the HS chapter; anything unmatched goes to the general desk",
//!     "decidedBy": "rules",
//!     "lessonFields": [
//!         {"name": "chapter", "label": "HS chapter", "kind": "text",
//!          "help": "Two-digit chapter of the Harmonized System.",
//!          "valueType": "integer", "minimum": 0, "maximum": 255},
//!         {"name": "desk", "label": "Desk", "kind": "choice",
//!          "choices": ["general", "dangerous-goods", "cold chain"], "default": "general"},
//!         {"name": "note", "label": "Note for the broker", "kind": "text", "help": "Optional."}
//!     ]
//! }));
//!
//! // A teacher's answer, as a form sends it, parsed into the type:
//! let value = LessonValue::try_from(serde_json::json!({"chapter": "85", "desk": "cold chain"}))
//!     .unwrap();
//! let lesson = Lesson::new("routing_rules", "85", value, "alice@example.com");
//! let rule: RoutingRule = lesson.parse().unwrap();
//! assert_eq!(rule, RoutingRule { chapter: 85, desk: Desk::Perishables, note: None });
//! assert_eq!(rule.describes("85"), "Chapter 85 declarations now go to the cold chain desk");
//!
//! // Every bad field is reported, each by name:
//! let bad = LessonValue::try_from(serde_json::json!({"chapter": "x", "desk": "urgent"})).unwrap();
//! let error = RoutingRule::from_lesson_value(&bad).unwrap_err();
//! assert_eq!(error.field(), Some("chapter"));
//! assert_eq!(error.problems().len(), 2);
//!
//! // The agent card's extension entry:
//! let declaration = Declaration::new().learnable::<RoutingRule>().teach_method(TEACH_METHOD);
//! assert!(declaration.validate().is_ok());
//! let extension = serde_json::to_value(declaration.agent_extension()).unwrap();
//! assert_eq!(extension["params"]["learnables"][0], descriptor);
//! ```
//!
//! # Untrusted text
//!
//! Text that came from outside (a card, a lesson, an error an agent sent)
//! reaches a terminal or a log through [`untrusted::Untrusted`]: escaped,
//! on one line unless asked otherwise, and bounded.
//!
//! # Field types
//!
//! A field's type decides its kind, through the trait system: a type that
//! derives [`Choice`] is a `choice` field with the enum's choices; any other
//! type that implements `FromStr` and `Display` is a `text` field; `Option<T>`
//! may be absent from a lesson. Lesson values arrive as JSON strings (what a
//! form sends); numbers and booleans are accepted where the field's type
//! parses their text.
//!
//! # A tour
//!
//! - [`knowledge`]: what an agent has been taught. [`Knowledge`] keeps
//!   every version of every collection; `knowledge.teach(&lesson)` absorbs a
//!   [`Lesson`] through its learnable and makes a new version (or learns
//!   nothing, when the value is already known); `knowledge.pin()` gives a
//!   [`Snapshot`] that a task reads from until it ends, untouched by later
//!   lessons. It lives in memory ([`Knowledge::in_memory`]), in an embedded
//!   durable store (`Knowledge::open(dir)`, feature `embedded`), or in
//!   PostgreSQL shared by replicas (`Knowledge::connect(url)`, feature
//!   `postgres`).
//! - [`a2a`]: Learnables between agents over A2A v1.0. The
//!   [`Declaration`] goes on the agent card; a question carries a
//!   [`TeachBlock`] for clients that activated the extension;
//!   [`a2a::LearnablesService`] answers the teach and show-back methods and
//!   decides who may teach; [`a2a::LearnablesLayer`][layer] (feature `server`)
//!   puts all of it in front of an agent's own axum/tower service, such as
//!   the official A2A server SDK's routers, passing the agent's own traffic
//!   through untouched.
//!
//! # Adding Learnables to an agent on the official A2A server SDK
//!
//! The agent keeps its executor, request handler, task store and routers;
//! the declaration joins its card through a card producer, and the layer
//! goes over its routers (feature `a2a-server`):
//!
//! ```
//! # #[cfg(feature = "a2a-server")]
//! # mod agent {
//! use std::sync::Arc;
//! use a2a_server::agent_card::agent_card_router;
//! use a2a_server::jsonrpc::jsonrpc_router;
//! use a2a_server::{AgentExecutor, DefaultRequestHandler, InMemoryTaskStore, StaticAgentCard};
//! use learnables::a2a::{DeclaredCard, LearnablesLayer, LearnablesService, Tokens};
//! use learnables::{Declaration, Knowledge, TEACH_METHOD};
//!
//! pub fn router(
//!     executor: impl AgentExecutor,
//!     card: a2a::AgentCard,
//!     knowledge: Knowledge,
//!     teachers: Tokens,
//! ) -> Result<axum::Router, learnables::a2a::CardError> {
//!     let declaration = Declaration::new().teach_method(TEACH_METHOD); // .learnable::<T>() ...
//!     let handler = DefaultRequestHandler::new(executor, InMemoryTaskStore::new());
//!     let card = DeclaredCard::new(StaticAgentCard::new(card), declaration.clone())?;
//!     let learnables = LearnablesService::new(knowledge, declaration, teachers);
//!     Ok(jsonrpc_router(Arc::new(handler))
//!         .merge(agent_card_router(Arc::new(card)))
//!         .layer(LearnablesLayer::new(learnables)))
//! }
//! # }
//! ```
//!
//! `LearnablesService::new` registers in the knowledge every learnable the
//! declaration declares, so the card and the knowledge are one list;
//! `LearnablesService::try_new` returns, rather than panics on, stored
//! versions that do not read (the report of every one) or a declaration
//! the knowledge disagrees with.
//!
//! In the executor, [`TaskPin::of`][pin] gives the knowledge the task
//! pinned on its first message, the same on every later turn (its
//! position recorded in the task) but the one after a lesson answers the
//! question it waits on, which the service's `TaskResumer` sends it
//! (`LearnablesService::resuming`); a question's teach block goes on
//! the reply with [`TeachBlockBuilder::attach_if_activated`][attach],
//! which does nothing unless the request activated the extension; the
//! layer removes any block that reaches a client that did not, whatever
//! the executor did. The README's "Add it to your agent" is a whole agent
//! built so, and `examples/src/customs_agent` a larger one.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `derive` | yes | `#[derive(Learnable)]` and `#[derive(Choice)]` |
//! | `embedded` | yes | `Knowledge::open`: the durable embedded store, one log file ([`knowledge::LogStorage`][log]) |
//! | `postgres` | no | `Knowledge::connect`: knowledge in PostgreSQL, shared by replicas |
//! | `tokio` | no | `Knowledge::teach_async` (the task waits for the store, not its thread), `catch_up_async` |
//! | `server` | no | `tokio`, plus [`a2a::LearnablesLayer`][layer] and `LearnablesService::router` (axum, tower) |
//! | `a2a-types` (formerly `a2a-lf`) | no | conversions to and from the card and message types of the A2A SDK `a2a-lf` |
//! | `rustls-ring`, `rustls-aws-lc-rs` | no | TLS (of `postgres`) uses the process's installed rustls crypto provider; these install `ring`'s or `aws-lc-rs`'s (preferred when both are on) if none is; without them and with none installed, a TLS connection is refused saying so |
//! | `a2a-server` | no | `server` and `a2a-types`, plus the official server SDK `a2a-server-lf`: `DeclaredCard`, `TaskPin`, `TaskResumer`, and teach blocks attached from an `AgentExecutor` only with activation |
//!
// Links to items behind features: to the items when they are built, to
// the table of features when they are not.
#![cfg_attr(feature = "embedded", doc = "[log]: knowledge::LogStorage")]
#![cfg_attr(not(feature = "embedded"), doc = "[log]: #features")]
#![cfg_attr(feature = "server", doc = "[layer]: a2a::LearnablesLayer")]
#![cfg_attr(not(feature = "server"), doc = "[layer]: #features")]
#![cfg_attr(
    feature = "a2a-server",
    doc = "[attach]: a2a::TeachBlockBuilder::attach_if_activated"
)]
#![cfg_attr(not(feature = "a2a-server"), doc = "[attach]: #features")]
#![cfg_attr(feature = "a2a-server", doc = "[pin]: a2a::TaskPin::of")]
#![cfg_attr(not(feature = "a2a-server"), doc = "[pin]: #features")]
// On docs.rs (nightly, `--cfg docsrs`), each item behind a feature shows the
// feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_debug_implementations)]

extern crate self as learnables;

/// The crate README's example, compiled and run as a doc-test.
#[cfg(all(doctest, feature = "derive"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;

pub mod a2a;
pub mod knowledge;
#[cfg(feature = "mcp")]
pub mod mcp;
pub use learnables_core::{identity, untrusted};

// The core's modules, at the paths the server side and the store name them.
use learnables_core::__shared as shared;

pub use a2a::TeachBlock;
pub use knowledge::{Knowledge, KnowledgeError, Snapshot, TeachError};
pub use learnables_core::{
    ACTIVATION_HEADER, AgentExtension, Choice, ChoiceError, Decision, Declaration,
    DeclarationParams, EXTENSION_URI, FieldBound, FieldErrors, FieldKind, FieldRef, LIST_SEPARATOR,
    Learnable, LearnableDescriptor, Lesson, LessonError, LessonField, LessonProblem, LessonResult,
    LessonValue, NotAnObject, RETRACT_METHOD, REVIEW_METHOD, Rendering, Review, ReviewRule,
    SHOW_BACK_METHOD, TEACH_METHOD, TEACHER_METHOD, Violation, Violations,
};
pub use learnables_core::{SCHEMA_DIALECT, lesson_schema, strict_lesson_schema};
// Named at the crate's root, the compiler's notes on a field type the
// derive refuses read `LessonFieldOf<..>` and `DefaultIsAChoice<..>`, not
// the path of the derive's support.
/// The one check of a field's value against its descriptor's field.
pub use learnables_core::field_check;
#[doc(hidden)]
pub use learnables_core::{DefaultIsAChoice, LessonFieldOf};

/// Support for the code `#[derive(Learnable)]` generates. Not a public API:
/// it may change in any release.
#[doc(hidden)]
pub use learnables_core::__private;
