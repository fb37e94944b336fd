//! The example customs agent: an A2A v1.0 agent that can be taught its
//! routing rules.
//!
//! `cargo run --example customs_agent -- --addr 127.0.0.1:8080 --data ./customs-data`

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use learnables_examples::customs_agent::{self, DataLocation, Teacher};

/// Routes customs declarations by what it has been taught, and asks a person
/// (with a Learnables teach block) when it has no rule.
#[derive(Parser, Debug)]
#[command(version, about, long_about = None)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
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
}

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let args = Args::parse();
    let variable = match std::env::var(customs_agent::TEACHERS_VARIABLE) {
        Ok(text) => Some(text),
        Err(std::env::VarError::NotPresent) => None,
        Err(std::env::VarError::NotUnicode(_)) => fail(&format!(
            "{} is not valid UTF-8",
            customs_agent::TEACHERS_VARIABLE
        )),
    };
    let given = Teacher::gather(
        &args.teacher,
        args.teachers_file.as_deref(),
        variable.as_deref(),
    );
    let mut teachers = match given {
        Ok(teachers) => teachers,
        Err(error) => fail(&error),
    };
    if teachers.is_empty() {
        let demo = Teacher {
            email: "demo@example.com".into(),
            token: uuid::Uuid::now_v7().simple().to_string(),
        };
        println!("demo teacher: {} token: {}", demo.email, demo.token);
        teachers.push(demo);
    }
    let location = DataLocation::parse(&args.data);
    let knowledge = match tokio::task::spawn_blocking(move || location.open()).await {
        Ok(Ok(knowledge)) => knowledge,
        Ok(Err(error)) => fail(&format!("cannot open the knowledge: {error}")),
        Err(error) => fail(&format!("cannot open the knowledge: {error}")),
    };
    let listener = match tokio::net::TcpListener::bind(args.addr).await {
        Ok(listener) => listener,
        Err(error) => fail(&format!("cannot listen on {}: {error}", args.addr)),
    };
    let address = listener.local_addr().map_or(args.addr, |address| address);
    println!(
        "customs agent listening on http://{address}/ (card: http://{address}/.well-known/agent-card.json)"
    );
    println!(
        "teacher's page: http://{address}{}",
        customs_agent::TEACHING_PAGE_PATH
    );
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    if let Err(error) = customs_agent::serve(listener, knowledge, &teachers, shutdown).await {
        fail(&format!("the agent stopped: {error}"));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("customs_agent: {message}");
    std::process::exit(1);
}
