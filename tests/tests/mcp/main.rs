//! MCP: the library's elicitation (feature `mcp`) through rmcp's own client
//! against the example server, and `learnables mcp` through the official
//! MCP Python SDK's client and, against a hostile agent, rmcp's.

mod before_the_form;
mod hostile;
mod library;
mod python_client;
