//! Learnables between agents and clients over A2A v1.0: the card's
//! declaration, extension activation, teach blocks on questions, and the
//! JSON-RPC teach and show-back methods with who may call them.
//!
//! In an agent (feature `server`), [`LearnablesLayer`][layer] goes over the
//! agent's own axum/tower service, for instance the routers of the official
//! A2A server SDK `a2a-server-lf`: it answers the learnables methods, echoes
//! activation, keeps teach blocks from clients that did not activate the
//! extension, and passes everything else through untouched: the layer of
//! the crate `a2a_extensions` (any A2A extension's activation, admission,
//! typed errors and scrubbing), with Learnables as its extension. With the
//! feature `a2a-server`, [`DeclaredCard`][card] puts the declaration on the SDK's
//! card, and an `AgentExecutor` attaches teach blocks with
//! [`TeachBlockBuilder::attach_if_activated`][attach], which needs the
//! request's activation.
//!
//! The public modules, and who uses them:
//!
//! - `json_rpc`: the envelope of a JSON-RPC request and its errors, for an
//!   application that calls [`LearnablesService::call`] itself (outside
//!   the layer, over a transport of its own) and for clients and tests
//!   that read an answer's error codes and reasons. Its `success` has no
//!   caller in this workspace.
//! - `serve` (feature `server`): an agent serving on the open network,
//!   with timeouts and a connection cap `axum::serve` lacks; the example
//!   agent serves through it.
//! - `teaching_page` (feature `teaching-page`): an agent that serves the
//!   teacher's page, and links a question to it.
//!
//! The rest is private and re-exported here, by concern: the methods
//! (`methods/`, one file each) and the service that dispatches to them
//! (`service.rs`); the layer and the scrubbing of teach blocks; the
//! integration with the A2A SDK (`sdk/`, features `a2a-types` and
//! `a2a-server`).
//!
// Links to items behind features: to the items when they are built, to
// the crate's table of features when they are not.
#![cfg_attr(feature = "server", doc = "[layer]: LearnablesLayer")]
#![cfg_attr(not(feature = "server"), doc = "[layer]: crate#features")]
#![cfg_attr(feature = "a2a-server", doc = "[card]: DeclaredCard")]
#![cfg_attr(not(feature = "a2a-server"), doc = "[card]: crate#features")]
#![cfg_attr(
    feature = "a2a-server",
    doc = "[attach]: TeachBlockBuilder::attach_if_activated"
)]
#![cfg_attr(not(feature = "a2a-server"), doc = "[attach]: crate#features")]

mod activation;
mod ask_tool;
pub mod json_rpc;
mod message_error;
mod methods;
#[cfg(feature = "oidc")]
pub mod oidc;
mod service;
mod service_accounts;
mod service_admission;
mod service_call;
mod suggestion;
mod teach_block;
mod teachers;
mod token_refusal;
mod unknown_field;
mod untyped_builder;

#[cfg(feature = "server")]
mod layer;
mod review_view;
#[cfg(feature = "a2a-types")]
mod sdk;
#[cfg(feature = "server")]
pub mod serve;
#[cfg(feature = "server")]
mod service_router;
#[cfg(feature = "teaching-page")]
pub mod teaching_page;

#[cfg(feature = "server")]
pub use a2a_extensions::NoExtensionMetadata as CarriesNoTeachBlock;
#[cfg(feature = "server")]
pub use a2a_extensions::{MAX_EVENT, ScrubError};
#[cfg(feature = "server")]
pub use layer::ResponseScrubber;
#[cfg(feature = "server")]
pub use layer::{LearnablesLayer, LearnablesMiddleware};
#[cfg(feature = "a2a-server")]
pub use sdk::{
    ANSWERING_LESSON_KEY, ActivatedPushConfigs, AnsweringLesson, DEFAULT_MAX_RESUMED,
    DEFAULT_RESUME_TIMEOUT, DeclaredCard, MAX_SCANNED_TASKS, Resumed, TASK_POSITION_KEY, TaskPin,
    TaskResumer,
};

#[cfg(feature = "grpc")]
pub use a2a_extensions::grpc::GrpcExtensionLayer;
pub use activation::Activation;
pub use ask_tool::{
    ASK_TOOL_NAME, AskRefused, AskTool, AskedQuestion, MAX_ASKED_ENTRIES, MAX_QUESTION_CHARS,
    MODEL_SUGGESTION_LABEL,
};
pub use learnables_core::{CardDeclaration, CardError};
pub use message_error::MessageError;
pub use methods::history::{DEFAULT_PAGE, HistoryPage, HistoryParams, HistoryVersion, MAX_PAGE};
pub use methods::show_back::{ShowBack, ShowBackParams};
pub use review_view::{OpenProposal, RejectedProposal};
pub use service::LearnablesService;
pub use service_accounts::{ServiceAccountRules, service_account_sign};
#[cfg(feature = "server")]
pub use service_router::CARD_PATH;
pub use suggestion::RefusedSuggestion;
pub use teach_block::{TeachBlock, TeachBlockBuilder};
pub use teachers::{
    Authenticator, DuplicateToken, HumansOnly, Principal, TeacherPolicy, TokenTableError, Tokens,
    Verifying,
};
pub use token_refusal::TokenRefusal;
pub use unknown_field::UnknownField;
pub use untyped_builder::{SuggestionError, UntypedTeachBlockBuilder};
