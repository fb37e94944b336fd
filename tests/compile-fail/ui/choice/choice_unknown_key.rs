//! A misspelt `#[choice(...)]` key, on the enum or a variant.

use learnables::Choice;

#[derive(Choice)]
#[choice(rename_al = "lowercase")]
pub enum Desk {
    General,
    #[choice(renam = "cold chain")]
    Perishables,
}

fn main() {}
