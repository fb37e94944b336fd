//! The `learnables` command: see the `learnables_cli` library.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    learnables_cli::main_with(&learnables_cli::cli::Cli::parse())
}
