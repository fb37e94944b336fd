//! The example customs agent: an A2A v1.0 agent that can be taught its
//! routing rules.
//!
//! `cargo run --example customs_agent -- --addr 127.0.0.1:8080 --data ./customs-data`
//!
//! Its command line is `learnables_examples::customs_agent::command_line`.

fn main() {
    learnables_examples::customs_agent::command_line::main();
}
