//! The `learnables` command: see the `learnables_cli` library.

use std::process::ExitCode;

fn main() -> ExitCode {
    learnables_cli::main_from(std::env::args_os())
}
