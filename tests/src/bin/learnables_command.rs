//! The teacher's command (`learnables`) as a binary of this package, so that
//! tests can start it as a process (`CARGO_BIN_EXE_learnables_command`): the
//! same code as learnables-cli's `learnables` binary.

use std::process::ExitCode;

fn main() -> ExitCode {
    learnables_cli::main_from(std::env::args_os())
}
