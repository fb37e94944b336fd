//! Each variant is one choice, a bare name: variants with fields are refused.

use learnables::Choice;

#[derive(Choice)]
pub enum Desk {
    General,
    Named(String),
    Coded { code: u8 },
}

fn main() {}
