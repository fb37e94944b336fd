//! The example agent's command line: what `cargo run --example
//! customs_agent` runs, options, shutdown and all.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::OnceLock;

use axum::Router;
use clap::{CommandFactory, FromArgMatches, Parser};
use learnables::Knowledge;

use super::{
    BoundedTaskStore, DEFAULT_MAX_HISTORY, DEFAULT_TASK_CAPACITY, DataLocation, RouterError,
    Teacher,
};

/// The program's name in what it prints: `customs_agent` unless an agent
/// that reuses this command line says otherwise ([`main_as`]).
static PROGRAM: OnceLock<&'static str> = OnceLock::new();

fn program() -> &'static str {
    PROGRAM.get().copied().unwrap_or("customs_agent")
}

/// Routes customs declarations by what it has been taught, and asks a person
/// (with a Learnables teach block) when it has no rule.
#[derive(Parser, Debug)]
#[command(name = "customs_agent", version, about, long_about = None)]
pub struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Also serve A2A's gRPC binding here (plain HTTP/2, as the JSON-RPC
    /// side is plain HTTP), on the card beside JSON-RPC; the Learnables
    /// methods stay on JSON-RPC.
    #[arg(long, value_name = "ADDR")]
    grpc: Option<SocketAddr>,
    /// Where to keep the knowledge: a directory (the embedded store), or a
    /// postgres:// URL shared by replicas.
    #[arg(long, default_value = "customs-data")]
    data: String,
    /// A person who may teach, as EMAIL=TOKEN (repeatable). With no teacher
    /// from here, --teachers or LEARNABLES_TEACHERS, a demo teacher is made
    /// and its token printed. A token on the command line is visible to
    /// other users of the machine: prefer --teachers or the environment.
    #[arg(long = "teacher", value_name = "EMAIL=TOKEN")]
    teacher: Vec<String>,
    /// A file of teachers: one EMAIL=TOKEN a line; blank lines and lines
    /// starting with `#` are skipped.
    #[arg(long = "teachers", value_name = "FILE")]
    teachers_file: Option<PathBuf>,
    /// Instead of a token table: the OpenID Connect provider whose people
    /// teach (its issuer, https://...). Tokens are its JWTs for
    /// --oidc-audience; the card names its discovery document. An
    /// http://127.0.0.1 (or localhost) issuer is allowed for tests and
    /// local providers only.
    #[arg(long, value_name = "URL", requires = "oidc_audience", conflicts_with_all = ["teacher", "teachers_file"])]
    oidc_issuer: Option<String>,
    /// The audience the provider's tokens name for this agent.
    #[arg(long, value_name = "AUD", requires = "oidc_issuer")]
    oidc_audience: Option<String>,
    /// The most bytes of tasks kept in memory (each task counted as its
    /// JSON); the oldest finished tasks make room first.
    #[arg(long, value_name = "BYTES", default_value_t = super::DEFAULT_MAX_TASK_BYTES)]
    max_task_bytes: usize,
    /// Instead of serving: move the knowledge at --data out or in.
    #[command(subcommand)]
    command: Option<Command>,
}

/// What the agent does instead of serving.
#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Writes every version of the knowledge to FILE as JSON Lines.
    Export {
        /// The file to write.
        file: PathBuf,
    },
    /// Reads FILE, written by `export`, into the knowledge, which must be
    /// empty (from any back end into any other).
    Import {
        /// The file to read.
        file: PathBuf,
    },
}

/// Runs the agent as its command line says, until `SIGTERM` or Ctrl-C:
/// then it stops accepting, lets the requests in flight finish (8 s at
/// most), closes its knowledge (which seals the store's log) and exits 0.
/// Exits 1, with a line on standard error, when it cannot start.
pub fn main() {
    main_as(
        "customs_agent",
        "Routes customs declarations by what it has been taught, and asks a person (with a \
         Learnables teach block) when it has no rule.",
        super::router_with,
    );
}

/// [`main`] for another agent on the customs agent's knowledge and command
/// line: `name` and `about` in its help and what it prints, and the router
/// `router` makes of the knowledge, the teachers, the agent's base URL and
/// the task store (the model agent's is one).
pub fn main_as<R>(name: &'static str, about: &'static str, router: R)
where
    R: FnOnce(Knowledge, &[Teacher], &str, BoundedTaskStore) -> Result<Router, RouterError>
        + Send
        + 'static,
{
    let _ = PROGRAM.set(name);
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let matches = Args::command().name(name).about(about).get_matches();
    let args = Args::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    if let Some(command) = &args.command {
        let location = DataLocation::parse(&args.data);
        let done = match command {
            Command::Export { file } => super::moving_house::export(&location, file)
                .map(|count| format!("exported {count} versions to {}", file.display())),
            Command::Import { file } => super::moving_house::import(&location, file)
                .map(|count| format!("imported {count} versions from {}", file.display())),
        };
        match done {
            Ok(message) => println!("{message}"),
            Err(error) => fail(&error),
        }
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|error| fail(&format!("cannot start: {error}")));
    runtime.block_on(run(args, router));
    // Every task the agent spawned ends here, and with them the last
    // handles to the knowledge: the store is closed, its log sealed.
    drop(runtime);
    tracing::info!("stopped; the knowledge is closed");
}

async fn run<R>(args: Args, router: R)
where
    R: FnOnce(Knowledge, &[Teacher], &str, BoundedTaskStore) -> Result<Router, RouterError>
        + Send
        + 'static,
{
    if let (Some(issuer), Some(audience)) = (&args.oidc_issuer, &args.oidc_audience) {
        // Teachers from a provider are served over the customs agent's own
        // executor; another agent on this command line takes a token table.
        if PROGRAM.get().is_some_and(|name| *name != "customs_agent") {
            fail("--oidc-issuer is served by the customs agent only; give --teacher here");
        }
        return run_oidc(&args, issuer, audience).await;
    }
    let variable = match std::env::var(super::TEACHERS_VARIABLE) {
        Ok(text) => Some(text),
        Err(std::env::VarError::NotPresent) => None,
        Err(std::env::VarError::NotUnicode(_)) => {
            fail(&format!("{} is not valid UTF-8", super::TEACHERS_VARIABLE))
        }
    };
    let given = Teacher::gather(
        &args.teacher,
        args.teachers_file.as_deref(),
        variable.as_deref(),
    );
    let mut teachers = given.unwrap_or_else(|error| fail(&error));
    if teachers.is_empty() {
        let demo = Teacher {
            email: "demo@example.com".into(),
            token: uuid::Uuid::now_v7().simple().to_string(),
        };
        println!("demo teacher: {} token: {}", demo.email, demo.token);
        teachers.push(demo);
    }
    if teachers.len() < 2 {
        // Clearance limits are reviewed: their author never approves them.
        println!(
            "clearance limits wait for another teacher's approval: give a second --teacher \
             to approve them"
        );
    }
    let location = DataLocation::parse(&args.data);
    let knowledge = match tokio::task::spawn_blocking(move || location.open()).await {
        Ok(Ok(knowledge)) => knowledge,
        Ok(Err(error)) => fail(&format!("cannot open the knowledge: {error}")),
        Err(error) => fail(&format!("cannot open the knowledge: {error}")),
    };
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .unwrap_or_else(|error| fail(&format!("cannot listen on {}: {error}", args.addr)));
    let address = listener.local_addr().map_or(args.addr, |address| address);
    let grpc_listener = match args.grpc {
        Some(grpc) => Some(
            tokio::net::TcpListener::bind(grpc)
                .await
                .unwrap_or_else(|error| fail(&format!("cannot listen on {grpc}: {error}"))),
        ),
        None => None,
    };
    let grpc_address = grpc_listener
        .as_ref()
        .and_then(|listener| listener.local_addr().ok())
        .map(|address| address.to_string());
    let task_store = BoundedTaskStore::new(DEFAULT_TASK_CAPACITY, DEFAULT_MAX_HISTORY)
        .with_max_bytes(args.max_task_bytes);
    // Building the router registers the declared learnables, reading every
    // stored version: refused, the agent does not start, and says why.
    let base_url = format!("http://{address}/");
    // gRPC beside JSON-RPC over one request handler is the customs
    // agent's: another agent on this command line serves JSON-RPC.
    if grpc_listener.is_some() && PROGRAM.get().is_some_and(|name| *name != "customs_agent") {
        fail("--grpc is served by the customs agent only");
    }
    let grpc_at = grpc_address.clone();
    let built = tokio::task::spawn_blocking(move || match grpc_at {
        Some(grpc_at) => {
            crate::install_crypto_provider();
            super::bindings(
                knowledge,
                &teachers,
                &base_url,
                Some(&grpc_at),
                task_store,
                a2a_server::HttpPushSender::new(None),
            )
            .map(|bindings| (bindings.json_rpc, Some(bindings.grpc)))
        }
        None => router(knowledge, &teachers, &base_url, task_store).map(|router| (router, None)),
    })
    .await;
    let (router, grpc) = match built {
        Ok(Ok(both)) => both,
        Ok(Err(error)) => fail(&format!("cannot start: {error}")),
        Err(error) => fail(&format!("cannot start: {error}")),
    };
    println!(
        "{} listening on http://{address}/ (card: http://{address}/.well-known/agent-card.json)",
        program().replace('_', " ")
    );
    println!(
        "teacher's page: http://{address}{}",
        super::TEACHING_PAGE_PATH
    );
    // gRPC stops once the JSON-RPC side has.
    let (stop_grpc, grpc_stopped) = tokio::sync::oneshot::channel::<()>();
    let grpc_served = grpc_listener.zip(grpc).map(|(listener, grpc)| {
        if let Some(grpc_address) = &grpc_address {
            println!("gRPC (A2A's gRPC binding, plain HTTP/2) on {grpc_address}");
        }
        tokio::spawn(grpc.serve(listener, async {
            let _ = grpc_stopped.await;
        }))
    });
    let served = learnables::a2a::serve::serve(
        listener,
        router,
        learnables::a2a::serve::ServerLimits::default(),
        stop_signal(),
    )
    .await;
    let _ = stop_grpc.send(());
    if let Some(grpc_served) = grpc_served {
        match grpc_served.await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => fail(&format!("the gRPC server stopped: {error}")),
            Err(error) => fail(&format!("the gRPC server stopped: {error}")),
        }
    }
    if let Err(error) = served {
        fail(&format!("the agent stopped: {error}"));
    }
}

/// The agent with its teachers an OpenID Connect provider vouches for.
async fn run_oidc(args: &Args, issuer: &str, audience: &str) {
    let teachers = super::OidcTeachers {
        issuer: issuer.to_owned(),
        audience: audience.to_owned(),
        loopback_http: true,
    };
    let authenticator = teachers
        .authenticator()
        .await
        .unwrap_or_else(|error| fail(&format!("cannot start: {error}")));
    let location = DataLocation::parse(&args.data);
    let knowledge = match tokio::task::spawn_blocking(move || location.open()).await {
        Ok(Ok(knowledge)) => knowledge,
        Ok(Err(error)) => fail(&format!("cannot open the knowledge: {error}")),
        Err(error) => fail(&format!("cannot open the knowledge: {error}")),
    };
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .unwrap_or_else(|error| fail(&format!("cannot listen on {}: {error}", args.addr)));
    let address = listener.local_addr().map_or(args.addr, |address| address);
    println!("customs agent listening on http://{address}/ (teachers sign in with {issuer})");
    if let Err(error) = super::serve_oidc(listener, knowledge, authenticator, stop_signal()).await {
        fail(&format!("the agent stopped: {error}"));
    }
}

/// Resolves on the first `SIGTERM` (what docker, systemd and Kubernetes
/// send) or Ctrl-C (`SIGINT`).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = terminate.recv() => tracing::info!("SIGTERM: shutting down"),
                    _ = tokio::signal::ctrl_c() => tracing::info!("Ctrl-C: shutting down"),
                }
                return;
            }
            Err(error) => {
                tracing::warn!(%error, "SIGTERM cannot be caught; only Ctrl-C stops the agent cleanly")
            }
        }
    }
    let _ = tokio::signal::ctrl_c().await;
    tracing::info!("Ctrl-C: shutting down");
}

fn fail(message: &str) -> ! {
    eprintln!("{}: {message}", program());
    std::process::exit(1);
}
