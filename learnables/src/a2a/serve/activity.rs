//! What one connection is doing, and the deadline that follows from it.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;
use tokio::time::Instant;

use super::ServerLimits;

/// Where a connection is between requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request's head: since the accept for the first request,
    /// since the first byte for the next ones.
    Head { since: Instant },
    /// Requests in flight: from the end of the head to the end of the
    /// response body. Bounded by the body deadline and the handler.
    Busy { requests: usize },
    /// Kept alive after a response, no byte of the next request yet.
    Idle { since: Instant },
    /// Closed to make room for a new connection.
    Evicted,
}

/// Why a connection was closed by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Closed {
    HeadTimedOut,
    IdleTimedOut,
    Evicted,
}

/// A connection without a request in flight, in the order in which such
/// connections give way to a new one: idle ones (done with their requests)
/// before those waiting for a head (a new client may be among them), and
/// the longest waiting first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Waiting {
    head: bool,
    since: Instant,
}

/// One connection's phase, shared by its reader, its requests, its
/// watcher and the registry of connections.
#[derive(Debug)]
pub(super) struct Activity {
    phase: Mutex<Phase>,
    changed: Notify,
}

impl Activity {
    /// A connection accepted now, waiting for its first head.
    pub(super) fn accepted() -> Arc<Activity> {
        Arc::new(Activity {
            phase: Mutex::new(Phase::Head {
                since: Instant::now(),
            }),
            changed: Notify::new(),
        })
    }

    fn phase(&self) -> MutexGuard<'_, Phase> {
        // A phase is plain data, always whole: a panic elsewhere cannot leave it torn.
        self.phase.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Moves to the phase `next` gives, unless the connection is evicted.
    fn update(&self, next: impl FnOnce(Phase) -> Phase) {
        let mut phase = self.phase();
        if *phase == Phase::Evicted {
            return;
        }
        let next = next(*phase);
        if next != *phase {
            *phase = next;
            drop(phase);
            self.changed.notify_one();
        }
    }

    /// Bytes arrived: an idle connection starts a new head.
    pub(super) fn bytes_read(&self) {
        self.update(|phase| match phase {
            Phase::Idle { .. } => Phase::Head {
                since: Instant::now(),
            },
            other => other,
        });
    }

    /// A request's head is complete; it is in flight until the returned
    /// guard is dropped.
    pub(super) fn request_started(self: &Arc<Self>) -> InFlight {
        self.update(|phase| match phase {
            Phase::Busy { requests } => Phase::Busy {
                requests: requests + 1,
            },
            _ => Phase::Busy { requests: 1 },
        });
        InFlight(Arc::clone(self))
    }

    fn request_finished(&self) {
        self.update(|phase| match phase {
            Phase::Busy { requests } if requests > 1 => Phase::Busy {
                requests: requests - 1,
            },
            _ => Phase::Idle {
                since: Instant::now(),
            },
        });
    }

    /// How the connection waits without a request in flight; `None` when a
    /// request is in flight or it is evicted.
    pub(super) fn waiting(&self) -> Option<Waiting> {
        match *self.phase() {
            Phase::Idle { since } => Some(Waiting { head: false, since }),
            Phase::Head { since } => Some(Waiting { head: true, since }),
            Phase::Busy { .. } | Phase::Evicted => None,
        }
    }

    /// Closes the connection to make room for another.
    pub(super) fn evict(&self) {
        *self.phase() = Phase::Evicted;
        self.changed.notify_one();
    }

    /// Resolves when the connection must be closed: its head or its idle
    /// time overran `limits`, or it was evicted.
    pub(super) async fn closed(&self, limits: ServerLimits) -> Closed {
        loop {
            let phase = *self.phase();
            let (deadline, reason) = match phase {
                Phase::Head { since } => {
                    (since + limits.header_read_timeout(), Closed::HeadTimedOut)
                }
                Phase::Idle { since } => (since + limits.idle_timeout(), Closed::IdleTimedOut),
                Phase::Evicted => return Closed::Evicted,
                Phase::Busy { .. } => {
                    self.changed.notified().await;
                    continue;
                }
            };
            if deadline <= Instant::now() {
                return reason;
            }
            tokio::select! {
                () = tokio::time::sleep_until(deadline) => {}
                () = self.changed.notified() => {}
            }
        }
    }
}

/// A request in flight; dropping it (at the end of the response body, or
/// when the connection dies) ends it.
#[derive(Debug)]
pub(super) struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn limits() -> ServerLimits {
        ServerLimits::default()
            .with_header_read_timeout(Duration::from_millis(20))
            .with_idle_timeout(Duration::from_millis(20))
    }

    #[tokio::test]
    async fn a_silent_connection_overruns_its_head() {
        let activity = Activity::accepted();
        assert_eq!(activity.closed(limits()).await, Closed::HeadTimedOut);
    }

    #[tokio::test]
    async fn a_request_in_flight_has_no_deadline_and_then_goes_idle() {
        let activity = Activity::accepted();
        let in_flight = activity.request_started();
        assert_eq!(activity.waiting(), None);
        let watcher = tokio::spawn({
            let activity = Arc::clone(&activity);
            async move { activity.closed(limits()).await }
        });
        // Ten times both timeouts: a busy connection has no deadline at all.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!watcher.is_finished(), "a busy connection was closed");
        drop(in_flight);
        assert!(activity.waiting().is_some());
        assert_eq!(watcher.await.unwrap(), Closed::IdleTimedOut);
    }

    #[tokio::test]
    async fn bytes_after_idle_start_a_head_and_eviction_wins() {
        let activity = Activity::accepted();
        drop(activity.request_started());
        let idle = activity.waiting().unwrap();
        assert!(!idle.head);
        tokio::time::sleep(Duration::from_millis(5)).await;
        activity.bytes_read();
        let head = activity.waiting().unwrap();
        assert!(head.head && head.since > idle.since);
        activity.evict();
        activity.bytes_read();
        drop(activity.request_started());
        assert_eq!(activity.waiting(), None);
        assert_eq!(activity.closed(limits()).await, Closed::Evicted);
    }
}
