//! What the tools of `learnables mcp` work with: the agent and the
//! teacher's token, and what one step of a tool that asks the person does
//! next (see [`crate::mcp_flow`]).

use rmcp::model::{CallToolResult, ElicitationSchema};

use crate::client::AgentClient;

/// The agent, and the teacher's token (never said to the host).
#[derive(Debug)]
pub struct Agent {
    /// The command's client for the agent.
    pub client: AgentClient,
    /// The agent's URL as given.
    pub url: String,
    /// The teacher's bearer token.
    pub token: String,
}

/// What a step does next.
#[derive(Debug)]
pub enum Step {
    /// Ask the person this form; the answer goes to the next step with
    /// `round`.
    Ask {
        message: String,
        schema: ElicitationSchema,
        round: u32,
    },
    /// The tool's result.
    Done(CallToolResult),
}
