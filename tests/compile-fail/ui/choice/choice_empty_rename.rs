//! A choice must not be empty.

use learnables::Choice;

#[derive(Choice)]
pub enum Desk {
    General,
    #[choice(rename = "")]
    Empty,
    #[choice(rename = " ")]
    Blank,
}

fn main() {}
