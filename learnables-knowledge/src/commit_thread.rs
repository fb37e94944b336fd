//! The commit thread of a knowledge whose back end makes lessons durable:
//! teachers queue their lessons and wait; the thread takes every lesson
//! waiting as one batch, has the [`Writer`] commit it in one append, and
//! answers each. Under load many lessons share one write; alone, a lesson
//! pays for exactly one.
//!
//! Both sides sleep while they wait, the thread until a lesson is queued,
//! a teacher until its answer: lessons come a few a minute, and a thread
//! that polled for them would burn CPU in every agent that has nothing to
//! do. After a write shared by several teachers the thread may sleep a
//! little longer, for them to come back (see [`next_batch`]).
//!
//! The back end runs on this thread, so a teacher is never the one stuck
//! in it: a back end that panics answers every lesson of its batch with an
//! error, and one that hangs leaves teachers waiting no longer than the
//! commit timeout. Blocking callers wait on a condition variable; async
//! callers await a oneshot, without blocking their thread. Dropping the
//! knowledge ends the thread and waits for it, as long as the commit
//! timeout at most: every lesson still queued is committed first.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::LessonResult;
use crate::writer::{Pending, Results, Writer};
use crate::{StoreError, TeachError};

type Outcome = Result<LessonResult, TeachError>;

/// The queue of lessons waiting for the commit thread.
pub(crate) struct CommitThread {
    queue: Arc<Queue>,
    thread: Option<JoinHandle<()>>,
}

struct Queue {
    waiting: Mutex<Waiting>,
    ready: Condvar,
    /// Told when the thread's work is over, so that closing can wait for
    /// it with a timeout (a `JoinHandle` has none).
    over: Condvar,
}

#[derive(Default)]
struct Waiting {
    next_ticket: u64,
    lessons: Vec<Queued>,
    /// Set when the knowledge is dropped: the thread ends.
    closed: bool,
    /// Set by the thread when it has answered its last lesson.
    ended: bool,
}

struct Queued {
    ticket: u64,
    pending: Pending<'static>,
    reply: Reply,
}

/// Where a lesson's result goes: a thread blocked in
/// [`CommitThread::submit`], or a task awaiting
/// [`CommitThread::submit_async`].
enum Reply {
    Blocking(Arc<Answer>),
    #[cfg(feature = "tokio")]
    Async(tokio::sync::oneshot::Sender<Outcome>),
}

impl Reply {
    /// Hands over the result; a teacher that gave up waiting is not told.
    fn send(self, outcome: Outcome) {
        match self {
            Reply::Blocking(answer) => answer.give(outcome),
            #[cfg(feature = "tokio")]
            Reply::Async(sender) => {
                let _ = sender.send(outcome);
            }
        }
    }
}

/// Where the commit thread leaves a blocking teacher's result.
#[derive(Default)]
struct Answer {
    outcome: Mutex<Option<Outcome>>,
    given: Condvar,
}

impl Answer {
    fn lock(&self) -> MutexGuard<'_, Option<Outcome>> {
        self.outcome.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn give(&self, outcome: Outcome) {
        *self.lock() = Some(outcome);
        self.given.notify_one();
    }

    /// The result, once given, or `None` after `timeout`.
    fn wait(&self, timeout: Duration) -> Option<Outcome> {
        let (mut outcome, _) = self
            .given
            .wait_timeout_while(self.lock(), timeout, |outcome| outcome.is_none())
            .unwrap_or_else(PoisonError::into_inner);
        outcome.take()
    }

    /// The result, if given already.
    fn take(&self) -> Option<Outcome> {
        self.lock().take()
    }
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        // Nothing runs a back end while holding this lock.
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl CommitThread {
    /// Starts the commit thread of `writer`. It holds the writer only
    /// while it commits, so that dropping the knowledge closes its back end.
    pub(crate) fn start(writer: Weak<Writer>) -> Result<CommitThread, StoreError> {
        let queue = Arc::new(Queue {
            waiting: Mutex::new(Waiting::default()),
            ready: Condvar::new(),
            over: Condvar::new(),
        });
        let running = queue.clone();
        let thread = std::thread::Builder::new()
            .name("learnables-commit".into())
            .spawn(move || {
                let over = Over(running);
                run(&over.0, &writer);
            })
            .map_err(|error| StoreError::Failed(format!("no commit thread: {error}").into()))?;
        Ok(CommitThread {
            queue,
            thread: Some(thread),
        })
    }

    /// Ends the thread once every lesson queued is answered, and waits for
    /// it to end, for `wait` at most (a back end that hangs is left to its
    /// thread, which ends when the back end returns).
    pub(crate) fn close(&mut self, wait: Duration) {
        self.queue.lock().closed = true;
        self.queue.ready.notify_all();
        let Some(thread) = self.thread.take() else {
            return;
        };
        if thread.thread().id() == std::thread::current().id() {
            return;
        }
        let waiting = self.queue.lock();
        let (waiting, _) = self
            .queue
            .over
            .wait_timeout_while(waiting, wait, |waiting| !waiting.ended)
            .unwrap_or_else(PoisonError::into_inner);
        if waiting.ended {
            drop(waiting);
            // Its work is over: the join waits only for the thread's exit.
            let _ = thread.join();
        }
    }

    /// Queues `pending` and waits up to `timeout` for its result.
    pub(crate) fn submit(&self, pending: Pending<'static>, timeout: Duration) -> Outcome {
        let answer = Arc::new(Answer::default());
        let ticket = self.enqueue(pending, Reply::Blocking(answer.clone()));
        match answer.wait(timeout) {
            Some(outcome) => outcome,
            None => self.withdraw(ticket, timeout, || answer.take()),
        }
    }

    /// [`CommitThread::submit`] for async code: the task, not its thread,
    /// waits. A lesson whose task is dropped while it waits is still
    /// committed; no one is told.
    #[cfg(feature = "tokio")]
    pub(crate) async fn submit_async(
        &self,
        pending: Pending<'static>,
        timeout: Duration,
    ) -> Outcome {
        let (reply, mut answer) = tokio::sync::oneshot::channel();
        let ticket = self.enqueue(pending, Reply::Async(reply));
        match tokio::time::timeout(timeout, &mut answer).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) | Err(_) => self.withdraw(ticket, timeout, || answer.try_recv().ok()),
        }
    }

    fn enqueue(&self, pending: Pending<'static>, reply: Reply) -> u64 {
        let mut waiting = self.queue.lock();
        let ticket = waiting.next_ticket;
        waiting.next_ticket += 1;
        waiting.lessons.push(Queued {
            ticket,
            pending,
            reply,
        });
        drop(waiting);
        self.queue.ready.notify_one();
        ticket
    }

    /// After waiting in vain: the lesson is withdrawn if it is still
    /// queued; `answered` is asked once more under the queue's lock, as the
    /// answer may have come between the timeout and the lock.
    fn withdraw(
        &self,
        ticket: u64,
        timeout: Duration,
        answered: impl FnOnce() -> Option<Outcome>,
    ) -> Outcome {
        let mut waiting = self.queue.lock();
        if let Some(outcome) = answered() {
            return outcome;
        }
        match waiting.lessons.iter().position(|q| q.ticket == ticket) {
            Some(index) => {
                waiting.lessons.remove(index);
                Err(TeachError::Store(StoreError::Failed(
                    format!(
                        "the knowledge's back end did not take the lesson within {timeout:?}: an \
                     earlier write has not finished; nothing was stored"
                    )
                    .into(),
                )))
            }
            None => Err(TeachError::Store(StoreError::OutcomeUnknown(
                format!("the knowledge's back end did not answer within {timeout:?}").into(),
            ))),
        }
    }
}

/// Tells whoever closes the thread that its work is over, even when it
/// ends in a panic.
struct Over(Arc<Queue>);

impl Drop for Over {
    fn drop(&mut self) {
        self.0.lock().ended = true;
        self.0.over.notify_all();
    }
}

impl Drop for CommitThread {
    fn drop(&mut self) {
        // Closed already when the knowledge was dropped; this is for a
        // knowledge that failed to start.
        self.queue.lock().closed = true;
        self.queue.ready.notify_all();
    }
}

/// The commit thread: takes every lesson waiting, commits them as one
/// batch, answers each; ends when the knowledge is dropped.
fn run(queue: &Queue, writer: &Weak<Writer>) {
    let mut last = Last::default();
    while let Some(batch) = next_batch(queue, &last) {
        last.answered = batch.len();
        let (lessons, replies): (Vec<_>, Vec<_>) = batch
            .into_iter()
            .map(|queued| (queued.pending, queued.reply))
            .unzip();
        let Some(writer) = writer.upgrade() else {
            return; // The knowledge is gone: its teachers are gone too.
        };
        let started = Instant::now();
        let results = commit(&writer, &lessons);
        last.took = started.elapsed();
        drop(writer);
        for (reply, result) in replies.into_iter().zip(results) {
            reply.send(result);
        }
    }
}

/// The batch the thread wrote last: how many teachers it answered, and
/// how long its write took.
#[derive(Default)]
struct Last {
    answered: usize,
    took: Duration,
}

/// The longest the thread waits for the teachers of its last batch to
/// come back (see [`next_batch`]).
const GROUP_COMMIT_DELAY_AT_MOST: Duration = Duration::from_millis(1);

/// Every lesson waiting, once there is one (slept for); `None` once the
/// knowledge is dropped and nothing is left.
///
/// After a write shared by several teachers, a group commit in the manner
/// of PostgreSQL's `commit_delay`: the teachers just answered come back
/// with their next lessons a moment later, and a batch taken before they
/// do leaves them to wait for the write after it, so that several teachers
/// commit in two alternating halves. So, while fewer lessons are queued
/// than the last batch held, the thread sleeps until they are, for as long
/// as that write took at most (waiting costs no more than the write it
/// saves), never longer than [`GROUP_COMMIT_DELAY_AT_MOST`]. A lone
/// teacher's batches hold one: it never waits.
fn next_batch(queue: &Queue, last: &Last) -> Option<Vec<Queued>> {
    let mut waiting = queue.lock();
    while waiting.lessons.is_empty() && !waiting.closed {
        waiting = queue
            .ready
            .wait(waiting)
            .unwrap_or_else(PoisonError::into_inner);
    }
    if last.answered > 1 && waiting.lessons.len() < last.answered {
        let delay = last.took.min(GROUP_COMMIT_DELAY_AT_MOST);
        (waiting, _) = queue
            .ready
            .wait_timeout_while(waiting, delay, |waiting| {
                waiting.lessons.len() < last.answered && !waiting.closed
            })
            .unwrap_or_else(PoisonError::into_inner);
    }
    // Empty: closed, and nothing left to answer.
    (!waiting.lessons.is_empty()).then(|| std::mem::take(&mut waiting.lessons))
}

/// Commits `lessons`, one result each: errors for all when the back end
/// panicked.
fn commit(writer: &Writer, lessons: &[Pending<'static>]) -> Results {
    match catch_unwind(AssertUnwindSafe(|| writer.commit(lessons))) {
        Ok(results) => results,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_owned());
            let message = crate::core_shared::shortened(&message);
            (0..lessons.len())
                .map(|_| {
                    Err(TeachError::Store(StoreError::OutcomeUnknown(
                        format!(
                            "the knowledge's back end panicked while storing the lesson ({message})"
                        )
                        .into(),
                    )))
                })
                .collect()
        }
    }
}
