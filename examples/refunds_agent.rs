//! The README's agent: `learnables_examples::refunds_agent`, served.
//! `cargo run --example refunds_agent -- 127.0.0.1:8080`

fn main() -> std::process::ExitCode {
    learnables_examples::refunds_agent::main()
}
