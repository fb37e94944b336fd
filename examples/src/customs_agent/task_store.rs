//! A task store that stays bounded, whoever sends messages: the SDK's
//! `InMemoryTaskStore` keeps every task forever, each with its whole
//! history, so a client sending messages fills the agent's memory. This one
//! keeps at most `capacity` tasks and at most `max_bytes` of them (each
//! task counted as the bytes of its JSON), making room by evicting the
//! oldest finished task (completed, failed, canceled, rejected), or, when
//! every task is still open, the oldest one; and at most `max_history`
//! messages of each task's history (the latest, and no more of them than
//! fit in `max_bytes`).
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

/// How many bytes of tasks the example agent keeps: 64 MiB, which a small
/// machine holds beside the agent, whoever sends messages.
pub const DEFAULT_MAX_TASK_BYTES: usize = 64 * 1024 * 1024;

/// The longest task id the store looks up (the ids it gives are UUIDs, 36
/// characters): a longer one is not found, and the error shows it
/// shortened.
pub const MAX_TASK_ID_CHARS: usize = 128;

/// An in-memory [`TaskStore`] holding at most `capacity` tasks of at most
/// `max_history` messages each, and at most [`max_bytes`](Self::max_bytes)
/// of tasks in all.
///
/// ```
/// use learnables_examples::customs_agent::BoundedTaskStore;
/// let store = BoundedTaskStore::new(16, 10).with_max_bytes(1 << 20);
/// assert_eq!(store.capacity(), 16);
/// assert_eq!(store.max_bytes(), 1 << 20);
/// ```
pub struct BoundedTaskStore {
    capacity: usize,
    max_history: usize,
    max_bytes: usize,
    tasks: RwLock<Tasks>,
}

#[derive(Default)]
struct Tasks {
    by_id: HashMap<String, Stored>,
    /// Task ids by when they were created.
    by_age: BTreeMap<u64, String>,
    created: u64,
    /// The bytes of every task held.
    bytes: usize,
}

struct Stored {
    task: Task,
    version: TaskVersion,
    /// The bytes of its JSON.
    bytes: usize,
}

impl BoundedTaskStore {
    /// A store of at most `capacity` tasks (at least 1) with at most
    /// `max_history` messages of history each.
    pub fn new(capacity: usize, max_history: usize) -> BoundedTaskStore {
        BoundedTaskStore {
            capacity: capacity.max(1),
            max_history,
            max_bytes: DEFAULT_MAX_TASK_BYTES,
            tasks: RwLock::new(Tasks::default()),
        }
    }

    /// The same store holding at most `max_bytes` of tasks
    /// ([`DEFAULT_MAX_TASK_BYTES`] unless this says otherwise).
    pub fn with_max_bytes(mut self, max_bytes: usize) -> BoundedTaskStore {
        self.max_bytes = max_bytes;
        self
    }

    /// How many tasks it keeps at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many bytes of tasks (each counted as its JSON) it keeps at most.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// How many bytes of tasks it holds now.
    ///
    /// ```
    /// # use learnables_examples::customs_agent::BoundedTaskStore;
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// assert_eq!(BoundedTaskStore::default().bytes().await, 0);
    /// # });
    /// ```
    pub async fn bytes(&self) -> usize {
        self.tasks.read().await.bytes
    }

    /// How many tasks it holds now.
    pub async fn len(&self) -> usize {
        self.tasks.read().await.by_id.len()
    }

    /// Whether it holds none.
    pub async fn is_empty(&self) -> bool {
        self.len().await == 0
    }

    /// `task` with its history cut to the latest `max_history` messages,
    /// and to as many of those as fit in `max_bytes`, with its size; an
    /// error when even its latest message does not fit.
    fn trimmed(&self, mut task: Task) -> Result<(Task, usize), A2AError> {
        if let Some(history) = task.history.as_mut()
            && history.len() > self.max_history
        {
            history.drain(..history.len() - self.max_history);
        }
        loop {
            let bytes = json_bytes(&task);
            if bytes <= self.max_bytes {
                return Ok((task, bytes));
            }
            match task.history.as_mut() {
                Some(history) if history.len() > 1 => {
                    history.remove(0);
                }
                _ => {
                    return Err(A2AError::invalid_request(format!(
                        "the task is larger than the {} bytes this agent keeps of its tasks",
                        self.max_bytes
                    )));
                }
            }
        }
    }
}

/// The bytes of `task`'s JSON, counted without writing them anywhere.
fn json_bytes(task: &Task) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, task).map_or(usize::MAX, |()| count.0)
}

impl Default for BoundedTaskStore {
    fn default() -> BoundedTaskStore {
        BoundedTaskStore::new(DEFAULT_TASK_CAPACITY, DEFAULT_MAX_HISTORY)
    }
}

impl Tasks {
    /// Evicts the oldest finished task other than `keep`, or the oldest
    /// task other than `keep` if none is; false when there is none to evict.
    fn evict_one(&mut self, keep: &str) -> bool {
        let others = || self.by_age.iter().filter(|(_, id)| id.as_str() != keep);
        let victim = others()
            .find(|(_, id)| {
                self.by_id
                    .get(*id)
                    .is_some_and(|stored| stored.task.status.state.is_terminal())
            })
            .or_else(|| others().next())
            .map(|(born, id)| (*born, id.clone()));
        let Some((born, id)) = victim else {
            return false;
        };
        self.by_age.remove(&born);
        if let Some(stored) = self.by_id.remove(&id) {
            self.bytes -= stored.bytes;
        }
        true
    }

    /// Evicts other tasks than `keep` until `more` bytes and, when `adding`,
    /// one more task fit.
    fn make_room(&mut self, keep: &str, more: usize, adding: bool, store: &BoundedTaskStore) {
        while (self.bytes + more > store.max_bytes || adding && self.by_id.len() >= store.capacity)
            && self.evict_one(keep)
        {}
    }
}

#[async_trait::async_trait]
impl TaskStore for BoundedTaskStore {
    async fn create(&self, task: Task) -> Result<TaskVersion, A2AError> {
        let (task, bytes) = self.trimmed(task)?;
        let mut tasks = self.tasks.write().await;
        if tasks.by_id.contains_key(&task.id) {
            return Err(A2AError::internal("task already exists"));
        }
        tasks.make_room(&task.id, bytes, true, self);
        tasks.created += 1;
        let born = tasks.created;
        tasks.by_age.insert(born, task.id.clone());
        tasks.bytes += bytes;
        tasks.by_id.insert(
            task.id.clone(),
            Stored {
                task,
                version: 1,
                bytes,
            },
        );
        Ok(1)
    }

    async fn update(&self, task: Task) -> Result<TaskVersion, A2AError> {
        let (task, bytes) = self.trimmed(task)?;
        let mut tasks = self.tasks.write().await;
        let stored = tasks
            .by_id
            .get(&task.id)
            .ok_or_else(|| A2AError::task_not_found(&task.id))?;
        if stored.task.status.state.is_terminal() && stored.task.status.state != task.status.state {
            return Err(A2AError::invalid_request(format!(
                "task {} is in terminal state {:?} and cannot transition to {:?}",
                task.id, stored.task.status.state, task.status.state
            )));
        }
        let old_bytes = stored.bytes;
        tasks.bytes -= old_bytes;
        tasks.make_room(&task.id, bytes, false, self);
        tasks.bytes += bytes;
        let stored = tasks
            .by_id
            .get_mut(&task.id)
            .expect("make_room keeps the task it makes room for");
        stored.version += 1;
        stored.bytes = bytes;
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
