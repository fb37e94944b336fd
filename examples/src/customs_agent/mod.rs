//! The example customs agent: an A2A v1.0 agent on the official A2A server
//! SDK (`a2a-server-lf`) that routes customs declarations by a table it can
//! be taught, and asks a person (with a teach block) when the table has no
//! rule. Learnables is the layer over the SDK's routers and the declaration
//! on its card.
//!
//! [`serve`] runs it; `examples/customs_agent.rs` is its command line.

mod card;
mod tasks;

use std::net::SocketAddr;
use std::path::PathBuf;

use std::sync::Arc;

use a2a_server::agent_card::agent_card_router;
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::{DefaultRequestHandler, InMemoryTaskStore, StaticAgentCard};
use axum::Router;
use learnables::a2a::serve::ServerLimits;
use learnables::a2a::{DeclaredCard, LearnablesLayer, LearnablesService, Principal, Tokens};
use learnables::{Knowledge, KnowledgeError};

pub use card::agent_card;
pub use tasks::{CustomsExecutor, POSITION_KEY};

use crate::{ClearanceLimit, RoutingRule, customs_declaration};

/// Where the agent serves its teacher's page.
pub const TEACHING_PAGE_PATH: &str = "/learnables/";

/// Where the agent keeps its knowledge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataLocation {
    /// The embedded store in a directory.
    Directory(PathBuf),
    /// A PostgreSQL database (`postgres://...`), shared by replicas.
    Postgres(String),
}

impl DataLocation {
    /// A `postgres://` or `postgresql://` URL is a database; anything else a
    /// directory.
    pub fn parse(text: &str) -> DataLocation {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            DataLocation::Postgres(text.to_owned())
        } else {
            DataLocation::Directory(PathBuf::from(text))
        }
    }

    /// Opens the knowledge there, with the agent's learnables registered.
    pub fn open(&self) -> Result<Knowledge, KnowledgeError> {
        let knowledge = match self {
            DataLocation::Directory(dir) => Knowledge::open(dir)?,
            DataLocation::Postgres(url) => Knowledge::connect(url)?,
        };
        register(&knowledge)?;
        Ok(knowledge)
    }
}

/// Registers the agent's learnables.
pub fn register(knowledge: &Knowledge) -> Result<(), KnowledgeError> {
    knowledge.register::<RoutingRule>()?;
    knowledge.register::<ClearanceLimit>()
}

/// A teacher: the person their lessons name, and their bearer token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Teacher {
    /// The identity lessons carry in `taughtBy`.
    pub email: String,
    /// The bearer token.
    pub token: String,
}

impl Teacher {
    /// Reads `EMAIL=TOKEN`.
    pub fn parse(text: &str) -> Result<Teacher, String> {
        let (email, token) = text
            .split_once('=')
            .ok_or_else(|| format!("`{text}` is not EMAIL=TOKEN"))?;
        if email.trim().is_empty() || token.trim().is_empty() {
            return Err(format!("`{text}` needs both an EMAIL and a TOKEN"));
        }
        Ok(Teacher {
            email: email.trim().to_owned(),
            token: token.trim().to_owned(),
        })
    }
}

/// The agent's router, for an agent reachable at `base_url`: the official
/// A2A server SDK's JSON-RPC router (over [`CustomsExecutor`] and an
/// in-memory task store) and card router (the card with the declaration on
/// it), with the [`LearnablesLayer`] over both.
pub fn router(
    knowledge: Knowledge,
    teachers: &[Teacher],
    base_url: &str,
) -> Result<Router, learnables::a2a::CardError> {
    // Teachers named on the command line are judged by their identity:
    // one that looks like a service account may not teach.
    let tokens = teachers.iter().fold(Tokens::new(), |tokens, teacher| {
        tokens.with(teacher.token.clone(), Principal::new(teacher.email.clone()))
    });
    let service = LearnablesService::new(knowledge.clone(), customs_declaration(), tokens);
    let card = agent_card(base_url);
    let handler =
        DefaultRequestHandler::new(CustomsExecutor::new(knowledge), InMemoryTaskStore::new())
            .with_capabilities(card.capabilities.clone())
            .with_default_input_modes(card.default_input_modes.clone());
    let card = DeclaredCard::new(StaticAgentCard::new(card), service.declaration().clone())?;
    Ok(jsonrpc_router(Arc::new(handler))
        .merge(agent_card_router(Arc::new(card)))
        .merge(learnables::a2a::teaching_page::router(TEACHING_PAGE_PATH))
        .layer(LearnablesLayer::new(service)))
}

/// Serves the agent on `listener` until `shutdown` resolves, with the
/// framework's default [`ServerLimits`].
pub async fn serve(
    listener: tokio::net::TcpListener,
    knowledge: Knowledge,
    teachers: &[Teacher],
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let address: SocketAddr = listener.local_addr()?;
    let router = router(knowledge, teachers, &format!("http://{address}/"))
        .map_err(|error| std::io::Error::other(error.to_string()))?;
    // Header, body and idle timeouts and a connection cap: slow or idle
    // clients cannot keep real ones out.
    learnables::a2a::serve::serve(listener, router, ServerLimits::default(), shutdown).await
}
