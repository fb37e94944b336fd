//! Two variants may not be the same choice, by `rename` or by renaming.

use learnables::Choice;

#[derive(Choice)]
pub enum Desk {
    General,
    #[choice(rename = "general")]
    Default,
    HTTPServer,
    HttpServer,
}

fn main() {}
