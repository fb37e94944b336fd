//! Group commit on a thread of its own: teachers queue their lessons and
//! wait; the commit thread takes every lesson waiting when it starts
//! writing, commits them in a single durable write, and answers each.
//! Under load many lessons share one sync to disk; alone, a lesson pays for
//! exactly one.
//!
//! The back end only ever runs on the commit thread, so a teacher is never
//! the one stuck in it: a back end that panics answers every lesson of its
//! batch with an error, and one that hangs leaves teachers waiting no longer
//! than the knowledge's commit timeout. Reads never go through here.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// What a waiting teacher is told when its item is not answered in time.
pub(crate) enum Late {
    /// The item was still queued: it was withdrawn and never reached the
    /// back end.
    Withdrawn,
    /// The item was being committed: whether it was stored is unknown.
    InFlight,
}

/// A queue of work items of type `I` whose results are `R`, committed in
/// batches on a thread of the queue's own.
pub(crate) struct Committer<I, R> {
    queue: Arc<Queue<I, R>>,
}

/// Commits a batch: one result per item, in order, or `None` when the
/// knowledge it commits to is gone.
type CommitFn<I, R> = Box<dyn FnMut(Vec<I>) -> Option<Vec<R>> + Send>;

/// The result for an item of a batch whose commit panicked, from the
/// panic's message.
type PanickedFn<R> = Box<dyn Fn(&str) -> R + Send>;

struct Queue<I, R> {
    state: Mutex<Waiting<I, R>>,
    ready: Condvar,
}

struct Waiting<I, R> {
    next_ticket: u64,
    items: Vec<Queued<I, R>>,
    /// Set when the committer is dropped: the thread ends.
    closed: bool,
    /// What the commit thread runs, until it is started.
    unstarted: Option<(CommitFn<I, R>, PanickedFn<R>)>,
}

struct Queued<I, R> {
    ticket: u64,
    item: I,
    reply: Reply<R>,
}

/// Where an item's result goes: a thread blocked in
/// [`Committer::submit`], or a task awaiting [`Committer::submit_async`].
enum Reply<R> {
    Blocking(SyncSender<R>),
    #[cfg(feature = "tokio")]
    Async(tokio::sync::oneshot::Sender<R>),
}

impl<R> Reply<R> {
    /// Hands over the result; a teacher that gave up waiting is not told.
    fn send(self, result: R) {
        match self {
            Reply::Blocking(sender) => {
                let _ = sender.send(result);
            }
            #[cfg(feature = "tokio")]
            Reply::Async(sender) => {
                let _ = sender.send(result);
            }
        }
    }
}

impl<I, R> Queue<I, R> {
    fn lock(&self) -> MutexGuard<'_, Waiting<I, R>> {
        // Nothing runs user code while holding this lock: it is never
        // poisoned in a way that leaves the queue inconsistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<I: Send + 'static, R: Send + 'static> Committer<I, R> {
    /// A committer whose thread, started by the first item, runs `commit`
    /// on every batch and answers every item of a batch whose commit
    /// panicked with `panicked(message)`.
    pub(crate) fn new(
        commit: impl FnMut(Vec<I>) -> Option<Vec<R>> + Send + 'static,
        panicked: impl Fn(&str) -> R + Send + 'static,
    ) -> Committer<I, R> {
        Committer {
            queue: Arc::new(Queue {
                state: Mutex::new(Waiting {
                    next_ticket: 0,
                    items: Vec::new(),
                    closed: false,
                    unstarted: Some((Box::new(commit), Box::new(panicked))),
                }),
                ready: Condvar::new(),
            }),
        }
    }

    /// Queues `item` and waits up to `timeout` for its result, starting
    /// the commit thread if it is not running yet.
    pub(crate) fn submit(&self, item: I, timeout: Duration) -> Result<R, Late> {
        let (reply, answer) = sync_channel(1);
        let ticket = self.enqueue(item, Reply::Blocking(reply))?;
        match answer.recv_timeout(timeout) {
            Ok(result) => Ok(result),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                self.withdraw(ticket, || answer.try_recv().ok())
            }
        }
    }

    /// [`Committer::submit`] for async code: the task, not its thread,
    /// waits for the result. An item whose task is dropped while it waits
    /// is still committed; no one is told.
    #[cfg(feature = "tokio")]
    pub(crate) async fn submit_async(&self, item: I, timeout: Duration) -> Result<R, Late> {
        let (reply, mut answer) = tokio::sync::oneshot::channel();
        let ticket = self.enqueue(item, Reply::Async(reply))?;
        match tokio::time::timeout(timeout, &mut answer).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(_)) | Err(_) => self.withdraw(ticket, || answer.try_recv().ok()),
        }
    }

    /// Queues `item`, starting the commit thread if it is not running yet:
    /// the item's ticket.
    fn enqueue(&self, item: I, reply: Reply<R>) -> Result<u64, Late> {
        let ticket = {
            let mut waiting = self.queue.lock();
            if let Some((commit, panicked)) = waiting.unstarted.take() {
                let queue = Arc::clone(&self.queue);
                let spawned = std::thread::Builder::new()
                    .name("learnables-commit".into())
                    .spawn(move || run(&queue, commit, panicked));
                if spawned.is_err() {
                    return Err(Late::Withdrawn);
                }
            }
            let ticket = waiting.next_ticket;
            waiting.next_ticket += 1;
            waiting.items.push(Queued {
                ticket,
                item,
                reply,
            });
            ticket
        };
        self.queue.ready.notify_one();
        Ok(ticket)
    }

    /// After waiting in vain: the item is withdrawn if it is still queued;
    /// `answered` is asked once more under the queue's lock, as the answer
    /// may have come between the timeout and the lock.
    fn withdraw(&self, ticket: u64, answered: impl FnOnce() -> Option<R>) -> Result<R, Late> {
        let mut waiting = self.queue.lock();
        if let Some(result) = answered() {
            return Ok(result);
        }
        match waiting.items.iter().position(|q| q.ticket == ticket) {
            Some(index) => {
                waiting.items.remove(index);
                Err(Late::Withdrawn)
            }
            None => Err(Late::InFlight),
        }
    }
}

impl<I, R> Drop for Committer<I, R> {
    fn drop(&mut self) {
        self.queue.lock().closed = true;
        self.queue.ready.notify_all();
    }
}

/// The commit thread: takes every item waiting, commits them, answers each.
fn run<I, R>(queue: &Queue<I, R>, mut commit: CommitFn<I, R>, panicked: PanickedFn<R>) {
    loop {
        let batch = {
            let mut waiting = queue.lock();
            while waiting.items.is_empty() && !waiting.closed {
                waiting = queue
                    .ready
                    .wait(waiting)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if waiting.items.is_empty() {
                return;
            }
            std::mem::take(&mut waiting.items)
        };
        let mut replies = Vec::with_capacity(batch.len());
        let mut items = Vec::with_capacity(batch.len());
        for queued in batch {
            replies.push(queued.reply);
            items.push(queued.item);
        }
        let results = match catch_unwind(AssertUnwindSafe(|| commit(items))) {
            Ok(Some(results)) => results,
            // The knowledge is gone: its teachers are gone too.
            Ok(None) => return,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "no message".to_owned());
                replies.iter().map(|_| panicked(&message)).collect()
            }
        };
        let mut results = results.into_iter();
        for reply in replies {
            let result = results.next().unwrap_or_else(|| panicked("no result"));
            reply.send(result);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    const LONG: Duration = Duration::from_secs(60);

    #[test]
    fn every_item_gets_its_own_result_under_contention_in_fewer_batches() {
        let batches = Arc::new(AtomicUsize::new(0));
        let counted = batches.clone();
        let committer = Arc::new(Committer::<u64, u64>::new(
            move |items: Vec<u64>| {
                counted.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_micros(200));
                Some(items.iter().map(|item| item * 2).collect())
            },
            |_| u64::MAX,
        ));
        let threads: Vec<_> = (0..8u64)
            .map(|thread| {
                let committer = committer.clone();
                std::thread::spawn(move || {
                    for i in 0..200u64 {
                        let item = thread * 1000 + i;
                        assert_eq!(committer.submit(item, LONG).ok(), Some(item * 2));
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert!(batches.load(Ordering::Relaxed) < 1600);
    }

    #[test]
    fn a_panicking_commit_answers_every_item_and_the_next_batch_commits() {
        let committer = Committer::<u64, Result<u64, String>>::new(
            |items: Vec<u64>| {
                assert!(items[0] != 13, "unlucky");
                Some(items.into_iter().map(Ok).collect())
            },
            |message: &str| Err(message.to_owned()),
        );
        let answer = committer.submit(13, LONG);
        assert_eq!(answer.ok(), Some(Err("unlucky".to_owned())));
        assert_eq!(committer.submit(14, LONG).ok(), Some(Ok(14)));
    }

    #[test]
    fn a_hanging_commit_times_out_every_waiting_item() {
        let (release, hang) = std::sync::mpsc::channel::<()>();
        let committer = Committer::<u64, u64>::new(
            move |items: Vec<u64>| {
                // Hangs until the sender is dropped.
                let _ = hang.recv();
                Some(items)
            },
            |_| 0,
        );
        let short = Duration::from_millis(100);
        assert!(matches!(committer.submit(1, short), Err(Late::InFlight)));
        assert!(matches!(committer.submit(2, short), Err(Late::Withdrawn)));
        drop(release);
        assert_eq!(committer.submit(3, LONG).ok(), Some(3));
    }
}
