//! `#[derive(Choice)]` takes an enum.

use learnables::Choice;

#[derive(Choice)]
pub struct Desk {
    pub name: String,
}

fn main() {}
