//! `rename_all` takes one of the known rules.

use learnables::Choice;

#[derive(Choice)]
#[choice(rename_all = "Sentence case")]
pub enum Desk {
    General,
    DangerousGoods,
}

fn main() {}
