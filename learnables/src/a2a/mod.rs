//! Learnables between agents and clients over A2A v1.0: the card's
//! declaration, extension activation, teach blocks on questions, and the
//! JSON-RPC teach and show-back methods with who may call them.
//!
//! In an agent (feature `server`), [`LearnablesLayer`][layer] goes over the
//! agent's own axum/tower service, for instance the routers of the official
//! A2A server SDK `a2a-server-lf`: it answers the learnables methods, echoes
//! activation, keeps teach blocks from clients that did not activate the
//! extension, and passes everything else through untouched. With the
//! feature `a2a-server`, [`DeclaredCard`][card] puts the declaration on the SDK's
//! card, and an `AgentExecutor` attaches teach blocks with
//! [`TeachBlockBuilder::attach_if_activated`][attach], which needs the
//! request's activation.
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
pub mod json_rpc;
mod message_error;
mod rpc_error;
mod service;
mod service_accounts;
mod service_params;
mod show_back;
mod show_back_history;
mod teach_block;
mod teachers;
mod unknown_field;

#[cfg(feature = "a2a-server")]
mod declared_card;
#[cfg(feature = "server")]
mod json_scrub;
#[cfg(feature = "server")]
mod layer;
#[cfg(feature = "server")]
mod method_scan;
#[cfg(feature = "a2a-server")]
mod push;
#[cfg(feature = "server")]
mod replay;
mod retraction;
#[cfg(feature = "server")]
mod scrub;
#[cfg(feature = "server")]
mod scrub_error;
#[cfg(feature = "server")]
mod scrubbed_body;
#[cfg(feature = "server")]
mod scrubbed_events;
#[cfg(feature = "server")]
mod scrubbed_response;
#[cfg(feature = "a2a-types")]
mod sdk;
#[cfg(feature = "server")]
pub mod serve;
#[cfg(feature = "server")]
mod service_router;
#[cfg(feature = "a2a-server")]
mod task_pin;
#[cfg(feature = "a2a-server")]
mod task_resumer;
#[cfg(feature = "teaching-page")]
pub mod teaching_page;
#[cfg(feature = "server")]
mod uri_scan;

#[cfg(feature = "a2a-server")]
pub use declared_card::DeclaredCard;
#[cfg(feature = "server")]
pub use layer::{LearnablesLayer, LearnablesMiddleware};
#[cfg(feature = "a2a-server")]
pub use push::ActivatedPushConfigs;
#[cfg(feature = "server")]
pub use scrub::{CarriesNoTeachBlock, ResponseScrubber};
#[cfg(feature = "server")]
pub use scrub_error::{MAX_EVENT, ScrubError};
#[cfg(feature = "a2a-server")]
pub use task_pin::{TASK_POSITION_KEY, TaskPin};
#[cfg(feature = "a2a-server")]
pub use task_resumer::{
    ANSWERING_LESSON_KEY, AnsweringLesson, DEFAULT_MAX_RESUMED, DEFAULT_RESUME_TIMEOUT,
    MAX_SCANNED_TASKS, Resumed, TaskResumer,
};

pub use activation::Activation;
pub use learnables_core::{CardDeclaration, CardError};
pub use message_error::MessageError;
pub use service::LearnablesService;
pub use service_accounts::{ServiceAccountRules, service_account_sign};
#[cfg(feature = "server")]
pub use service_router::CARD_PATH;
pub use show_back::{ShowBack, ShowBackParams};
pub use show_back_history::{DEFAULT_PAGE, HistoryPage, HistoryParams, HistoryVersion, MAX_PAGE};
pub use teach_block::{TeachBlock, TeachBlockBuilder, UntypedTeachBlockBuilder};
pub use teachers::{Authenticator, DuplicateToken, HumansOnly, Principal, TeacherPolicy, Tokens};
pub use unknown_field::UnknownField;
