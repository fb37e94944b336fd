//! The example agent's command line, as a binary of this package, so that
//! tests can start it as a process (`CARGO_BIN_EXE_customs_agent`) and
//! signal it: the same code as `cargo run --example customs_agent`.

fn main() {
    learnables_examples::customs_agent::command_line::main();
}
