//! One alias reads as one variant only.

use learnables::Choice;

#[derive(Choice)]
pub enum Desk {
    #[choice(alias = "old")]
    General,
    #[choice(alias = "old")]
    ColdChain,
}

fn main() {}
