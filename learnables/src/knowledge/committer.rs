//! Group commit: teachers queue their lessons; whichever finds no commit
//! under way leads one, writing every lesson queued so far in a single
//! durable write, and wakes the rest. Under load many lessons share one sync
//! to disk; alone, a lesson pays for exactly one.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// A queue of work items of type `I` whose results are `R`.
pub(crate) struct Committer<I, R> {
    queue: Mutex<Queue<I, R>>,
    turn: Condvar,
}

struct Queue<I, R> {
    next_ticket: u64,
    waiting: Vec<(u64, I)>,
    leading: bool,
    done: HashMap<u64, R>,
}

impl<I, R> Committer<I, R> {
    pub(crate) fn new() -> Committer<I, R> {
        Committer {
            queue: Mutex::new(Queue {
                next_ticket: 0,
                waiting: Vec::new(),
                leading: false,
                done: HashMap::new(),
            }),
            turn: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue<I, R>> {
        // The queue's data stays consistent even if a leader panicked: the
        // worst case is a batch whose results never arrive, handled below.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `item` and returns its result, committing a batch with
    /// `commit` if this caller becomes the leader. `commit` returns one
    /// result per item, in order.
    pub(crate) fn submit(&self, item: I, commit: impl FnOnce(Vec<I>) -> Vec<R>) -> R {
        let mut queue = self.lock();
        let ticket = queue.next_ticket;
        queue.next_ticket += 1;
        queue.waiting.push((ticket, item));
        let mut commit = Some(commit);
        loop {
            if let Some(result) = queue.done.remove(&ticket) {
                return result;
            }
            if queue.leading {
                queue = self
                    .turn
                    .wait(queue)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            let Some(commit) = commit.take() else {
                // Only a caller whose item is still queued leads, and it
                // leads once: its item is in the batch it commits.
                queue = self
                    .turn
                    .wait(queue)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            queue.leading = true;
            let batch = std::mem::take(&mut queue.waiting);
            drop(queue);
            let (tickets, items): (Vec<u64>, Vec<I>) = batch.into_iter().unzip();
            let results = commit(items);
            queue = self.lock();
            queue.done.extend(tickets.into_iter().zip(results));
            queue.leading = false;
            self.turn.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn every_item_gets_its_own_result_under_contention() {
        let committer = Arc::new(Committer::<u64, u64>::new());
        let batches = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8u64)
            .map(|thread| {
                let committer = committer.clone();
                let batches = batches.clone();
                std::thread::spawn(move || {
                    for i in 0..200u64 {
                        let item = thread * 1000 + i;
                        let result = committer.submit(item, |items| {
                            batches.fetch_add(1, Ordering::Relaxed);
                            items.iter().map(|item| item * 2).collect()
                        });
                        assert_eq!(result, item * 2);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert!(batches.load(Ordering::Relaxed) <= 1600);
    }
}
