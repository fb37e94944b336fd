//! A choice field needs at least one choice.

use learnables::Choice;

#[derive(Choice)]
pub enum Desk {}

fn main() {}
