//! The model agent: the customs agent's knowledge and command line, its
//! decisions a model's, over any OpenAI-compatible chat-completions API.
//!
//! `OPENAI_BASE_URL=... OPENAI_API_KEY=... OPENAI_MODEL=... cargo run --example model_agent -- --addr 127.0.0.1:8080 --data ./model-data --teacher alice@example.com=TOKEN`
//!
//! Its command line is `learnables_examples::model_agent::main`.

fn main() {
    learnables_examples::model_agent::main();
}
