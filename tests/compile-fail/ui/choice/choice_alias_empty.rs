//! A choice alias must not be empty.

use learnables::Choice;

#[derive(Choice)]
pub enum Desk {
    #[choice(alias = "")]
    General,
}

fn main() {}
