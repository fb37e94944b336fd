//! The example customs agent: an A2A v1.0 agent over JSON-RPC that routes
//! customs declarations by a table it can be taught, and asks a person
//! (with a teach block) when the table has no rule.
//!
//! [`serve`] runs it; `examples/customs_agent.rs` is its command line.

mod card;
mod tasks;

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use learnables::a2a::{Activation, LearnablesService, Principal, Tokens};
use learnables::{Knowledge, KnowledgeError};

pub use card::agent_card;
pub use tasks::{POSITION_KEY, Tasks};

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

#[derive(Clone)]
struct AgentState {
    knowledge: Knowledge,
    tasks: Tasks,
}

/// The agent's router: the card, the learnables methods, and the agent's
/// own `SendMessage` and `GetTask`, for an agent reachable at `base_url`.
pub fn router(
    knowledge: Knowledge,
    teachers: &[Teacher],
    base_url: &str,
) -> Result<Router, learnables::a2a::CardError> {
    let tokens = teachers.iter().fold(Tokens::new(), |tokens, teacher| {
        tokens.with(
            teacher.token.clone(),
            Principal::human(teacher.email.clone()),
        )
    });
    let own = Router::new()
        .route("/", post(own_methods))
        .with_state(AgentState {
            knowledge: knowledge.clone(),
            tasks: Tasks::default(),
        })
        .merge(learnables::a2a::teaching_page::router(TEACHING_PAGE_PATH));
    // The router serves the card as JSON, with the declaration added.
    let card = serde_json::to_value(agent_card(base_url))
        .map_err(|_| learnables::a2a::CardError::Shape("body", "object"))?;
    LearnablesService::new(knowledge, customs_declaration(), tokens).router(card, own)
}

async fn own_methods(
    State(state): State<AgentState>,
    headers: HeaderMap,
    body: Bytes,
) -> axum::Json<serde_json::Value> {
    let activation = Activation::from_headers(&headers);
    axum::Json(state.tasks.answer(&state.knowledge, &activation, &body))
}

/// Serves the agent on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    knowledge: Knowledge,
    teachers: &[Teacher],
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let address: SocketAddr = listener.local_addr()?;
    let router = router(knowledge, teachers, &format!("http://{address}/"))
        .map_err(|error| std::io::Error::other(error.to_string()))?;
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
}
