//! The `learnables` command, run as a binary against real agents on
//! 127.0.0.1 (and stubs that misbehave): every command, its exit status and
//! `--json`, the form on a pseudo-terminal, hostile agents and networks.

mod common;

mod commands;
mod completions_and_man;
mod exit_codes;
mod form;
mod history_and_revert;
mod hostile;
mod json;
mod lists_and_checks;
mod modules;
mod network;
mod review;
mod teacher_words;
