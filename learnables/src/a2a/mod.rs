//! Learnables between agents and clients over A2A v1.0: the card's
//! declaration, extension activation, teach blocks on questions, and the
//! JSON-RPC teach and show-back methods with who may call them. The
//! [`server`] module (feature `server`) mounts it all on axum.

mod activation;
mod card;
pub mod json_rpc;
mod message;
mod service;
mod show_back;
mod teach_block_builder;
mod teachers;

#[cfg(feature = "a2a-lf")]
mod sdk;
#[cfg(feature = "server")]
pub mod serve;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "teaching-page")]
pub mod teaching_page;

pub use activation::Activation;
pub use card::{CardDeclaration, CardError};
pub use message::MessageError;
pub use service::LearnablesService;
pub use show_back::{ShowBack, ShowBackParams};
pub use teach_block_builder::{TeachBlockBuilder, UnknownField, UntypedTeachBlockBuilder};
pub use teachers::{
    Authenticator, HumansOnly, Principal, TeacherPolicy, Tokens, service_account_sign,
};
