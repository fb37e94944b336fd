//! An alias must not be another variant's choice.

use learnables::Choice;

#[derive(Choice)]
pub enum Desk {
    General,
    #[choice(alias = "general")]
    ColdChain,
}

fn main() {}
