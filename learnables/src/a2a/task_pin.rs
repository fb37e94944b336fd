//! [`TaskPin`]: the knowledge an A2A task reads, pinned on the task's first
//! message and the same on every later turn, on any replica, after a
//! restart or a redeploy: its position is kept in the task's metadata. The
//! one place a task re-pins is where it waits on a question with a teach
//! block that a lesson has since answered.

use a2a::{Task, TaskState};
use a2a_server::ExecutorContext;

use super::teach_block::TeachBlock;
use crate::knowledge::{Knowledge, Snapshot, VersionRecord};

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
/// assert!(later.answered_by().is_none() && new.answered_by().is_none());
/// ```
///
/// A task waiting (input-required) on a question whose teach block names
/// an entry has asked for exactly the lesson that teaches it: on its next
/// turn after that lesson it re-pins to the knowledge as it is then, and
/// [`TaskPin::answered_by`] names the version that answered. A waiting
/// task whose question no lesson answered keeps its pin:
///
/// ```
/// use a2a::{Message, Part, Role, Task, TaskState, TaskStatus};
/// use a2a_server::ExecutorContext;
/// use learnables::a2a::TaskPin;
/// use learnables::{Knowledge, Learnable, Lesson, LessonValue, TeachBlock};
/// # #[derive(Learnable, Clone, Debug, PartialEq)]
/// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
/// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
/// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
/// let knowledge = Knowledge::in_memory();
/// knowledge.register::<RoutingRule>().unwrap();
/// let teach = |entry: &str, desk: &str| {
///     let value = LessonValue::try_from(serde_json::json!({"desk": desk})).unwrap();
///     knowledge.teach(&Lesson::new("routing_rules", entry, value, "alice@example.com")).unwrap();
/// };
/// let context = |stored_task: Option<Task>| ExecutorContext {
///     message: None, task_id: "t1".into(), stored_task, context_id: "c1".into(),
///     metadata: None, user: None, service_params: Default::default(), tenant: None,
/// };
/// // The task asks about chapter 85, with a teach block, and waits.
/// let pin = TaskPin::of(&knowledge, &context(None));
/// assert!(pin.get::<RoutingRule>("85").is_none());
/// let mut question = Message::new(Role::Agent, vec![Part::text("Which desk handles chapter 85?")]);
/// TeachBlock::new("routing_rules", ["85"]).attach_to_message(&mut question).unwrap();
/// let mut task = Task {
///     id: "t1".into(),
///     context_id: "c1".into(),
///     status: TaskStatus { state: TaskState::InputRequired, message: Some(question), timestamp: None },
///     artifacts: None,
///     history: None,
///     metadata: None,
/// };
/// pin.record(&mut task);
///
/// // A lesson for another chapter does not answer it: the task keeps its pin.
/// teach("12", "general");
/// let waiting = TaskPin::of(&knowledge, &context(Some(task.clone())));
/// assert!(waiting.answered_by().is_none());
/// assert_eq!(waiting.position(), pin.position());
///
/// // The lesson it asked for does: it continues with knowledge that holds it.
/// teach("85", "perishables");
/// let answered = TaskPin::of(&knowledge, &context(Some(task.clone())));
/// assert_eq!(answered.get::<RoutingRule>("85").unwrap().desk, "perishables");
/// assert_eq!(answered.answered_by().unwrap().entry, "85");
///
/// // A task that is not waiting never sees a change.
/// task.status.state = TaskState::Working;
/// let running = TaskPin::of(&knowledge, &context(Some(task)));
/// assert!(running.get::<RoutingRule>("85").is_none());
/// assert!(running.answered_by().is_none());
/// ```
#[derive(Debug, Clone)]
pub struct TaskPin {
    snapshot: Snapshot,
    answered_by: Option<VersionRecord>,
}

impl TaskPin {
    /// The knowledge the task `context` answers reads: the version its
    /// stored task recorded, or, on its first message (no stored task, or
    /// one that recorded none), the knowledge as it is now. A stored task
    /// waiting (input-required) on a question whose teach block names an
    /// entry that has been taught since it pinned re-pins to the knowledge
    /// as it is now ([`TaskPin::answered_by`] says so).
    pub fn of(knowledge: &Knowledge, context: &ExecutorContext) -> TaskPin {
        let Some((task, position)) = context
            .stored_task
            .as_ref()
            .and_then(|task| Some((task, recorded_position(task)?)))
        else {
            return TaskPin {
                snapshot: knowledge.pin(),
                answered_by: None,
            };
        };
        if let Some(block) = waiting_question(task) {
            let now = knowledge.pin();
            let answered_by = block
                .entries
                .iter()
                .filter_map(|entry| now.entry_record(&block.collection, entry))
                .find(|record| record.position > position)
                .cloned();
            if answered_by.is_some() {
                return TaskPin {
                    snapshot: now,
                    answered_by,
                };
            }
        }
        TaskPin {
            snapshot: knowledge.pin_at(position),
            answered_by: None,
        }
    }

    /// The version that answered the question the task was waiting on,
    /// when this turn re-pinned for it: a lesson taught one of the entries
    /// the question's teach block named. `None` on a task's first turn and
    /// on every turn that kept the task's pin.
    pub fn answered_by(&self) -> Option<&VersionRecord> {
        self.answered_by.as_ref()
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

/// The teach block of the question `task` waits on: its status is
/// input-required, and its status message carries one that reads.
pub(crate) fn waiting_question(task: &Task) -> Option<TeachBlock> {
    if task.status.state != TaskState::InputRequired {
        return None;
    }
    TeachBlock::from_a2a_message(task.status.message.as_ref()?)
        .ok()
        .flatten()
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

#[cfg(all(test, feature = "derive"))]
mod tests {
    use a2a::{Message, Part, Role, TaskStatus};

    use super::*;
    use crate::{Learnable, TeachBlock};
    use crate::{Lesson, LessonValue};

    #[derive(Learnable, Clone, Debug, PartialEq)]
    #[learnable(
        collection = "routing_rules",
        entry = "routing rule",
        teaches = "Which desk",
        how = "A table keyed on the HS chapter",
        decided_by = "rules",
        describes = "{desk}"
    )]
    struct RoutingRule {
        /// Desk
        desk: String,
    }

    fn knowledge() -> Knowledge {
        let knowledge = Knowledge::in_memory();
        knowledge.register::<RoutingRule>().unwrap();
        knowledge
    }

    /// Teaches `entry` a desk it has never had.
    fn teach(knowledge: &Knowledge, collection: &str, entry: &str) {
        let desk = format!("desk {}", knowledge.pin().position());
        let value = LessonValue::try_from(serde_json::json!({ "desk": desk })).unwrap();
        let lesson = Lesson::new(collection, entry, value, "alice@example.com");
        assert!(knowledge.teach(&lesson).unwrap().learned);
    }

    /// A task pinned at `knowledge`'s position now, waiting in `state` on
    /// a question carrying `block`.
    fn task(knowledge: &Knowledge, state: TaskState, block: Option<TeachBlock>) -> Task {
        let mut question = Message::new(Role::Agent, vec![Part::text("Which desk?")]);
        if let Some(block) = block {
            block.attach_to_message(&mut question).unwrap();
        }
        let mut task = Task {
            id: "t1".into(),
            context_id: "c1".into(),
            status: TaskStatus {
                state,
                message: Some(question),
                timestamp: None,
            },
            artifacts: None,
            history: None,
            metadata: None,
        };
        TaskPin::of(knowledge, &context(None)).record(&mut task);
        task
    }

    fn context(stored_task: Option<Task>) -> ExecutorContext {
        ExecutorContext {
            message: None,
            task_id: "t1".into(),
            stored_task,
            context_id: "c1".into(),
            metadata: None,
            user: None,
            service_params: Default::default(),
            tenant: None,
        }
    }

    #[test]
    fn a_lesson_for_any_entry_the_block_named_answers_it() {
        let knowledge = knowledge();
        let block = TeachBlock::new("routing_rules", ["84", "85"]);
        let waiting = task(&knowledge, TaskState::InputRequired, Some(block));
        teach(&knowledge, "routing_rules", "85");
        let pin = TaskPin::of(&knowledge, &context(Some(waiting)));
        let answered_by = pin.answered_by().expect("the question is answered");
        assert_eq!(answered_by.entry, "85");
        assert_eq!(pin.position(), knowledge.pin().position());
    }

    #[test]
    fn a_question_without_a_teach_block_keeps_its_pin() {
        let knowledge = knowledge();
        let waiting = task(&knowledge, TaskState::InputRequired, None);
        teach(&knowledge, "routing_rules", "85");
        let pin = TaskPin::of(&knowledge, &context(Some(waiting)));
        assert!(pin.answered_by().is_none());
        assert_eq!(pin.position(), 0);
    }

    #[test]
    fn an_entry_taught_before_the_task_pinned_answers_nothing() {
        let knowledge = knowledge();
        teach(&knowledge, "routing_rules", "85");
        let block = TeachBlock::new("routing_rules", ["85"]);
        let waiting = task(&knowledge, TaskState::InputRequired, Some(block));
        let pin = TaskPin::of(&knowledge, &context(Some(waiting)));
        assert!(pin.answered_by().is_none());
        assert_eq!(pin.position(), 1);
    }

    #[test]
    fn a_retraction_of_the_entry_answers_nothing() {
        let knowledge = knowledge();
        teach(&knowledge, "routing_rules", "85");
        let block = TeachBlock::new("routing_rules", ["85"]);
        let waiting = task(&knowledge, TaskState::InputRequired, Some(block));
        knowledge
            .retract("routing_rules", "85", "alice@example.com", None)
            .unwrap();
        let pin = TaskPin::of(&knowledge, &context(Some(waiting)));
        assert!(pin.answered_by().is_none());
        assert_eq!(pin.position(), 1);
        assert!(pin.get::<RoutingRule>("85").is_some());
    }

    #[test]
    fn only_an_input_required_task_re_pins() {
        let knowledge = knowledge();
        for state in [
            TaskState::Submitted,
            TaskState::Working,
            TaskState::AuthRequired,
            TaskState::Completed,
        ] {
            let block = TeachBlock::new("routing_rules", ["85"]);
            let task = task(&knowledge, state.clone(), Some(block));
            teach(&knowledge, "routing_rules", "85");
            let pin = TaskPin::of(&knowledge, &context(Some(task.clone())));
            assert!(pin.answered_by().is_none(), "{state:?}");
            assert_eq!(Some(pin.position()), recorded_position(&task), "{state:?}");
        }
    }
}
