//! A task store that stays bounded, whoever sends messages: the SDK's
//! `InMemoryTaskStore` keeps every task forever, each with its whole
//! history, so a client sending messages fills the agent's memory. This one
//! keeps at most `capacity` tasks, making room by evicting the oldest
//! finished task (completed, failed, canceled, rejected), or, when every
//! task is still open, the oldest one; and at most `max_history` messages
//! of each task's history (the latest).
//!
//! It cannot wrap the SDK's store (which deletes nothing), so it keeps the
//! tasks itself, with the same rules: a terminal task keeps its state, a
//! cancel is checked and made under one lock, and lists are paged as the
//! SDK pages them.

use std::collections::{BTreeMap, HashMap};

use a2a::{A2AError, ListTasksRequest, ListTasksResponse, Task, TaskState};
use a2a_server::TaskStore;
use a2a_server::pagination::resolve_page_size;
use a2a_server::task_store::TaskVersion;
use tokio::sync::RwLock;

/// How many tasks the example agent keeps.
pub const DEFAULT_TASK_CAPACITY: usize = 10_000;

/// How many messages of a task's history the example agent keeps.
pub const DEFAULT_MAX_HISTORY: usize = 100;

/// The longest task id the store looks up (the ids it gives are UUIDs, 36
/// characters): a longer one is not found, and the error shows it
/// shortened.
pub const MAX_TASK_ID_CHARS: usize = 128;

/// An in-memory [`TaskStore`] holding at most `capacity` tasks of at most
/// `max_history` messages each.
///
/// ```
/// use learnables_examples::customs_agent::BoundedTaskStore;
/// let store = BoundedTaskStore::new(16, 10);
/// assert_eq!(store.capacity(), 16);
/// ```
pub struct BoundedTaskStore {
    capacity: usize,
    max_history: usize,
    tasks: RwLock<Tasks>,
}

#[derive(Default)]
struct Tasks {
    by_id: HashMap<String, Stored>,
    /// Task ids by when they were created.
    by_age: BTreeMap<u64, String>,
    created: u64,
}

struct Stored {
    task: Task,
    version: TaskVersion,
}

impl BoundedTaskStore {
    /// A store of at most `capacity` tasks (at least 1) with at most
    /// `max_history` messages of history each.
    pub fn new(capacity: usize, max_history: usize) -> BoundedTaskStore {
        BoundedTaskStore {
            capacity: capacity.max(1),
            max_history,
            tasks: RwLock::new(Tasks::default()),
        }
    }

    /// How many tasks it keeps at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many tasks it holds now.
    pub async fn len(&self) -> usize {
        self.tasks.read().await.by_id.len()
    }

    /// Whether it holds none.
    pub async fn is_empty(&self) -> bool {
        self.len().await == 0
    }

    /// `task` with its history cut to the latest `max_history` messages.
    fn trimmed(&self, mut task: Task) -> Task {
        if let Some(history) = task.history.as_mut()
            && history.len() > self.max_history
        {
            history.drain(..history.len() - self.max_history);
        }
        task
    }
}

impl Default for BoundedTaskStore {
    fn default() -> BoundedTaskStore {
        BoundedTaskStore::new(DEFAULT_TASK_CAPACITY, DEFAULT_MAX_HISTORY)
    }
}

impl Tasks {
    /// Evicts the oldest finished task, or the oldest task if none is.
    fn evict_one(&mut self) {
        let victim = self
            .by_age
            .iter()
            .find(|(_, id)| {
                self.by_id
                    .get(*id)
                    .is_some_and(|stored| stored.task.status.state.is_terminal())
            })
            .or_else(|| self.by_age.iter().next())
            .map(|(born, id)| (*born, id.clone()));
        if let Some((born, id)) = victim {
            self.by_age.remove(&born);
            self.by_id.remove(&id);
        }
    }
}

#[async_trait::async_trait]
impl TaskStore for BoundedTaskStore {
    async fn create(&self, task: Task) -> Result<TaskVersion, A2AError> {
        let task = self.trimmed(task);
        let mut tasks = self.tasks.write().await;
        if tasks.by_id.contains_key(&task.id) {
            return Err(A2AError::internal("task already exists"));
        }
        while tasks.by_id.len() >= self.capacity {
            tasks.evict_one();
        }
        tasks.created += 1;
        let born = tasks.created;
        tasks.by_age.insert(born, task.id.clone());
        tasks
            .by_id
            .insert(task.id.clone(), Stored { task, version: 1 });
        Ok(1)
    }

    async fn update(&self, task: Task) -> Result<TaskVersion, A2AError> {
        let task = self.trimmed(task);
        let mut tasks = self.tasks.write().await;
        let stored = tasks
            .by_id
            .get_mut(&task.id)
            .ok_or_else(|| A2AError::task_not_found(&task.id))?;
        if stored.task.status.state.is_terminal() && stored.task.status.state != task.status.state {
            return Err(A2AError::invalid_request(format!(
                "task {} is in terminal state {:?} and cannot transition to {:?}",
                task.id, stored.task.status.state, task.status.state
            )));
        }
        stored.version += 1;
        stored.task = task;
        Ok(stored.version)
    }

    async fn get(&self, task_id: &str) -> Result<Option<Task>, A2AError> {
        if task_id.chars().count() > MAX_TASK_ID_CHARS {
            // No task has such an id; answered here so that the error
            // repeats the client's id escaped and shortened, not whole.
            let shown = learnables::untrusted::Untrusted::new(task_id).max_chars(64);
            return Err(A2AError::task_not_found(&shown.to_string()));
        }
        let tasks = self.tasks.read().await;
        Ok(tasks.by_id.get(task_id).map(|stored| stored.task.clone()))
    }

    async fn list(&self, request: &ListTasksRequest) -> Result<ListTasksResponse, A2AError> {
        let tasks = self.tasks.read().await;
        let mut matching: Vec<&Task> = tasks
            .by_id
            .values()
            .map(|stored| &stored.task)
            .filter(|task| {
                request
                    .context_id
                    .as_ref()
                    .is_none_or(|context| &task.context_id == context)
                    && request
                        .status
                        .as_ref()
                        .is_none_or(|state| &task.status.state == state)
                    && request.status_timestamp_after.is_none_or(|after| {
                        task.status
                            .timestamp
                            .is_some_and(|timestamp| timestamp > after)
                    })
            })
            .collect();
        matching.sort_by(|a, b| a.id.cmp(&b.id));
        let page_size = resolve_page_size(request.page_size);
        let start = match &request.page_token {
            Some(token) => token
                .parse::<usize>()
                .map_err(|_| A2AError::invalid_params("invalid page token"))?,
            None => 0,
        };
        let total = matching.len();
        let start = start.min(total);
        let end = start.saturating_add(page_size).min(total);
        let page = matching[start..end]
            .iter()
            .map(|task| with_history_length((*task).clone(), request.history_length))
            .collect();
        Ok(ListTasksResponse {
            tasks: page,
            next_page_token: if end < total {
                end.to_string()
            } else {
                String::new()
            },
            page_size: i32::try_from(page_size).unwrap_or(i32::MAX),
            total_size: i32::try_from(total).unwrap_or(i32::MAX),
        })
    }

    async fn begin_cancel(&self, task_id: &str) -> Result<Task, A2AError> {
        let mut tasks = self.tasks.write().await;
        let stored = tasks
            .by_id
            .get_mut(task_id)
            .ok_or_else(|| A2AError::task_not_found(task_id))?;
        if stored.task.status.state.is_terminal() {
            return Err(A2AError::task_not_cancelable(task_id));
        }
        stored.version += 1;
        stored.task.status.state = TaskState::Canceled;
        stored.task.status.timestamp = Some(chrono::Utc::now());
        Ok(stored.task.clone())
    }
}

/// `task` with only the latest `history_length` messages, as a list asked.
fn with_history_length(mut task: Task, history_length: Option<i32>) -> Task {
    if let (Some(requested), Some(history)) = (history_length, task.history.as_mut()) {
        let keep = usize::try_from(requested).unwrap_or(0);
        if history.len() > keep {
            history.drain(..history.len() - keep);
        }
    }
    task
}
