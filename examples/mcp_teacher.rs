//! An MCP server over stdio whose tool asks its user for a routing rule (an
//! elicitation form built from the learnable) and learns it, in memory.
//!
//! `cargo run --example mcp_teacher`, as an MCP host's server command.

use learnables::Knowledge;
use learnables_examples::RoutingRule;
use learnables_examples::mcp_teacher::RoutingTeacher;
use rmcp::ServiceExt;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let knowledge = Knowledge::in_memory();
    knowledge.register::<RoutingRule>()?;
    // The host's user: an MCP host over stdio is one person's.
    let teacher = std::env::var("USER").unwrap_or_else(|_| "the local user".to_owned());
    let server = RoutingTeacher::new(knowledge, teacher)
        .serve(rmcp::transport::stdio())
        .await?;
    server.waiting().await?;
    Ok(())
}
