//! A whole learning agent in one file: the README's "Add it to your agent",
//! word for word. Run it with `cargo run --example refunds_agent -- 127.0.0.1:8080`.
use std::process::ExitCode;
use std::sync::Arc;

use a2a::{A2AError, AgentCard, Message, Part, Role, StreamResponse, Task, TaskState, TaskStatus};
use a2a_server::StaticAgentCard;
use a2a_server::agent_card::agent_card_router;
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::{AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore};
use futures::stream::{self, BoxStream};
use learnables::a2a::{DeclaredCard, LearnablesLayer, LearnablesService, Principal, TaskPin};
use learnables::a2a::{TaskResumer, Tokens};
use learnables::{Declaration, Knowledge, Learnable, TEACH_METHOD, TeachBlock};

/// Who approves a shop's refunds.
#[derive(Learnable, Clone, Debug)]
#[learnable(
    collection = "refund_approvers",
    entry = "shop",
    teaches = "Who approves a shop's refunds",
    how = "One person per shop, named by the finance team",
    decided_by = "rules",
    describes = "{approver} approves refunds at {entry}"
)]
pub struct RefundApprover {
    /// Approver
    pub approver: String,
}

/// The agent's own work: each task reads the knowledge it pinned on its first message.
pub struct Refunds {
    knowledge: Knowledge,
}

impl Refunds {
    fn answer(&self, context: &ExecutorContext) -> Result<Task, A2AError> {
        let pin = TaskPin::of(&self.knowledge, context);
        // On the turn a teacher's lesson resumes, `context.message` is the library's
        // "A teacher answered…" message: the version that answered names the shop asked about.
        let shop = match pin.answered_by() {
            Some(answer) => answer.entry.clone(),
            None => last_word(context.message.as_ref()),
        };
        let (text, state) = match pin.get::<RefundApprover>(&shop) {
            Some(rule) => (
                format!("{} approves it.", rule.approver),
                TaskState::Completed,
            ),
            None => (
                format!("Who approves refunds at {shop}?"),
                TaskState::InputRequired,
            ),
        };
        let mut reply = Message::new(Role::Agent, vec![Part::text(text)]);
        if state == TaskState::InputRequired {
            // The question's teach block, only for a client that activated Learnables.
            let block = TeachBlock::builder::<RefundApprover>([shop.as_str()]);
            block
                .attach_if_activated(context, &mut reply)
                .map_err(|error| A2AError::internal(error.to_string()))?;
        }
        let mut task = context.stored_task.clone().unwrap_or_else(|| Task {
            id: context.task_id.clone(),
            context_id: context.context_id.clone(),
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: None,
            },
            artifacts: None,
            history: None,
            metadata: None,
        });
        task.status = TaskStatus {
            state,
            message: Some(reply),
            timestamp: None,
        };
        pin.record(&mut task); // where the task's next turn finds its pin
        Ok(task)
    }
}

/// The last word of a message's text: the shop in "Who approves refunds at north".
fn last_word(message: Option<&Message>) -> String {
    let text = message.and_then(|message| message.parts.iter().find_map(Part::as_text));
    let word = text
        .and_then(|text| text.split_whitespace().last())
        .unwrap_or_default();
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

impl AgentExecutor for Refunds {
    fn execute(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let event = self.answer(&context).map(StreamResponse::Task);
        Box::pin(stream::once(async move { event }))
    }

    fn cancel(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let error = A2AError::task_not_cancelable(&context.task_id);
        Box::pin(stream::once(async move { Err(error) }))
    }
}

/// The agent: the SDK's routers with the learnables layer over them.
pub fn app(
    knowledge: Knowledge,
    teachers: Tokens,
) -> Result<axum::Router, Box<dyn std::error::Error>> {
    let declaration = Declaration::new()
        .learnable::<RefundApprover>()
        .teach_method(TEACH_METHOD);
    // The card and the knowledge are one list; stored versions that do not read are refused.
    let learnables = LearnablesService::try_new(knowledge.clone(), declaration.clone(), teachers)?;
    // One handler, shared: the router serves it, and a lesson resumes the task that asked.
    let handler = Arc::new(DefaultRequestHandler::new(
        Refunds { knowledge },
        InMemoryTaskStore::new(),
    ));
    let learnables = learnables.resuming(TaskResumer::new(handler.clone()));
    let card: AgentCard = serde_json::from_value(serde_json::json!({
        "name": "Refunds", "description": "Says who approves a shop's refunds", "version": "1.0.0",
        "supportedInterfaces": [], "capabilities": {},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
    }))?;
    let card = DeclaredCard::new(StaticAgentCard::new(card), declaration)?;
    Ok(jsonrpc_router(handler)
        .merge(agent_card_router(Arc::new(card)))
        .layer(LearnablesLayer::new(learnables)))
}

/// Serves the agent at the address its first argument names; says why, in words, when it cannot.
pub fn main() -> ExitCode {
    match serve() {
        Ok(()) => ExitCode::SUCCESS,
        // A start-up report says which stored versions do not read, and the fixes.
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    // Knowledge::open(dir)? keeps it on disk; Knowledge::connect(url)? on PostgreSQL.
    let teachers = Tokens::new().with("t0ken", Principal::human("alice@example.com"));
    let app = app(Knowledge::in_memory(), teachers)?;
    tokio::runtime::Runtime::new()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(&address).await?;
        println!("Refunds agent on http://{address}/ (teacher alice@example.com, token t0ken)");
        axum::serve(listener, app).await?;
        Ok(())
    })
}
