//! A small agent that learns a list and a checked number: which desks an HS
//! chapter may go to (a `Vec<Desk>`, a multi-select) and the chapter's limit
//! in euros (a `range` check), served with its card and the teaching page.
//! The end-to-end tests teach it through the page, the command and
//! `learnables mcp`.

use std::sync::Arc;

use a2a::{AgentCapabilities, AgentCard, AgentInterface, TRANSPORT_PROTOCOL_JSONRPC};
use a2a_server::StaticAgentCard;
use a2a_server::agent_card::agent_card_router;
use axum::Router;
use axum::routing::post;
use learnables::a2a::{DeclaredCard, LearnablesLayer, LearnablesService, Tokens};
use learnables::{Declaration, Knowledge, Learnable, TEACH_METHOD};

use crate::{Chapter, Desk};

/// Where the agent serves the teaching page.
///
/// ```
/// assert_eq!(learnables_examples::desk_plan_agent::TEACHING_PAGE_PATH, "/learnables/");
/// ```
pub const TEACHING_PAGE_PATH: &str = "/learnables/";

/// The desks a chapter's declarations may go to, and the most a broker may
/// clear alone for it.
///
/// ```
/// use learnables::{Learnable, LessonValue};
/// use learnables_examples::Desk;
/// use learnables_examples::desk_plan_agent::DeskPlan;
/// let value = LessonValue::try_from(serde_json::json!(
///     {"desks": ["general", "cold chain"], "limit_eur": "5000"}
/// ))
/// .unwrap();
/// let plan = DeskPlan::from_lesson_entry("85", &value).unwrap();
/// assert_eq!(plan.desks, vec![Desk::General, Desk::Perishables]);
/// assert_eq!(plan.limit_eur, 5000);
/// ```
#[derive(Learnable, Debug, Clone, PartialEq)]
#[learnable(
    collection = "desk_plans",
    entry = "desk plan",
    teaches = "Which desks a chapter's declarations may go to, and up to what amount",
    how = "A plan per HS chapter, set by the customs office",
    decided_by = "rules",
    describes = "Chapter {chapter} may go to the {desks} desks, up to EUR {limit_eur}"
)]
pub struct DeskPlan {
    /// HS chapter
    #[learnable(entry_key)]
    pub chapter: Chapter,
    /// Desks the chapter may go to
    pub desks: Vec<Desk>,
    /// Limit in euros
    #[learnable(range(min = 100, max = 1000000))]
    pub limit_eur: u32,
}

/// The agent's router for an agent reachable at `base_url`: its card (the
/// declaration on it), the teaching page at [`TEACHING_PAGE_PATH`], and the
/// Learnables methods on `/` through the [`LearnablesLayer`]; every other
/// JSON-RPC method is refused (the agent does no task work).
///
/// ```
/// use learnables::Knowledge;
/// use learnables::a2a::Tokens;
/// let router = learnables_examples::desk_plan_agent::router(
///     Knowledge::in_memory(),
///     Tokens::new(),
///     "http://127.0.0.1:8080/",
/// );
/// assert!(router.is_ok());
/// ```
pub fn router(
    knowledge: Knowledge,
    teachers: Tokens,
    base_url: &str,
) -> Result<Router, Box<dyn std::error::Error>> {
    let declaration = Declaration::new()
        .learnable::<DeskPlan>()
        .teach_method(TEACH_METHOD);
    let service = LearnablesService::try_new(knowledge, declaration.clone(), teachers)?;
    let card = DeclaredCard::new(StaticAgentCard::new(card(base_url)), declaration)?;
    Ok(Router::new()
        .route("/", post(no_task_work))
        .merge(agent_card_router(Arc::new(card)))
        .merge(learnables::a2a::teaching_page::router(TEACHING_PAGE_PATH))
        .layer(LearnablesLayer::new(service)))
}

/// A JSON-RPC method the layer does not answer: refused as not found.
async fn no_task_work() -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": -32601, "message": "this agent answers the Learnables methods only"}}))
}

fn card(base_url: &str) -> AgentCard {
    AgentCard {
        name: "Desk plans".into(),
        description: "Learns which desks a chapter may go to, and up to what amount".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        supported_interfaces: vec![AgentInterface::new(base_url, TRANSPORT_PROTOCOL_JSONRPC)],
        capabilities: AgentCapabilities::default(),
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: Vec::new(),
        provider: None,
        documentation_url: None,
        icon_url: None,
        security_schemes: None,
        security_requirements: None,
        signatures: None,
    }
}

/// Serves the agent on `listener` until `shutdown` resolves, with the
/// framework's default server limits.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use learnables::Knowledge;
/// use learnables::a2a::{Principal, Tokens};
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// let teachers = Tokens::new().with("t0ken", Principal::human("alice@example.com"));
/// learnables_examples::desk_plan_agent::serve(
///     listener,
///     Knowledge::in_memory(),
///     teachers,
///     std::future::pending(),
/// )
/// .await?;
/// # Ok(())
/// # }
/// ```
pub async fn serve(
    listener: tokio::net::TcpListener,
    knowledge: Knowledge,
    teachers: Tokens,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error>> {
    let address = listener.local_addr()?;
    let router = router(knowledge, teachers, &format!("http://{address}/"))?;
    learnables::a2a::serve::serve(listener, router, Default::default(), shutdown).await?;
    Ok(())
}
