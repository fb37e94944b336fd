//! The example customs agent: an A2A v1.0 agent on the official A2A server
//! SDK (`a2a-server-lf`) that routes customs declarations by a table it can
//! be taught, and asks a person (with a teach block) when the table has no
//! rule. Learnables is the layer over the SDK's routers and the declaration
//! on its card.
//!
//! [`serve`] runs it; [`command_line`] is what `examples/customs_agent.rs`
//! runs.

mod card;
pub mod command_line;
mod grpc_agent;
pub mod moving_house;
mod sign_in;
mod task_store;
pub(crate) mod tasks;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use a2a_grpc::GrpcHandler;
use a2a_pb::proto::a2a_service_server::A2aServiceServer;
use a2a_server::agent_card::agent_card_router;
use a2a_server::jsonrpc::jsonrpc_router;
use a2a_server::{DefaultRequestHandler, HttpPushSender, InMemoryPushConfigStore, StaticAgentCard};
use axum::Router;
use learnables::a2a::serve::ServerLimits;
use learnables::a2a::{
    ActivatedPushConfigs, Authenticator, CardError, DeclaredCard, LearnablesLayer,
    LearnablesService, Principal, TaskResumer, TokenTableError, Tokens,
};
use learnables::knowledge::OnUnreadable;
use learnables::untrusted::Untrusted;
use learnables::{Knowledge, KnowledgeError};

pub use card::{agent_card, agent_card_with_grpc};
pub use grpc_agent::{Bindings, GrpcAgent};
pub use sign_in::{OidcTeachers, openid_card, serve_oidc};
pub use task_store::{
    BoundedTaskStore, DEFAULT_MAX_HISTORY, DEFAULT_MAX_TASK_BYTES, DEFAULT_TASK_CAPACITY,
};
pub use tasks::{CustomsExecutor, POSITION_KEY};

use crate::customs_declaration;

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

    /// Opens the knowledge there. Its learnables are registered when the
    /// agent's service is built ([`router`]), from the declaration.
    pub fn open(&self) -> Result<Knowledge, KnowledgeError> {
        match self {
            DataLocation::Directory(dir) => Knowledge::open(dir),
            DataLocation::Postgres(url) => Knowledge::connect(url),
        }
    }
}

/// Registers what the agent declares ([`customs_declaration`]), for code
/// that teaches its knowledge without the service: the one list the
/// service registers too. Stored versions that do not read are refused
/// with the report of all of them.
pub fn register(knowledge: &Knowledge) -> Result<(), KnowledgeError> {
    knowledge
        .register_declaration(&customs_declaration(), OnUnreadable::Refuse)
        .map(drop)
}

/// A teacher: the person their lessons name, and their bearer token. Its
/// `Debug` never shows the token.
#[derive(Clone, PartialEq, Eq)]
pub struct Teacher {
    /// The identity lessons carry in `taughtBy`.
    pub email: String,
    /// The bearer token.
    pub token: String,
}

impl std::fmt::Debug for Teacher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Teacher")
            .field("email", &self.email)
            .field("token", &"<redacted>")
            .finish()
    }
}

/// The environment variable that may hold teachers: `EMAIL=TOKEN` entries
/// separated by commas or line breaks.
pub const TEACHERS_VARIABLE: &str = "LEARNABLES_TEACHERS";

impl Teacher {
    /// Reads `EMAIL=TOKEN`. An error never repeats the token.
    ///
    /// ```
    /// use learnables_examples::customs_agent::Teacher;
    /// let alice = Teacher::parse("alice@example.com=s3cret").unwrap();
    /// assert_eq!(alice.token, "s3cret");
    /// assert!(!Teacher::parse("=s3cret").unwrap_err().contains("s3cret"));
    /// assert!(!Teacher::parse("s3cret").unwrap_err().contains("s3cret"));
    /// ```
    pub fn parse(text: &str) -> Result<Teacher, String> {
        let Some((email, token)) = text.split_once('=') else {
            return Err("a teacher is EMAIL=TOKEN, and this has no `=`".into());
        };
        let (email, token) = (email.trim(), token.trim());
        if email.is_empty() {
            return Err("a teacher is EMAIL=TOKEN, and this has no EMAIL before the `=`".into());
        }
        if token.is_empty() {
            return Err(format!(
                "the teacher `{}` has no TOKEN after the `=`",
                Untrusted::new(email).max_chars(320)
            ));
        }
        Ok(Teacher {
            email: email.to_owned(),
            token: token.to_owned(),
        })
    }

    /// Reads teachers from a file's text: one `EMAIL=TOKEN` a line; blank
    /// lines and lines starting with `#` are skipped. An error names the
    /// line, never its token.
    ///
    /// ```
    /// use learnables_examples::customs_agent::Teacher;
    /// let teachers = Teacher::parse_lines("# desk leads\n\nalice@example.com=t1\n").unwrap();
    /// assert_eq!(teachers.len(), 1);
    /// assert_eq!(
    ///     Teacher::parse_lines("alice@example.com=t1\n=t2").unwrap_err(),
    ///     "line 2: a teacher is EMAIL=TOKEN, and this has no EMAIL before the `=`"
    /// );
    /// ```
    pub fn parse_lines(text: &str) -> Result<Vec<Teacher>, String> {
        parse_entries(text.lines(), "line")
    }

    /// Reads teachers from [`TEACHERS_VARIABLE`]'s value: `EMAIL=TOKEN`
    /// entries separated by commas or line breaks. An error names the
    /// entry by its number, never its token.
    ///
    /// ```
    /// use learnables_examples::customs_agent::Teacher;
    /// let teachers = Teacher::parse_list("alice@example.com=t1, bob@example.com=t2").unwrap();
    /// assert_eq!(teachers[1].email, "bob@example.com");
    /// ```
    pub fn parse_list(text: &str) -> Result<Vec<Teacher>, String> {
        parse_entries(text.split([',', '\n']), "entry")
    }
}

/// The largest teachers file read.
pub const MAX_TEACHERS_FILE_BYTES: u64 = 1024 * 1024;

impl Teacher {
    /// Every teacher the command line gives: each `--teacher` argument,
    /// the lines of the `--teachers` file, and the entries of
    /// [`TEACHERS_VARIABLE`]'s value, refusing a token given to two
    /// teachers. No error shows a token.
    ///
    /// ```
    /// use learnables_examples::customs_agent::Teacher;
    /// let arguments = ["alice@example.com=t1".to_owned()];
    /// let teachers = Teacher::gather(&arguments, None, Some("bob@example.com=t2")).unwrap();
    /// assert_eq!(teachers.len(), 2);
    /// let error = Teacher::gather(&["=t1".to_owned()], None, None).unwrap_err();
    /// assert!(error.starts_with("--teacher number 1:") && !error.contains("t1"));
    /// ```
    pub fn gather(
        arguments: &[String],
        file: Option<&Path>,
        variable: Option<&str>,
    ) -> Result<Vec<Teacher>, String> {
        let mut teachers = Vec::new();
        for (at, text) in arguments.iter().enumerate() {
            teachers.push(
                Teacher::parse(text)
                    .map_err(|error| format!("--teacher number {}: {error}", at + 1))?,
            );
        }
        if let Some(path) = file {
            let text = read_bounded(path).map_err(|error| {
                format!("cannot read the teachers file {}: {error}", path.display())
            })?;
            teachers.extend(
                Teacher::parse_lines(&text)
                    .map_err(|error| format!("the teachers file {}, {error}", path.display()))?,
            );
        }
        if let Some(text) = variable {
            teachers.extend(
                Teacher::parse_list(text)
                    .map_err(|error| format!("{TEACHERS_VARIABLE}, {error}"))?,
            );
        }
        tokens(&teachers).map_err(|error| error.to_string())?;
        Ok(teachers)
    }
}

/// A file's text, refused past [`MAX_TEACHERS_FILE_BYTES`].
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_TEACHERS_FILE_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_TEACHERS_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "it is larger than {MAX_TEACHERS_FILE_BYTES} bytes"
        )));
    }
    Ok(text)
}

fn parse_entries<'a>(
    entries: impl Iterator<Item = &'a str>,
    what: &str,
) -> Result<Vec<Teacher>, String> {
    entries
        .enumerate()
        .filter(|(_, entry)| !entry.trim().is_empty() && !entry.trim_start().starts_with('#'))
        .map(|(at, entry)| {
            Teacher::parse(entry).map_err(|error| format!("{what} {}: {error}", at + 1))
        })
        .collect()
}

/// The token table of `teachers`; a token given to two teachers is an
/// error, as are look-alike teachers and names no teacher can have. Teachers
/// are judged by their identity: one that looks like a
/// service account may not teach.
pub fn tokens(teachers: &[Teacher]) -> Result<Tokens, TokenTableError> {
    teachers.iter().try_fold(Tokens::new(), |tokens, teacher| {
        tokens.try_with(teacher.token.clone(), Principal::new(teacher.email.clone()))
    })
}

/// Why the agent's router could not be made.
#[derive(Debug)]
pub enum RouterError {
    /// The declaration does not fit the card.
    Card(CardError),
    /// The teachers do not make a token table: a token shared, a look-alike
    /// second teacher, or a name no teacher can have.
    Tokens(TokenTableError),
    /// The knowledge cannot be served with the declaration: stored
    /// versions that do not read as today's types (the report of every
    /// one), or a registration that failed.
    Knowledge(KnowledgeError),
}

impl std::fmt::Display for RouterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RouterError::Card(error) => error.fmt(f),
            RouterError::Tokens(error) => error.fmt(f),
            RouterError::Knowledge(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for RouterError {}

/// The agent's router, for an agent reachable at `base_url`: the official
/// A2A server SDK's JSON-RPC router (over [`CustomsExecutor`] and a
/// [`BoundedTaskStore`] of the default size) and card router (the card
/// with the declaration on it), with the [`LearnablesLayer`] over both. A
/// lesson resumes the tasks waiting on the question it answers
/// ([`TaskResumer`]).
pub fn router(
    knowledge: Knowledge,
    teachers: &[Teacher],
    base_url: &str,
) -> Result<Router, RouterError> {
    router_with(knowledge, teachers, base_url, BoundedTaskStore::default())
}

/// [`router`] over the given task store.
pub fn router_with(
    knowledge: Knowledge,
    teachers: &[Teacher],
    base_url: &str,
    task_store: BoundedTaskStore,
) -> Result<Router, RouterError> {
    crate::install_crypto_provider();
    router_with_push_sender(
        knowledge,
        teachers,
        base_url,
        task_store,
        HttpPushSender::new(None),
    )
}

/// [`router_with`], its push notifications sent by `push_sender` (the
/// SDK's default sender refuses local and private addresses; a test's
/// endpoint on 127.0.0.1 needs one that does not).
pub fn router_with_push_sender(
    knowledge: Knowledge,
    teachers: &[Teacher],
    base_url: &str,
    task_store: BoundedTaskStore,
    push_sender: HttpPushSender,
) -> Result<Router, RouterError> {
    router_over(
        knowledge,
        teachers,
        base_url,
        task_store,
        push_sender,
        |knowledge, page_url| CustomsExecutor::new(knowledge).with_teaching_page(page_url),
    )
}

/// [`router_with_push_sender`] over the executor `executor` makes of the
/// knowledge and the teacher's page's URL: the customs agent's card,
/// declaration, teachers, task store and routers, whatever decides its
/// tasks (the model agent's executor is another).
pub fn router_over<E>(
    knowledge: Knowledge,
    teachers: &[Teacher],
    base_url: &str,
    task_store: BoundedTaskStore,
    push_sender: HttpPushSender,
    executor: impl FnOnce(Knowledge, String) -> E,
) -> Result<Router, RouterError>
where
    E: a2a_server::AgentExecutor + 'static,
{
    let tokens = tokens(teachers).map_err(RouterError::Tokens)?;
    router_authenticated(
        knowledge,
        tokens,
        agent_card(base_url),
        base_url,
        task_store,
        push_sender,
        executor,
    )
}

/// The customs agent's router with its teachers authenticated by
/// `authenticator` and `card` (which says how teachers sign in): what an
/// agent whose teachers an identity provider vouches for serves.
pub fn router_signed_in(
    knowledge: Knowledge,
    authenticator: impl Authenticator,
    card: a2a::AgentCard,
    base_url: &str,
    task_store: BoundedTaskStore,
    push_sender: HttpPushSender,
) -> Result<Router, RouterError> {
    router_authenticated(
        knowledge,
        authenticator,
        card,
        base_url,
        task_store,
        push_sender,
        |knowledge, page_url| CustomsExecutor::new(knowledge).with_teaching_page(page_url),
    )
}

/// [`router_over`] with its teachers authenticated by `authenticator` (a
/// token table, an OpenID Connect provider) and `card` (which says how
/// teachers sign in).
pub fn router_authenticated<E>(
    knowledge: Knowledge,
    authenticator: impl Authenticator,
    card: a2a::AgentCard,
    base_url: &str,
    task_store: BoundedTaskStore,
    push_sender: HttpPushSender,
    executor: impl FnOnce(Knowledge, String) -> E,
) -> Result<Router, RouterError>
where
    E: a2a_server::AgentExecutor + 'static,
{
    bindings_authenticated(
        knowledge,
        authenticator,
        card,
        base_url,
        task_store,
        push_sender,
        executor,
    )
    .map(|bindings| bindings.json_rpc)
}

/// The agent's [`Bindings`], reachable at `base_url` on JSON-RPC and at
/// `grpc` (`HOST:PORT`) on gRPC, both on the card.
pub fn bindings(
    knowledge: Knowledge,
    teachers: &[Teacher],
    base_url: &str,
    grpc: Option<&str>,
    task_store: BoundedTaskStore,
    push_sender: HttpPushSender,
) -> Result<Bindings, RouterError> {
    let tokens = tokens(teachers).map_err(RouterError::Tokens)?;
    bindings_authenticated(
        knowledge,
        tokens,
        agent_card_with_grpc(base_url, grpc),
        base_url,
        task_store,
        push_sender,
        |knowledge, page_url| CustomsExecutor::new(knowledge).with_teaching_page(page_url),
    )
}

/// The agent on both bindings over one request handler: its teachers
/// authenticated by `authenticator`, its `card`, its tasks decided by the
/// executor `executor` makes of the knowledge and the teacher's page's URL.
pub fn bindings_authenticated<E>(
    knowledge: Knowledge,
    authenticator: impl Authenticator,
    card: a2a::AgentCard,
    base_url: &str,
    task_store: BoundedTaskStore,
    push_sender: HttpPushSender,
    executor: impl FnOnce(Knowledge, String) -> E,
) -> Result<Bindings, RouterError>
where
    E: a2a_server::AgentExecutor + 'static,
{
    // Registers what the declaration declares: the card and the knowledge
    // are one list, and stored versions an earlier build wrote that do not
    // read stop the agent here, all of them reported.
    let service =
        LearnablesService::try_new(knowledge.clone(), customs_declaration(), authenticator)
            .map_err(RouterError::Knowledge)?;
    let page_url = format!("{}{}", base_url.trim_end_matches('/'), TEACHING_PAGE_PATH);
    let executor = executor(knowledge, page_url);
    let handler = Arc::new(
        DefaultRequestHandler::new(executor, task_store)
            .with_capabilities(card.capabilities.clone())
            .with_default_input_modes(card.default_input_modes.clone())
            // Push notifications, registered only by clients that activated
            // Learnables: the SDK sends them outside the layer.
            .with_push_notifications(
                ActivatedPushConfigs::new(InMemoryPushConfigStore::new()),
                push_sender,
            ),
    );
    // A lesson resumes the tasks waiting on the question it answers,
    // through the handler: the SDK stores each task's next turn and tells
    // its subscribers.
    let service = service.resuming(TaskResumer::new(handler.clone()));
    let card = DeclaredCard::new(StaticAgentCard::new(card), service.declaration().clone())
        .map_err(RouterError::Card)?;
    let grpc = GrpcAgent {
        layer: Some(service.grpc_layer()),
        service: A2aServiceServer::from_arc(Arc::new(GrpcHandler::new(handler.clone()))),
    };
    let json_rpc = jsonrpc_router(handler)
        .merge(agent_card_router(Arc::new(card)))
        .merge(learnables::a2a::teaching_page::router(TEACHING_PAGE_PATH))
        .layer(LearnablesLayer::new(service));
    Ok(Bindings { json_rpc, grpc })
}

/// The same agent without Learnables: the SDK's routers over the same
/// executor and card, with neither the layer nor the declaration. What the
/// layer changes for a client that does not use the extension is measured
/// against this (the A2A TCK comparison).
pub fn router_without_learnables(knowledge: Knowledge, base_url: &str) -> Router {
    bindings_without_learnables(knowledge, base_url, None).json_rpc
}

/// [`router_without_learnables`] with the SDK's gRPC server beside it
/// (no layer), at `grpc` on the card.
pub fn bindings_without_learnables(
    knowledge: Knowledge,
    base_url: &str,
    grpc: Option<&str>,
) -> Bindings {
    let card = agent_card_with_grpc(base_url, grpc);
    let executor = CustomsExecutor::new(knowledge);
    let handler = Arc::new(
        DefaultRequestHandler::new(executor, BoundedTaskStore::default())
            .with_capabilities(card.capabilities.clone())
            .with_default_input_modes(card.default_input_modes.clone())
            .with_push_config_store(InMemoryPushConfigStore::new()),
    );
    let grpc = GrpcAgent {
        layer: None,
        service: A2aServiceServer::from_arc(Arc::new(GrpcHandler::new(handler.clone()))),
    };
    let json_rpc =
        jsonrpc_router(handler).merge(agent_card_router(Arc::new(StaticAgentCard::new(card))));
    Bindings { json_rpc, grpc }
}

/// Serves the agent on `listener` until `shutdown` resolves, with the
/// framework's default [`ServerLimits`].
pub async fn serve(
    listener: tokio::net::TcpListener,
    knowledge: Knowledge,
    teachers: &[Teacher],
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(
        listener,
        knowledge,
        teachers,
        BoundedTaskStore::default(),
        shutdown,
    )
    .await
}

/// [`serve`] over the given task store.
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    knowledge: Knowledge,
    teachers: &[Teacher],
    task_store: BoundedTaskStore,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let address: SocketAddr = listener.local_addr()?;
    let router = router_with(
        knowledge,
        teachers,
        &format!("http://{address}/"),
        task_store,
    )
    .map_err(|error| std::io::Error::other(error.to_string()))?;
    // Header, body and idle timeouts and a connection cap: slow or idle
    // clients cannot keep real ones out.
    learnables::a2a::serve::serve(listener, router, ServerLimits::default(), shutdown).await
}
