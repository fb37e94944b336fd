//! [`TaskResumer`]: after a lesson, the tasks waiting on the question it
//! answers continue. Each is found through the official A2A server SDK's
//! `RequestHandler` (input-required, its status message's teach block naming
//! the lesson's entry) and sent, through the same handler, a message saying
//! what was taught ([`AnsweringLesson`] in its metadata), so that the SDK
//! stores the task's next turn, tells its subscribers and sends its pushes.
//!
//! The message says what was taught, never by whom: it joins the task's
//! history, which anyone who may read the task reads (`GetTask`,
//! `ListTasks`, pushes), with or without a teacher's token. Who taught it
//! stays in the knowledge's history, behind show-back's token; an executor
//! reads it there ([`TaskPin::answered_by`](super::TaskPin::answered_by)).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use a2a::{ListTasksRequest, Message, Part, Role, SendMessageRequest, Task, TaskState};
use a2a_server::{RequestHandler, ServiceParams};
use serde::{Deserialize, Serialize};

use super::task_pin::waiting_question;
use crate::EXTENSION_URI;
use crate::untrusted::Untrusted;
use crate::{Lesson, LessonResult};

/// The key of a message's metadata under which the message that resumes a
/// task carries the lesson that answered its question ([`AnsweringLesson`]).
pub const ANSWERING_LESSON_KEY: &str = "learnables/answeringLesson";

/// How long [`TaskResumer::resume`] waits, by default, for the tasks a
/// lesson answers to take their next turn.
pub const DEFAULT_RESUME_TIMEOUT: Duration = Duration::from_secs(10);

/// How many tasks one lesson resumes at most, by default.
pub const DEFAULT_MAX_RESUMED: usize = 100;

/// How many waiting tasks one lesson looks through at most, whatever they
/// ask: the bound on the listing.
pub const MAX_SCANNED_TASKS: usize = 10_000;

/// The page size of the listing of waiting tasks.
const PAGE_SIZE: i32 = 100;

/// The lesson that answered a waiting task's question, as the message that
/// resumes the task carries it (under [`ANSWERING_LESSON_KEY`]): its
/// collection, entry and version, not its teacher. The message joins the
/// task's history, which anyone who may read the task reads, with or
/// without a teacher's token; who taught it stays in the knowledge's
/// history, behind show-back's token, and an executor reads it there
/// ([`TaskPin::answered_by`](super::TaskPin::answered_by)).
///
/// ```
/// use a2a::{Message, Part, Role};
/// use learnables::a2a::AnsweringLesson;
/// let lesson = AnsweringLesson::new("routing_rules", "85", "alice@example.com").with_version_id("v-1");
/// let mut message = Message::new(Role::User, vec![Part::text("A teacher answered")]);
/// lesson.attach_to_message(&mut message);
/// // The metadata names the version, never the teacher.
/// let carried = serde_json::to_string(&message.metadata).unwrap();
/// assert!(carried.contains("v-1") && !carried.contains("alice"));
/// let read = AnsweringLesson::from_message(&message).unwrap();
/// assert_eq!((read.entry.as_str(), read.version_id.as_deref()), ("85", Some("v-1")));
/// assert_eq!(read.taught_by, "");
/// let plain = Message::new(Role::User, vec![Part::text("Route chapter 85")]);
/// assert_eq!(AnsweringLesson::from_message(&plain), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AnsweringLesson {
    /// The lesson's collection.
    pub collection: String,
    /// The entry it taught.
    pub entry: String,
    /// The version it made (`versionId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_id: Option<String>,
    /// The teacher, as the code that made this value knew it. Never
    /// written into a message, so empty in a lesson read from one: the
    /// teacher is in the knowledge's history (the version `version_id`
    /// names, [`TaskPin::answered_by`](super::TaskPin::answered_by)).
    #[serde(skip)]
    pub taught_by: String,
}

impl AnsweringLesson {
    /// The lesson a message says answered its task's question, if it says
    /// one that reads.
    pub fn from_message(message: &Message) -> Option<AnsweringLesson> {
        let value = message.metadata.as_ref()?.get(ANSWERING_LESSON_KEY)?;
        serde_json::from_value(value.clone()).ok()
    }

    /// Puts this lesson in `message`'s metadata, under
    /// [`ANSWERING_LESSON_KEY`]; other metadata is kept.
    pub fn attach_to_message(&self, message: &mut Message) {
        if let Ok(value) = serde_json::to_value(self) {
            message
                .metadata
                .get_or_insert_with(HashMap::new)
                .insert(ANSWERING_LESSON_KEY.to_owned(), value);
        }
    }

    /// The lesson of `taught_by` about `entry` of `collection`, with no
    /// version id ([`AnsweringLesson::with_version_id`] adds it).
    /// `taught_by` stays with this value: a message it is attached to does
    /// not carry it.
    pub fn new(
        collection: impl Into<String>,
        entry: impl Into<String>,
        taught_by: impl Into<String>,
    ) -> AnsweringLesson {
        AnsweringLesson {
            collection: collection.into(),
            entry: entry.into(),
            version_id: None,
            taught_by: taught_by.into(),
        }
    }

    /// The same lesson, naming the version it made.
    pub fn with_version_id(mut self, version_id: impl Into<String>) -> AnsweringLesson {
        self.version_id = Some(version_id.into());
        self
    }

    /// Whether `task` waits (input-required) on a question whose teach
    /// block names this lesson's entry of its collection.
    ///
    /// ```
    /// use a2a::{Message, Part, Role, Task, TaskState, TaskStatus};
    /// use learnables::TeachBlock;
    /// use learnables::a2a::AnsweringLesson;
    /// let mut question = Message::new(Role::Agent, vec![Part::text("Which desk?")]);
    /// TeachBlock::new("routing_rules", ["85"]).attach_to_message(&mut question).unwrap();
    /// let task = |state| Task {
    ///     id: "t1".into(), context_id: "c1".into(),
    ///     status: TaskStatus { state, message: Some(question.clone()), timestamp: None },
    ///     artifacts: None, history: None, metadata: None,
    /// };
    /// let lesson = |entry: &str| AnsweringLesson::new("routing_rules", entry, "alice@example.com");
    /// assert!(lesson("85").answers(&task(TaskState::InputRequired)));
    /// assert!(!lesson("12").answers(&task(TaskState::InputRequired)));
    /// assert!(!lesson("85").answers(&task(TaskState::Completed)));
    /// ```
    pub fn answers(&self, task: &Task) -> bool {
        waiting_question(task).is_some_and(|block| {
            block.collection == self.collection && block.entries.contains(&self.entry)
        })
    }
}

/// After a lesson, resumes the tasks waiting on the question it answers:
/// each task that is input-required, with a teach block on its status
/// message naming the lesson's entry of its collection, is sent a message
/// (role user, in plain words, the lesson under [`ANSWERING_LESSON_KEY`])
/// through the SDK's `RequestHandler`, which runs the task's next turn,
/// stores it, and tells its subscribers and push endpoints. On that turn
/// [`TaskPin::of`](super::TaskPin::of) re-pins the task to knowledge that
/// holds the lesson. A running task is never resumed.
///
/// Give it to the service with
/// [`LearnablesService::resuming`](super::LearnablesService::resuming): the
/// service resumes after each lesson learned through its async path (the
/// [`LearnablesLayer`](super::LearnablesLayer)), before it answers the
/// teacher. Retractions and lessons that change nothing resume nothing.
///
/// ```
/// use std::sync::Arc;
/// use a2a_server::{DefaultRequestHandler, InMemoryTaskStore, RequestHandler};
/// use learnables::a2a::TaskResumer;
/// use learnables::{Lesson, LessonResult, LessonValue};
/// # struct Executor;
/// # impl a2a_server::AgentExecutor for Executor {
/// #     fn execute(&self, _: a2a_server::ExecutorContext)
/// #         -> futures::stream::BoxStream<'static, Result<a2a::StreamResponse, a2a::A2AError>> {
/// #         Box::pin(futures::stream::empty())
/// #     }
/// #     fn cancel(&self, _: a2a_server::ExecutorContext)
/// #         -> futures::stream::BoxStream<'static, Result<a2a::StreamResponse, a2a::A2AError>> {
/// #         Box::pin(futures::stream::empty())
/// #     }
/// # }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let handler: Arc<dyn RequestHandler> =
///     Arc::new(DefaultRequestHandler::new(Executor, InMemoryTaskStore::new()));
/// let resumer = TaskResumer::new(handler).with_max_tasks(10);
/// let value = LessonValue::try_from(serde_json::json!({"desk": "perishables"})).unwrap();
/// let lesson = Lesson::new("routing_rules", "85", value, "alice@example.com");
/// // A lesson that changed nothing answers no question.
/// let unchanged = LessonResult::new(false, "Chapter 85 already goes there", 1);
/// let resumed = resumer.resume(&lesson, &unchanged).await;
/// assert!(resumed.task_ids.is_empty() && resumed.complete);
/// // No task waits on chapter 85.
/// let learned = LessonResult::new(true, "Chapter 85 now goes to the perishables desk", 1);
/// assert!(resumer.resume(&lesson, &learned).await.task_ids.is_empty());
/// # });
/// ```
#[derive(Clone)]
pub struct TaskResumer {
    handler: Arc<dyn RequestHandler>,
    service_params: ServiceParams,
    timeout: Duration,
    max_tasks: usize,
}

impl std::fmt::Debug for TaskResumer {
    /// The limits (the handler is the SDK's, and not shown; the service
    /// params may hold credentials).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskResumer")
            .field("timeout", &self.timeout)
            .field("max_tasks", &self.max_tasks)
            .finish_non_exhaustive()
    }
}

/// What [`TaskResumer::resume`] did.
///
/// ```
/// let resumed = learnables::a2a::Resumed::default();
/// assert!(resumed.task_ids.is_empty() && resumed.complete);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resumed {
    /// The tasks sent the lesson, whose next turn ran.
    pub task_ids: Vec<String>,
    /// Whether every task the lesson answers was resumed: `false` when the
    /// listing or a task's turn failed, the cap on tasks was reached, or
    /// the time ran out (a turn the timeout cut short goes on in the SDK).
    pub complete: bool,
}

impl Default for Resumed {
    fn default() -> Resumed {
        Resumed {
            task_ids: Vec::new(),
            complete: true,
        }
    }
}

impl TaskResumer {
    /// A resumer over the SDK's request handler (the one the agent's
    /// JSON-RPC router serves), waiting at most [`DEFAULT_RESUME_TIMEOUT`]
    /// for at most [`DEFAULT_MAX_RESUMED`] tasks. Its messages activate
    /// the Learnables extension (a resumed task that asks again may attach
    /// a teach block: it was asked by a client that activated it).
    pub fn new(handler: Arc<dyn RequestHandler>) -> TaskResumer {
        TaskResumer {
            handler,
            service_params: ServiceParams::from([(
                "a2a-extensions".to_owned(),
                vec![EXTENSION_URI.to_owned()],
            )]),
            timeout: DEFAULT_RESUME_TIMEOUT,
            max_tasks: DEFAULT_MAX_RESUMED,
        }
    }

    /// The same resumer, waiting at most `timeout` for one lesson's tasks.
    pub fn with_timeout(self, timeout: Duration) -> TaskResumer {
        TaskResumer { timeout, ..self }
    }

    /// The same resumer, resuming at most `max_tasks` tasks a lesson.
    pub fn with_max_tasks(self, max_tasks: usize) -> TaskResumer {
        TaskResumer { max_tasks, ..self }
    }

    /// The same resumer, calling the handler with `service_params` (the
    /// headers its requests carry, for an authorizer the handler has).
    pub fn with_service_params(self, service_params: ServiceParams) -> TaskResumer {
        TaskResumer {
            service_params,
            ..self
        }
    }

    /// Resumes the tasks waiting on the question `lesson` answers, when
    /// its `result` learned something. Failures are logged, never
    /// returned: the lesson is learned whatever happens to the tasks.
    pub async fn resume(&self, lesson: &Lesson, result: &LessonResult) -> Resumed {
        let mut resumed = Resumed::default();
        if !result.learned {
            return resumed;
        }
        let answering = AnsweringLesson {
            collection: lesson.collection.clone(),
            entry: lesson.entry.clone(),
            version_id: result.version_id.clone(),
            // Not carried into the message: see the module.
            taught_by: String::new(),
        };
        let in_time = tokio::time::timeout(
            self.timeout,
            self.resume_within(&answering, &result.describes, &mut resumed),
        )
        .await;
        if in_time.is_err() {
            resumed.complete = false;
            tracing::warn!(
                collection = %Untrusted::new(&answering.collection),
                entry = %Untrusted::new(&answering.entry),
                resumed = resumed.task_ids.len(),
                timeout_ms = self.timeout.as_millis() as u64,
                "the tasks a lesson answers were not all resumed in time"
            );
        }
        resumed
    }

    async fn resume_within(
        &self,
        answering: &AnsweringLesson,
        describes: &str,
        resumed: &mut Resumed,
    ) {
        // All found before any is resumed: a resumed task leaves the
        // listing, which would move the pages under it.
        let waiting = self.waiting_on(answering, resumed).await;
        for task in waiting {
            let request = SendMessageRequest {
                message: lesson_message(&task, answering, describes),
                configuration: None,
                metadata: None,
                tenant: None,
            };
            match self
                .handler
                .send_message(&self.service_params, request)
                .await
            {
                Ok(_) => resumed.task_ids.push(task.id),
                Err(error) => {
                    resumed.complete = false;
                    tracing::warn!(
                        task = %Untrusted::new(&task.id),
                        collection = %Untrusted::new(&answering.collection),
                        entry = %Untrusted::new(&answering.entry),
                        error = %Untrusted::new(&error.to_string()),
                        "a task the lesson answers could not be resumed"
                    );
                }
            }
        }
    }

    /// The tasks waiting on the question `answering` answers, at most
    /// `max_tasks` of them, found among at most [`MAX_SCANNED_TASKS`]
    /// waiting tasks.
    async fn waiting_on(&self, answering: &AnsweringLesson, resumed: &mut Resumed) -> Vec<Task> {
        let mut waiting = Vec::new();
        let mut scanned = 0usize;
        let mut page_token = None;
        loop {
            let request = ListTasksRequest {
                context_id: None,
                status: Some(TaskState::InputRequired),
                page_size: Some(PAGE_SIZE),
                page_token: page_token.take(),
                history_length: Some(0),
                status_timestamp_after: None,
                include_artifacts: Some(false),
                tenant: None,
            };
            let page = match self.handler.list_tasks(&self.service_params, request).await {
                Ok(page) => page,
                Err(error) => {
                    resumed.complete = false;
                    tracing::warn!(
                        collection = %Untrusted::new(&answering.collection),
                        entry = %Untrusted::new(&answering.entry),
                        error = %Untrusted::new(&error.to_string()),
                        "the tasks a lesson answers could not be listed"
                    );
                    return waiting;
                }
            };
            scanned += page.tasks.len();
            for task in page.tasks {
                if !answering.answers(&task) {
                    continue;
                }
                if waiting.len() == self.max_tasks {
                    resumed.complete = false;
                    tracing::warn!(
                        collection = %Untrusted::new(&answering.collection),
                        entry = %Untrusted::new(&answering.entry),
                        max_tasks = self.max_tasks,
                        "more tasks wait on this lesson than one lesson resumes"
                    );
                    return waiting;
                }
                waiting.push(task);
            }
            if page.next_page_token.is_empty() {
                return waiting;
            }
            if scanned >= MAX_SCANNED_TASKS {
                resumed.complete = false;
                tracing::warn!(
                    collection = %Untrusted::new(&answering.collection),
                    entry = %Untrusted::new(&answering.entry),
                    scanned,
                    "too many tasks wait to look through them all for this lesson"
                );
                return waiting;
            }
            page_token = Some(page.next_page_token);
        }
    }
}

/// The message that resumes `task`: what was taught, in plain words, and
/// the lesson in its metadata; not who taught it (see the module).
fn lesson_message(task: &Task, answering: &AnsweringLesson, describes: &str) -> Message {
    let text = format!(
        "A teacher answered the question: {}.",
        crate::untrusted::escaped(describes)
    );
    let mut message = Message::new(Role::User, vec![Part::text(text)]);
    message.task_id = Some(task.id.clone());
    message.context_id = Some(task.context_id.clone());
    answering.attach_to_message(&mut message);
    message
}

#[cfg(test)]
mod tests {
    use a2a::{A2AError, SendMessageResponse, StreamResponse, TaskStatus};
    use a2a_server::{AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore};
    use futures::stream::{self, BoxStream};

    use super::*;
    use crate::LessonValue;
    use crate::a2a::TeachBlock;

    /// Asks about the entry its first message names, with a teach block;
    /// completes on the next turn, or, when `hangs`, never finishes it.
    struct Asker {
        hangs: bool,
    }

    impl AgentExecutor for Asker {
        fn execute(
            &self,
            context: ExecutorContext,
        ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
            let Some(mut task) = context.stored_task.clone() else {
                return Box::pin(stream::empty());
            };
            if task.status.state == TaskState::InputRequired && self.hangs {
                return Box::pin(stream::pending());
            }
            let state = if task.status.state == TaskState::InputRequired {
                TaskState::Completed
            } else {
                TaskState::InputRequired
            };
            let entry = context
                .message
                .as_ref()
                .and_then(Message::text)
                .unwrap_or_default()
                .to_owned();
            let mut question = Message::new(Role::Agent, vec![Part::text("Which desk?")]);
            TeachBlock::new("routing_rules", [entry])
                .attach_to_message(&mut question)
                .unwrap();
            task.status = TaskStatus {
                state,
                message: Some(question),
                timestamp: None,
            };
            Box::pin(stream::once(async move { Ok(StreamResponse::Task(task)) }))
        }

        fn cancel(
            &self,
            _: ExecutorContext,
        ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
            Box::pin(stream::empty())
        }
    }

    fn handler(hangs: bool) -> Arc<dyn RequestHandler> {
        Arc::new(DefaultRequestHandler::new(
            Asker { hangs },
            InMemoryTaskStore::new(),
        ))
    }

    /// A new task waiting on a question about `entry`: its id.
    async fn ask(handler: &Arc<dyn RequestHandler>, entry: &str) -> String {
        let request = SendMessageRequest {
            message: Message::new(Role::User, vec![Part::text(entry)]),
            configuration: None,
            metadata: None,
            tenant: None,
        };
        match handler.send_message(&Default::default(), request).await {
            Ok(SendMessageResponse::Task(task)) => {
                assert_eq!(task.status.state, TaskState::InputRequired);
                task.id
            }
            other => panic!("not a waiting task: {other:?}"),
        }
    }

    async fn state(handler: &Arc<dyn RequestHandler>, id: &str) -> TaskState {
        let request = a2a::GetTaskRequest {
            id: id.to_owned(),
            history_length: None,
            tenant: None,
        };
        let task = handler.get_task(&Default::default(), request).await;
        task.unwrap().status.state
    }

    fn lesson(entry: &str) -> (Lesson, LessonResult) {
        let value = LessonValue::try_from(serde_json::json!({"desk": "general"})).unwrap();
        let lesson = Lesson::new("routing_rules", entry, value, "alice@example.com");
        let mut result = LessonResult::new(true, "Chapter 85 goes to the general desk", 1);
        result.version_id = Some("v-1".into());
        (lesson, result)
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn only_the_tasks_waiting_on_the_lessons_entry_are_resumed() {
        runtime().block_on(async {
            let handler = handler(false);
            let on_85 = ask(&handler, "85").await;
            let on_12 = ask(&handler, "12").await;
            let (lesson, result) = lesson("85");
            let resumed = TaskResumer::new(handler.clone())
                .resume(&lesson, &result)
                .await;
            assert_eq!(resumed.task_ids, std::slice::from_ref(&on_85));
            assert!(resumed.complete);
            assert_eq!(state(&handler, &on_85).await, TaskState::Completed);
            assert_eq!(state(&handler, &on_12).await, TaskState::InputRequired);
        });
    }

    #[test]
    fn the_cap_on_tasks_leaves_the_rest_waiting_and_says_so() {
        runtime().block_on(async {
            let handler = handler(false);
            let first = ask(&handler, "85").await;
            let second = ask(&handler, "85").await;
            let (lesson, result) = lesson("85");
            let resumed = TaskResumer::new(handler.clone())
                .with_max_tasks(1)
                .resume(&lesson, &result)
                .await;
            assert_eq!(resumed.task_ids.len(), 1);
            assert!(!resumed.complete);
            let mut states = [
                state(&handler, &first).await,
                state(&handler, &second).await,
            ];
            states.sort_by_key(|state| format!("{state:?}"));
            assert_eq!(states, [TaskState::Completed, TaskState::InputRequired]);
        });
    }

    #[test]
    fn a_turn_that_does_not_finish_in_time_is_left_and_said() {
        runtime().block_on(async {
            let handler = handler(true);
            ask(&handler, "85").await;
            let (lesson, result) = lesson("85");
            let resumed = TaskResumer::new(handler)
                .with_timeout(Duration::ZERO)
                .resume(&lesson, &result)
                .await;
            assert!(resumed.task_ids.is_empty());
            assert!(!resumed.complete);
        });
    }

    #[test]
    fn the_lesson_message_says_what_was_taught_and_carries_the_lesson() {
        runtime().block_on(async {
            let handler = handler(false);
            let id = ask(&handler, "85").await;
            let (lesson, result) = lesson("85");
            TaskResumer::new(handler.clone())
                .resume(&lesson, &result)
                .await;
            let request = a2a::GetTaskRequest {
                id,
                history_length: None,
                tenant: None,
            };
            let task = handler
                .get_task(&Default::default(), request)
                .await
                .unwrap();
            let message = task
                .history
                .unwrap_or_default()
                .into_iter()
                .find(|message| AnsweringLesson::from_message(message).is_some())
                .expect("the lesson's message in the history");
            assert_eq!(message.role, Role::User);
            assert_eq!(
                message.text(),
                Some("A teacher answered the question: Chapter 85 goes to the general desk.")
            );
            let carried = serde_json::to_string(&message).unwrap();
            assert!(!carried.contains("alice"), "{carried}");
            assert!(!carried.contains("taughtBy"), "{carried}");
            let answering = AnsweringLesson::from_message(&message).unwrap();
            assert_eq!(answering.entry, "85");
            assert_eq!(answering.version_id.as_deref(), Some("v-1"));
        });
    }
}
