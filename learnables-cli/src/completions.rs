//! `learnables completions SHELL`: the shell's completion script for every
//! command and option, made by `clap_complete` from the command line
//! itself, so it never falls behind.

use clap::CommandFactory;
use clap_complete::Shell;
use serde_json::json;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::CliError;
use crate::outcome::Outcome;

/// The completion script for `shell`.
pub fn script(shell: Shell) -> String {
    let mut command = Cli::command();
    let name = command.get_name().to_owned();
    let mut bytes = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs `completions`: the script as the report; in JSON, `{"shell",
/// "script"}`.
pub fn run(args: &CompletionsArgs) -> Result<Outcome, CliError> {
    let script = script(args.shell);
    let json = json!({"shell": args.shell.to_string(), "script": script});
    Ok(Outcome::ok(script, json))
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;

    #[test]
    fn every_shell_gets_a_script_naming_the_commands() {
        for shell in Shell::value_variants() {
            let script = script(*shell);
            for command in ["card", "check", "teach", "show", "completions", "man"] {
                assert!(script.contains(command), "{shell}: {command}");
            }
        }
    }

    #[test]
    fn a_fish_script_completes_teach() {
        use clap_complete::Shell;
        let script = crate::completions::script(Shell::Fish);
        assert!(script.contains("teach"));
    }
}
