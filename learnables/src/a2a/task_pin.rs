//! [`TaskPin`]: the knowledge an A2A task reads, pinned on the task's first
//! message and the same on every later turn, on any replica, after a
//! restart or a redeploy: its position is kept in the task's metadata.

use a2a::Task;
use a2a_server::ExecutorContext;

use crate::knowledge::{Knowledge, Snapshot};

/// The key of a task's metadata under which [`TaskPin`] keeps the position
/// the task pinned, as a decimal string (A2A metadata numbers are doubles,
/// which cannot hold every position).
pub const TASK_POSITION_KEY: &str = "learnables/knowledgePosition";

/// The knowledge a task reads: pinned when the task's first message
/// arrives, and on every later turn the same version, read back from the
/// position [`TaskPin::record`] kept in the task. An `AgentExecutor` takes
/// it at the top of `execute` and records it on the task it returns;
/// calling [`Knowledge::pin`] on every message instead would let a task's
/// knowledge change between turns.
///
/// ```
/// use a2a::{Task, TaskState, TaskStatus};
/// use a2a_server::ExecutorContext;
/// use learnables::a2a::TaskPin;
/// use learnables::{Knowledge, Learnable, Lesson, LessonValue};
/// # #[derive(Learnable, Clone, Debug, PartialEq)]
/// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
/// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
/// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
/// let knowledge = Knowledge::in_memory();
/// knowledge.register::<RoutingRule>().unwrap();
/// let teach = |desk: &str| {
///     let value = LessonValue::try_from(serde_json::json!({"desk": desk})).unwrap();
///     knowledge.teach(&Lesson::new("routing_rules", "84", value, "alice@example.com")).unwrap();
/// };
/// teach("general");
/// let context = |stored_task: Option<Task>| ExecutorContext {
///     message: None,
///     task_id: "t1".into(),
///     stored_task,
///     context_id: "c1".into(),
///     metadata: None,
///     user: None,
///     service_params: Default::default(),
///     tenant: None,
/// };
///
/// // The task's first message: no stored task yet.
/// let pin = TaskPin::of(&knowledge, &context(None));
/// assert_eq!(pin.get::<RoutingRule>("84").unwrap().desk, "general");
/// let mut task = Task {
///     id: "t1".into(),
///     context_id: "c1".into(),
///     status: TaskStatus { state: TaskState::InputRequired, message: None, timestamp: None },
///     artifacts: None,
///     history: None,
///     metadata: None,
/// };
/// pin.record(&mut task);
///
/// teach("perishables");
///
/// // A later turn of the same task reads what it started with.
/// let later = TaskPin::of(&knowledge, &context(Some(task)));
/// assert_eq!(later.get::<RoutingRule>("84").unwrap().desk, "general");
/// // A new task sees the lesson.
/// let new = TaskPin::of(&knowledge, &context(None));
/// assert_eq!(new.get::<RoutingRule>("84").unwrap().desk, "perishables");
/// ```
#[derive(Debug, Clone)]
pub struct TaskPin {
    snapshot: Snapshot,
}

impl TaskPin {
    /// The knowledge the task `context` answers reads: the version its
    /// stored task recorded, or, on its first message (no stored task, or
    /// one that recorded none), the knowledge as it is now.
    pub fn of(knowledge: &Knowledge, context: &ExecutorContext) -> TaskPin {
        let snapshot = match context.stored_task.as_ref().and_then(recorded_position) {
            Some(position) => knowledge.pin_at(position),
            None => knowledge.pin(),
        };
        TaskPin { snapshot }
    }

    /// The pinned knowledge.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// Keeps the pin's position in `task`'s metadata (under
    /// [`TASK_POSITION_KEY`]), for the task's later turns: call it on the
    /// task the executor returns or stores.
    pub fn record(&self, task: &mut Task) {
        task.metadata.get_or_insert_with(Default::default).insert(
            TASK_POSITION_KEY.to_owned(),
            serde_json::Value::String(self.snapshot.position().to_string()),
        );
    }
}

impl std::ops::Deref for TaskPin {
    type Target = Snapshot;

    fn deref(&self) -> &Snapshot {
        &self.snapshot
    }
}

/// The position a task recorded, if it holds one that reads.
fn recorded_position(task: &Task) -> Option<u64> {
    task.metadata
        .as_ref()?
        .get(TASK_POSITION_KEY)?
        .as_str()?
        .parse()
        .ok()
}
