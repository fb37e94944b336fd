//! Group commit on a thread of its own: teachers queue their lessons and
//! wait; the commit thread takes every lesson waiting when it starts
//! writing, commits them in a single durable write, and answers each.
//! Under load many lessons share one sync to disk; alone, a lesson pays for
//! exactly one.
//!
//! The back end runs on the commit thread, so a teacher is never the one
//! stuck in it: a back end that panics answers every lesson of its batch
//! with an error, and one that hangs leaves teachers waiting no longer than
//! the knowledge's commit timeout. The one exception is asked for by the
//! caller ([`Committer::submit_here_when_idle`], for back ends that only
//! write local files): a teacher that finds nothing being committed and
//! nothing waiting commits its item on its own thread, sparing it two
//! thread hand-overs; items arriving meanwhile wait for the commit thread
//! as usual. Reads never go through here.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

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
type CommitFn<I, R> = Box<dyn Fn(Vec<I>) -> Option<Vec<R>> + Send + Sync>;

/// The result for an item of a batch whose commit panicked, from the
/// panic's message.
type PanickedFn<R> = Box<dyn Fn(&str) -> R + Send + Sync>;

struct Queue<I, R> {
    state: Mutex<Waiting<I, R>>,
    ready: Condvar,
    commit: CommitFn<I, R>,
    panicked: PanickedFn<R>,
}

struct Waiting<I, R> {
    next_ticket: u64,
    items: Vec<Queued<I, R>>,
    /// Set while a batch is being committed, by the commit thread or by a
    /// teacher on its own thread: the commit thread waits until it is
    /// cleared, so that one batch is committed at a time.
    busy: bool,
    /// How many items the last batch held: more than one means teachers
    /// are arriving together, and they do better waiting for the commit
    /// thread, which stores them in one write, than each storing its own.
    last_batch: usize,
    /// How many queued items wake the commit thread: one, or, while it
    /// gathers the teachers its last batch answered, that many.
    wanted: usize,
    /// Set when the committer is dropped: the thread ends.
    closed: bool,
    /// Whether the commit thread was started (by the first queued item).
    started: bool,
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
        commit: impl Fn(Vec<I>) -> Option<Vec<R>> + Send + Sync + 'static,
        panicked: impl Fn(&str) -> R + Send + Sync + 'static,
    ) -> Committer<I, R> {
        Committer {
            queue: Arc::new(Queue {
                state: Mutex::new(Waiting {
                    next_ticket: 0,
                    items: Vec::new(),
                    busy: false,
                    last_batch: 0,
                    wanted: 1,
                    closed: false,
                    started: false,
                }),
                ready: Condvar::new(),
                commit: Box::new(commit),
                panicked: Box::new(panicked),
            }),
        }
    }

    /// [`Committer::submit`], except that when nothing is being committed,
    /// nothing waits and the last batch held one item (no other teacher is
    /// about), the item is committed at once on the caller's thread (no
    /// timeout applies to it then). Only for a commit that ends by itself:
    /// writing a local file, not waiting on a network.
    pub(crate) fn submit_here_when_idle(&self, item: I, timeout: Duration) -> Result<R, Late> {
        {
            let mut waiting = self.queue.lock();
            if waiting.busy || !waiting.items.is_empty() || waiting.last_batch > 1 {
                drop(waiting);
                return self.submit(item, timeout);
            }
            waiting.busy = true;
            waiting.last_batch = 1;
        }
        let mut results = self.queue.commit_batch(vec![item]).into_iter();
        let result = results
            .next()
            .unwrap_or_else(|| (self.queue.panicked)("no result"));
        let mut waiting = self.queue.lock();
        waiting.busy = false;
        if !waiting.items.is_empty() {
            drop(waiting);
            self.queue.ready.notify_one();
        }
        Ok(result)
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
            if !waiting.started {
                let queue = Arc::clone(&self.queue);
                let spawned = std::thread::Builder::new()
                    .name("learnables-commit".into())
                    .spawn(move || run(&queue));
                if spawned.is_err() {
                    return Err(Late::Withdrawn);
                }
                waiting.started = true;
            }
            let ticket = waiting.next_ticket;
            waiting.next_ticket += 1;
            waiting.items.push(Queued {
                ticket,
                item,
                reply,
            });
            (ticket, waiting.items.len() >= waiting.wanted)
        };
        let (ticket, wake) = ticket;
        if wake {
            self.queue.ready.notify_one();
        }
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

impl<I, R> Queue<I, R> {
    /// Commits `items`: one result each, in order (each an error from
    /// `panicked` if the commit panicked), or none when the knowledge is
    /// gone.
    fn commit_batch(&self, items: Vec<I>) -> Vec<R> {
        let count = items.len();
        match catch_unwind(AssertUnwindSafe(|| (self.commit)(items))) {
            Ok(Some(results)) => results,
            // The knowledge is gone: its teachers are gone too.
            Ok(None) => Vec::new(),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "no message".to_owned());
                (0..count).map(|_| (self.panicked)(&message)).collect()
            }
        }
    }
}

/// The longest the commit thread waits for the teachers of its last batch
/// to come back before it writes what it has.
const MOST_PATIENCE: Duration = Duration::from_millis(1);

/// The commit thread: takes every item waiting, commits them, answers each.
///
/// After a batch of several items, the next batch is gathered: once an
/// item arrives, the thread waits for as many as the last batch held (the
/// teachers it answered, coming back with their next lessons), but no
/// longer than the last commit took (at most [`MOST_PATIENCE`]), so that
/// teachers who arrive together share one write instead of alternating
/// between a write for the first to come back and one for the rest.
fn run<I, R>(queue: &Queue<I, R>) {
    // After a batch of several: how many to wait for, and how long at most.
    let mut gather: Option<(usize, Duration)> = None;
    loop {
        let batch = {
            let mut waiting = queue.lock();
            while (waiting.items.is_empty() || waiting.busy) && !waiting.closed {
                waiting = queue
                    .ready
                    .wait(waiting)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if let Some((count, patience)) = gather.take() {
                let deadline = Instant::now() + patience;
                waiting.wanted = count;
                while waiting.items.len() < count && !waiting.closed {
                    let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                        break;
                    };
                    waiting = queue
                        .ready
                        .wait_timeout(waiting, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                waiting.wanted = 1;
            }
            if waiting.items.is_empty() {
                if waiting.closed {
                    return;
                }
                continue; // Every item gathered was withdrawn.
            }
            waiting.busy = true;
            waiting.last_batch = waiting.items.len();
            std::mem::take(&mut waiting.items)
        };
        let mut replies = Vec::with_capacity(batch.len());
        let mut items = Vec::with_capacity(batch.len());
        for queued in batch {
            replies.push(queued.reply);
            items.push(queued.item);
        }
        let count = items.len();
        let started = Instant::now();
        let results = queue.commit_batch(items);
        gather = (count > 1).then(|| (count, started.elapsed().min(MOST_PATIENCE)));
        if results.is_empty() {
            return; // The knowledge is gone.
        }
        // Idle again before answering, so that a teacher answered finds
        // nothing being committed.
        queue.lock().busy = false;
        let mut results = results.into_iter();
        for reply in replies {
            let result = results
                .next()
                .unwrap_or_else(|| (queue.panicked)("no result"));
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

    /// A committer whose commit panics on a batch starting with 13.
    fn unlucky() -> Committer<u64, Result<u64, String>> {
        Committer::new(
            |items: Vec<u64>| {
                assert!(items[0] != 13, "unlucky");
                Some(items.into_iter().map(Ok).collect())
            },
            |message: &str| Err(message.to_owned()),
        )
    }

    #[test]
    fn a_panicking_commit_answers_every_item_and_the_next_batch_commits() {
        let committer = unlucky();
        let answer = committer.submit(13, LONG);
        assert_eq!(answer.ok(), Some(Err("unlucky".to_owned())));
        assert_eq!(committer.submit(14, LONG).ok(), Some(Ok(14)));
    }

    #[test]
    fn an_idle_committer_commits_on_the_callers_thread_and_a_busy_one_queues() {
        let (entered, in_commit) = std::sync::mpsc::channel::<u64>();
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let gate = Mutex::new(gate);
        let committer = Arc::new(Committer::<u64, (u64, std::thread::ThreadId)>::new(
            move |items: Vec<u64>| {
                let _ = entered.send(items[0]);
                if items[0] == 1 {
                    // The first item waits until the test lets it go.
                    let _ = gate.lock().unwrap().recv();
                }
                let here = std::thread::current().id();
                Some(items.into_iter().map(|item| (item, here)).collect())
            },
            |_| (0, std::thread::current().id()),
        ));
        let first = {
            let committer = committer.clone();
            std::thread::spawn(move || {
                let caller = std::thread::current().id();
                let (item, committed_on) = committer.submit_here_when_idle(1, LONG).ok().unwrap();
                assert_eq!((item, committed_on), (1, caller));
            })
        };
        assert_eq!(in_commit.recv().unwrap(), 1);
        // While the first is committed, a second is queued for the commit
        // thread, which waits for the first to finish.
        let second = {
            let committer = committer.clone();
            std::thread::spawn(move || {
                let caller = std::thread::current().id();
                let (item, committed_on) = committer.submit_here_when_idle(2, LONG).ok().unwrap();
                assert_eq!(item, 2);
                assert_ne!(committed_on, caller);
            })
        };
        assert!(in_commit.recv_timeout(Duration::from_millis(200)).is_err());
        release.send(()).unwrap();
        assert_eq!(in_commit.recv().unwrap(), 2);
        first.join().unwrap();
        second.join().unwrap();
    }

    #[test]
    fn after_a_batch_of_several_the_commit_thread_keeps_the_next_item() {
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let gate = Mutex::new(gate);
        let committer = Arc::new(Committer::<u64, std::thread::ThreadId>::new(
            move |items: Vec<u64>| {
                if items[0] == 1 {
                    let _ = gate.lock().unwrap().recv();
                }
                Some(items.iter().map(|_| std::thread::current().id()).collect())
            },
            |_| std::thread::current().id(),
        ));
        let submitted = |item: u64| {
            let committer = committer.clone();
            std::thread::spawn(move || committer.submit(item, LONG).ok().unwrap())
        };
        let first = submitted(1);
        while committer.queue.lock().last_batch == 0 {
            std::thread::yield_now();
        }
        // 2 and 3 queue behind the first and are stored together.
        let (second, third) = (submitted(2), submitted(3));
        while committer.queue.lock().items.len() < 2 {
            std::thread::yield_now();
        }
        release.send(()).unwrap();
        let thread = first.join().unwrap();
        assert_eq!(second.join().unwrap(), thread);
        assert_eq!(third.join().unwrap(), thread);
        assert_eq!(committer.queue.lock().last_batch, 2);
        // Teachers came together: the next item goes to the commit thread,
        // and after that batch of one, the one after is stored here.
        assert_eq!(committer.submit_here_when_idle(4, LONG).ok(), Some(thread));
        let here = std::thread::current().id();
        assert_eq!(committer.submit_here_when_idle(5, LONG).ok(), Some(here));
    }

    #[test]
    fn a_commit_panicking_on_the_callers_thread_answers_it_and_the_next_commits() {
        let committer = unlucky();
        let answer = committer.submit_here_when_idle(13, LONG);
        assert_eq!(answer.ok(), Some(Err("unlucky".to_owned())));
        assert_eq!(committer.submit_here_when_idle(14, LONG).ok(), Some(Ok(14)));
    }

    #[test]
    fn a_hanging_commit_times_out_every_waiting_item() {
        let (release, hang) = std::sync::mpsc::channel::<()>();
        let hang = Mutex::new(hang);
        let committer = Committer::<u64, u64>::new(
            move |items: Vec<u64>| {
                // Hangs until the sender is dropped.
                let _ = hang.lock().unwrap().recv();
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
