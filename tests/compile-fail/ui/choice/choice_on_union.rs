//! `#[derive(Choice)]` takes an enum, not a union.

use learnables::Choice;

#[derive(Choice)]
pub union Desk {
    pub code: u8,
}

fn main() {}
