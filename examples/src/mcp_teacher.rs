//! An MCP server (rmcp) whose one tool asks its user for a routing rule and
//! learns it: the agent is an MCP server itself, and the lesson comes from
//! an elicitation form the person fills, never from the model.
//!
//! The form is [`learnables::mcp::requested_schema`] of the learnable's
//! descriptor, and the answer is read with [`learnables::mcp::read_answer`]:
//! every field problem comes back in words, and the form is asked again.
//! Run it over stdio with `cargo run --example mcp_teacher`.
//!
//! It asks with `elicitation/create` requests, which protocol revisions up to
//! 2025-11-25 carry, and offers those; from 2026-07-28 a server asks with an
//! `InputRequiredResult` instead (as `learnables mcp` does for hosts that
//! negotiate it).

use std::borrow::Cow;

use learnables::{Knowledge, Learnable, Lesson, mcp};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    ElicitationAction, JsonObject, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;

use crate::RoutingRule;

/// How many times the form is asked when its answer does not read.
const MAX_ASKS: usize = 3;

/// The server: the agent's knowledge, and who its user is.
///
/// ```
/// use learnables::Knowledge;
/// use learnables_examples::RoutingRule;
/// use learnables_examples::mcp_teacher::RoutingTeacher;
/// let knowledge = Knowledge::in_memory();
/// knowledge.register::<RoutingRule>().unwrap();
/// let server = RoutingTeacher::new(knowledge, "alice@example.com");
/// assert_eq!(RoutingTeacher::tool().name, "teach_routing_rule");
/// # drop(server);
/// ```
#[derive(Debug, Clone)]
pub struct RoutingTeacher {
    knowledge: Knowledge,
    teacher: String,
}

impl RoutingTeacher {
    /// A server teaching `knowledge` (with [`RoutingRule`] registered) as
    /// `teacher`, the person using the host.
    pub fn new(knowledge: Knowledge, teacher: impl Into<String>) -> RoutingTeacher {
        RoutingTeacher {
            knowledge,
            teacher: teacher.into(),
        }
    }

    /// Its one tool: `teach_routing_rule`, whose only argument is the HS
    /// chapter. The desk comes from the person.
    pub fn tool() -> Tool {
        let schema = json!({
            "type": "object",
            "properties": {"chapter": {"type": "string", "description": "The HS chapter."}},
            "required": ["chapter"],
            "additionalProperties": false,
        });
        let schema: JsonObject = serde_json::from_value(schema).unwrap_or_default();
        Tool::new(
            "teach_routing_rule",
            "Ask the user which desk handles an HS chapter, and learn it.",
            std::sync::Arc::new(schema),
        )
    }

    async fn teach(&self, chapter: &str, context: &RequestContext<RoleServer>) -> CallToolResult {
        let descriptor = RoutingRule::descriptor();
        let mut message = format!("Which desk handles HS chapter {chapter}?");
        for _ in 0..MAX_ASKS {
            let form = ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: message.clone(),
                requested_schema: mcp::requested_schema(descriptor),
            };
            let answer = match context.peer.create_elicitation(form).await {
                Ok(answer) => answer,
                Err(error) => {
                    return said(format!("Not taught: the form was not answered ({error})"));
                }
            };
            if answer.action != ElicitationAction::Accept {
                return said("Not taught: the user declined.".to_owned());
            }
            // The user's answer, read as the learnable reads a lesson.
            let rule = match mcp::read_answer::<RoutingRule>(chapter, answer.content.as_ref()) {
                Ok(rule) => rule,
                Err(problems) => {
                    message = format!("{problems}. Which desk handles HS chapter {chapter}?");
                    continue;
                }
            };
            let lesson = Lesson::new(
                descriptor.collection.clone(),
                chapter,
                rule.to_lesson_value(),
                self.teacher.clone(),
            );
            return match self.knowledge.teach_async(lesson).await {
                Ok(result) => said(format!("Learned: {}", result.describes)),
                Err(error) => said(format!("Not taught: {error}")),
            };
        }
        said("Not taught: the form's answer did not read.".to_owned())
    }
}

/// A result in words.
fn said(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

impl ServerHandler for RoutingTeacher {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![Self::tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let chapter = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("chapter"))
            .and_then(|chapter| chapter.as_str())
            .ok_or_else(|| ErrorData::invalid_params("`chapter` is required", None))?;
        Ok(self.teach(chapter.trim(), &context).await.into())
    }
}
