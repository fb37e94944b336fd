//! The agent on a plain axum app: `learnables_examples::plain_axum_agent`, served.
//! `cargo run --example plain_axum_agent -- 127.0.0.1:8080`

use learnables::Knowledge;
use learnables::a2a::{Principal, Tokens};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    let teachers = Tokens::new().with("t0ken", Principal::human("alice@example.com"));
    let served = async {
        let app = learnables_examples::plain_axum_agent::app(Knowledge::in_memory(), teachers)?;
        let listener = tokio::net::TcpListener::bind(&address).await?;
        println!("Plain axum agent on http://{address}/ (teacher alice@example.com, token t0ken)");
        axum::serve(listener, app).await?;
        Ok::<_, Box<dyn std::error::Error>>(())
    };
    match served.await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
