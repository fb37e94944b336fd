//! The customs agent's own A2A work, as an `AgentExecutor` of the official
//! A2A server SDK: each task routes declarations by the knowledge it
//! pinned when it started, kept in the task's metadata so that a later
//! message on the task (on any replica) reads the same version.

use a2a::{A2AError, Message, Part, Role, StreamResponse, Task, TaskState, TaskStatus};
use a2a_server::{AgentExecutor, ExecutorContext};
use futures::stream::{self, BoxStream};
use learnables::a2a::{TaskPin, TeachBlockBuilder};
use learnables::{Knowledge, Snapshot, TeachBlock};

use crate::RoutingRule;

/// Where the agent keeps a task's pinned position in its metadata:
/// [`TaskPin`]'s key.
pub const POSITION_KEY: &str = learnables::a2a::TASK_POSITION_KEY;

/// The agent's executor: routes a declaration by its pinned knowledge and
/// asks a person, with a teach block when the client activated Learnables,
/// when it has no rule.
#[derive(Clone)]
pub struct CustomsExecutor {
    knowledge: Knowledge,
    teaching_page: Option<String>,
}

impl CustomsExecutor {
    /// The executor over `knowledge`.
    pub fn new(knowledge: Knowledge) -> CustomsExecutor {
        CustomsExecutor {
            knowledge,
            teaching_page: None,
        }
    }

    /// The same executor, its questions linking to the teacher's page at
    /// `page_url` (such as `http://agent.example/learnables/`), which opens
    /// the question's task.
    pub fn with_teaching_page(self, page_url: impl Into<String>) -> CustomsExecutor {
        CustomsExecutor {
            teaching_page: Some(page_url.into()),
            ..self
        }
    }

    fn answer(&self, context: &ExecutorContext) -> Result<Task, A2AError> {
        // The version the task pinned on its first message, on every turn;
        // re-pinned once a lesson answers the question it waits on.
        let pinned = TaskPin::of(&self.knowledge, context);
        // A turn the lesson it asked for resumes routes the request the
        // question was about, not the words of the lesson's message.
        let request = pinned
            .answered_by()
            .and(context.stored_task.as_ref())
            .and_then(asked_request);
        let text = text_of(request.or(context.message.as_ref()));
        let link = self
            .teaching_page
            .as_deref()
            .map(|page| learnables::a2a::teaching_page::task_link(page, &context.task_id));
        let reply = route(&pinned, &text, link.as_deref());
        let mut answer = reply_message(context, reply.text);
        let asked = match reply.block {
            // Attached only when the request activated Learnables.
            Some(block) => {
                block
                    .attach_if_activated(context, &mut answer)
                    .map_err(|error| A2AError::internal(error.to_string()))?;
                true
            }
            None => reply.asks,
        };
        let state = if asked {
            TaskState::InputRequired
        } else {
            TaskState::Completed
        };
        Ok(turn_task(context, &pinned, answer, state))
    }
}

/// The agent's message on the task of `context`, saying `text`.
pub(crate) fn reply_message(context: &ExecutorContext, text: String) -> Message {
    let mut answer = Message::new(Role::Agent, vec![Part::text(text)]);
    answer.context_id = Some(context.context_id.clone());
    answer.task_id = Some(context.task_id.clone());
    answer
}

/// The task of `context` after a turn that answered `answer` and left it
/// in `state`: its status and history say so, and it keeps the position
/// `pinned` read.
pub(crate) fn turn_task(
    context: &ExecutorContext,
    pinned: &TaskPin,
    answer: Message,
    state: TaskState,
) -> Task {
    let mut task = context
        .stored_task
        .clone()
        .unwrap_or_else(|| submitted(context));
    task.status = TaskStatus {
        state,
        message: Some(answer.clone()),
        timestamp: None,
    };
    task.history.get_or_insert_with(Vec::new).push(answer);
    pinned.record(&mut task);
    task
}

impl AgentExecutor for CustomsExecutor {
    fn execute(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let event = self.answer(&context).map(StreamResponse::Task);
        Box::pin(stream::once(async move { event }))
    }

    fn cancel(
        &self,
        context: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let mut task = context
            .stored_task
            .clone()
            .unwrap_or_else(|| submitted(&context));
        task.status = TaskStatus {
            state: TaskState::Canceled,
            message: None,
            timestamp: None,
        };
        Box::pin(stream::once(async move { Ok(StreamResponse::Task(task)) }))
    }
}

/// The words of a message's text parts.
pub(crate) fn text_of(message: Option<&Message>) -> String {
    message
        .iter()
        .flat_map(|message| message.parts.iter())
        .filter_map(Part::as_text)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The request the question a task waits on was about: in its history, the
/// latest message of the user before the agent's latest message.
pub(crate) fn asked_request(task: &Task) -> Option<&Message> {
    let history = task.history.as_deref()?;
    let question = history
        .iter()
        .rposition(|message| message.role == Role::Agent)?;
    history[..question]
        .iter()
        .rev()
        .find(|message| message.role == Role::User)
}

/// A new task for `context`, as the SDK starts one: submitted, its history
/// the message that started it.
pub(crate) fn submitted(context: &ExecutorContext) -> Task {
    Task {
        id: context.task_id.clone(),
        context_id: context.context_id.clone(),
        status: TaskStatus {
            state: TaskState::Submitted,
            message: None,
            timestamp: None,
        },
        artifacts: None,
        history: context.message.clone().map(|message| vec![message]),
        metadata: None,
    }
}

/// The agent's answer to a message's text.
struct Reply {
    text: String,
    block: Option<TeachBlockBuilder<RoutingRule>>,
    asks: bool,
}

/// Routes the declaration a message describes, by the pinned knowledge; a
/// question it asks points to `link`, the teacher's page for the task.
fn route(pinned: &Snapshot, text: &str, link: Option<&str>) -> Reply {
    let Some(chapter) = hs_chapter(text).and_then(|number| crate::Chapter::try_from(number).ok())
    else {
        return Reply {
            text: "Which HS chapter is the declaration for? Say, for example, \"Route a \
                   declaration for HS chapter 85\"."
                .into(),
            block: None,
            asks: true,
        };
    };
    let entry = chapter.to_string();
    if let Some(rule) = pinned.get::<RoutingRule>(&entry) {
        let mut text = format!(
            "Chapter {chapter} declarations go to the {} desk.",
            rule.desk
        );
        if let Some(note) = rule.note {
            text.push_str(&format!(" Note for the broker: {note}"));
        }
        return Reply {
            text,
            block: None,
            asks: false,
        };
    }
    let mut question = format!(
        "I have no routing rule for HS chapter {chapter}. Which desk handles these declarations?"
    );
    if let Some(link) = link {
        question.push_str(&format!(" Teach me on {link}"));
    }
    let block = TeachBlock::builder::<RoutingRule>([entry.as_str()])
        .suggest(RoutingRule::FIELDS.chapter, chapter)
        .suggest(RoutingRule::FIELDS.desk, crate::Desk::General)
        .suggestion_label("Unmatched chapters go to the general desk today")
        .with_lesson_fields();
    Reply {
        text: question,
        block: Some(block),
        asks: true,
    }
}

/// The HS chapter a text names: the number after the word "chapter".
fn hs_chapter(text: &str) -> Option<u8> {
    let lower = text.to_lowercase();
    let after = &lower[lower.find("chapter")? + "chapter".len()..];
    let digits: String = after
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .ok()
        .filter(|chapter| (1..=99).contains(chapter))
}

#[cfg(test)]
mod tests {
    use a2a::{Message, Part, Role, Task, TaskState, TaskStatus};

    use super::{asked_request, hs_chapter, text_of};

    #[test]
    fn the_request_a_question_was_about_is_the_users_message_before_it() {
        let message = |role, text: &str| Message::new(role, vec![Part::text(text)]);
        let task = Task {
            id: "t1".into(),
            context_id: "c1".into(),
            status: TaskStatus {
                state: TaskState::InputRequired,
                message: None,
                timestamp: None,
            },
            artifacts: None,
            history: Some(vec![
                message(Role::User, "Route a declaration"),
                message(Role::Agent, "Which HS chapter is the declaration for?"),
                message(Role::User, "Route a declaration for HS chapter 85"),
                message(Role::Agent, "I have no routing rule for HS chapter 85."),
                message(Role::User, "A teacher answered the question"),
            ]),
            metadata: None,
        };
        assert_eq!(
            text_of(asked_request(&task)),
            "Route a declaration for HS chapter 85"
        );
        let unanswered = Task {
            history: Some(vec![message(Role::User, "Route a declaration")]),
            ..task
        };
        assert!(asked_request(&unanswered).is_none());
    }

    #[test]
    fn chapters_are_read_from_text() {
        assert_eq!(
            hs_chapter("Route a declaration for HS chapter 85"),
            Some(85)
        );
        assert_eq!(hs_chapter("CHAPTER 7, please"), Some(7));
        assert_eq!(hs_chapter("chapter 100"), None);
        assert_eq!(hs_chapter("chapter x"), None);
        assert_eq!(hs_chapter("no number"), None);
    }
}
