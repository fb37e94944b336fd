//! MCP: the library's elicitation (feature `mcp`) through rmcp's own client
//! against the example server, and `learnables mcp` through the official
//! MCP Python SDK's client.

mod library;
mod python_client;
