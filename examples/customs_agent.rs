//! The example customs agent: an A2A v1.0 agent that can be taught its
//! routing rules.
//!
//! `cargo run --example customs_agent -- --addr 127.0.0.1:8080 --data ./customs-data`

use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

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

/// The largest teachers file read.
const MAX_TEACHERS_FILE_BYTES: u64 = 1024 * 1024;

/// Every teacher given: `--teacher`, `--teachers FILE`, and the
/// `LEARNABLES_TEACHERS` variable. No error shows a token.
fn teachers(args: &Args) -> Result<Vec<Teacher>, String> {
    let mut teachers = Vec::new();
    for (at, text) in args.teacher.iter().enumerate() {
        teachers.push(
            Teacher::parse(text)
                .map_err(|error| format!("--teacher number {}: {error}", at + 1))?,
        );
    }
    if let Some(path) = &args.teachers_file {
        let text = read_bounded(path).map_err(|error| {
            format!("cannot read the teachers file {}: {error}", path.display())
        })?;
        teachers.extend(
            Teacher::parse_lines(&text)
                .map_err(|error| format!("the teachers file {}, {error}", path.display()))?,
        );
    }
    match std::env::var(customs_agent::TEACHERS_VARIABLE) {
        Ok(text) => teachers.extend(
            Teacher::parse_list(&text)
                .map_err(|error| format!("{}, {error}", customs_agent::TEACHERS_VARIABLE))?,
        ),
        Err(std::env::VarError::NotPresent) => {}
        Err(std::env::VarError::NotUnicode(_)) => {
            return Err(format!(
                "{} is not valid UTF-8",
                customs_agent::TEACHERS_VARIABLE
            ));
        }
    }
    customs_agent::tokens(&teachers).map_err(|error| error.to_string())?;
    Ok(teachers)
}

/// A file's text, refused past `MAX_TEACHERS_FILE_BYTES`.
fn read_bounded(path: &Path) -> std::io::Result<String> {
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
    let mut teachers = match teachers(&args) {
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
