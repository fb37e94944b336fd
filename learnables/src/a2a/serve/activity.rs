//! What one connection is doing, and the deadline that follows from it.
//!
//! A connection waits on its client while it reads a request's head or
//! body, while it is kept alive without a request, and while its socket
//! refuses the response's bytes; each of these has a deadline, and while
//! in any of them the connection may give way to a new one at the cap.
//! Only a connection whose handler is at work waits on the server alone.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::ServerLimits;

/// How long past the body deadline a connection still receiving its body
/// stays open: a handler reading the body gets its error at the deadline,
/// and this leaves it the time to answer `408` before the close.
const ANSWER_GRACE: Duration = Duration::from_secs(1);

/// Where a connection is between requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request's head: since the accept for the first request,
    /// since the first byte for the next ones.
    Head { since: Instant },
    /// Requests in flight: from the end of the head to the end of the
    /// response body. The newest one's body may still be on its way.
    Busy {
        requests: usize,
        body: Option<Receiving>,
    },
    /// Kept alive after a response, no byte of the next request yet.
    Idle { since: Instant },
    /// Closed to make room for a new connection.
    Evicted,
}

/// A request body still on its way: which request, since when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Receiving {
    request: u64,
    since: Instant,
}

/// The time a response has waited on its client to take its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct WriteClock {
    /// Since when the socket refuses bytes, if it does now.
    blocked_since: Option<Instant>,
    /// The time it refused them before, for the current response.
    spent: Duration,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    write: WriteClock,
    /// The requests started on the connection, numbering them.
    started: u64,
}

/// Why a connection was closed by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Closed {
    HeadTimedOut,
    BodyTimedOut,
    IdleTimedOut,
    WriteTimedOut,
    Evicted,
}

/// A connection waiting on its client, in the order in which such
/// connections give way to a new one: idle ones (done with their requests)
/// before those in the middle of a request (a new client may be among
/// them), and the longest waiting first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Waiting {
    mid_request: bool,
    since: Instant,
}

/// One connection's phase, shared by its reader, its requests, its
/// watcher and the registry of connections.
#[derive(Debug)]
pub(super) struct Activity {
    state: Mutex<State>,
    changed: Notify,
}

impl Activity {
    /// A connection accepted now, waiting for its first head.
    pub(super) fn accepted() -> Arc<Activity> {
        Arc::new(Activity {
            state: Mutex::new(State {
                phase: Phase::Head {
                    since: Instant::now(),
                },
                write: WriteClock::default(),
                started: 0,
            }),
            changed: Notify::new(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A state is plain data, always whole: a panic elsewhere cannot leave it torn.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Moves to the phase `next` gives, unless the connection is evicted.
    fn update(&self, next: impl FnOnce(&mut State) -> Phase) {
        let mut state = self.state();
        if state.phase == Phase::Evicted {
            return;
        }
        let next = next(&mut state);
        if next != state.phase {
            state.phase = next;
            drop(state);
            self.changed.notify_one();
        }
    }

    /// Bytes arrived: an idle connection starts a new head.
    pub(super) fn bytes_read(&self) {
        self.update(|state| match state.phase {
            Phase::Idle { .. } => Phase::Head {
                since: Instant::now(),
            },
            other => other,
        });
    }

    /// A request's head was complete at `now`; it is in flight until the
    /// returned guard is dropped. With `body`, its body is on its way until
    /// [`InFlight::body_received`] says it arrived.
    pub(super) fn request_started(self: &Arc<Self>, now: Instant, body: bool) -> InFlight {
        let mut request = 0;
        self.update(|state| {
            state.started += 1;
            request = state.started;
            // A socket still refusing the last response's bytes keeps its
            // clock: pipelined requests do not buy a client more time.
            if state.write.blocked_since.is_none() {
                state.write.spent = Duration::ZERO;
            }
            let body = body.then_some(Receiving {
                request,
                since: now,
            });
            match state.phase {
                Phase::Busy { requests, .. } => Phase::Busy {
                    requests: requests + 1,
                    body,
                },
                _ => Phase::Busy { requests: 1, body },
            }
        });
        InFlight {
            activity: Arc::clone(self),
            request,
        }
    }

    fn body_received(&self, request: u64) {
        self.update(|state| match state.phase {
            Phase::Busy {
                requests,
                body: Some(receiving),
            } if receiving.request == request => Phase::Busy {
                requests,
                body: None,
            },
            other => other,
        });
    }

    fn request_finished(&self) {
        self.update(|state| match state.phase {
            Phase::Busy { requests, body } if requests > 1 => Phase::Busy {
                requests: requests - 1,
                body,
            },
            _ => Phase::Idle {
                since: Instant::now(),
            },
        });
    }

    /// The socket refused bytes of a response: the write clock runs.
    pub(super) fn write_blocked(&self) {
        let mut state = self.state();
        if state.write.blocked_since.is_none() {
            state.write.blocked_since = Some(Instant::now());
            drop(state);
            self.changed.notify_one();
        }
    }

    /// The socket took bytes again: the write clock stops.
    pub(super) fn write_unblocked(&self) {
        let mut state = self.state();
        if let Some(since) = state.write.blocked_since.take() {
            state.write.spent = state.write.spent.saturating_add(since.elapsed());
        }
        // No wake-up: a watcher woken at a stale deadline looks again.
    }

    /// How the connection waits on its client; `None` when only its
    /// handler is at work, or it is evicted.
    pub(super) fn waiting(&self) -> Option<Waiting> {
        let state = self.state();
        let mid_request = |since| {
            Some(Waiting {
                mid_request: true,
                since,
            })
        };
        match state.phase {
            Phase::Idle { since } => Some(Waiting {
                mid_request: false,
                since,
            }),
            Phase::Head { since }
            | Phase::Busy {
                body: Some(Receiving { since, .. }),
                ..
            } => mid_request(since),
            Phase::Busy { body: None, .. } => {
                // Counted from when the response first waited, so that a
                // client reading a little now and then does not look new.
                let blocked = state.write.blocked_since?;
                mid_request(blocked.checked_sub(state.write.spent).unwrap_or(blocked))
            }
            Phase::Evicted => None,
        }
    }

    /// Closes the connection to make room for another.
    pub(super) fn evict(&self) {
        self.state().phase = Phase::Evicted;
        self.changed.notify_one();
    }

    /// Resolves when the connection must be closed: its head, its body, its
    /// idle time or its client's reading overran `limits`, or it was evicted.
    pub(super) async fn closed(&self, limits: ServerLimits) -> Closed {
        loop {
            let next = match self.state().deadline(limits) {
                Ok(next) => next,
                Err(reason) => return reason,
            };
            let Some((deadline, reason)) = next else {
                self.changed.notified().await;
                continue;
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

impl State {
    /// The next deadline and the reason to close at it; `Err` when the
    /// connection must close now whatever the time.
    fn deadline(&self, limits: ServerLimits) -> Result<Option<(Instant, Closed)>, Closed> {
        // A deadline too far to be an `Instant` is no deadline.
        let after = |since: Instant, timeout: Duration, reason: Closed| {
            since
                .checked_add(timeout)
                .map(|deadline| (deadline, reason))
        };
        let phase = match self.phase {
            Phase::Head { since } => {
                after(since, limits.header_read_timeout(), Closed::HeadTimedOut)
            }
            Phase::Busy {
                body: Some(receiving),
                ..
            } => after(
                receiving.since,
                limits.body_read_timeout().saturating_add(ANSWER_GRACE),
                Closed::BodyTimedOut,
            ),
            Phase::Busy { body: None, .. } => None,
            Phase::Idle { since } => after(since, limits.idle_timeout(), Closed::IdleTimedOut),
            Phase::Evicted => return Err(Closed::Evicted),
        };
        let write = self.write.blocked_since.and_then(|since| {
            let left = limits.write_timeout().saturating_sub(self.write.spent);
            after(since, left, Closed::WriteTimedOut)
        });
        Ok(match (phase, write) {
            (Some(phase), Some(write)) => Some(if write.0 < phase.0 { write } else { phase }),
            (phase, write) => phase.or(write),
        })
    }
}

/// A request in flight; dropping it (at the end of the response body, or
/// when the connection dies) ends it.
#[derive(Debug)]
pub(super) struct InFlight {
    activity: Arc<Activity>,
    request: u64,
}

impl InFlight {
    /// A guard that marks the request's body as arrived when dropped: at
    /// its end, at its error, or when the handler lets go of it.
    pub(super) fn receiving(&self) -> BodyArriving {
        BodyArriving {
            activity: Arc::clone(&self.activity),
            request: self.request,
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.activity.request_finished();
    }
}

/// A request body not yet whole; see [`InFlight::receiving`].
#[derive(Debug)]
pub(super) struct BodyArriving {
    activity: Arc<Activity>,
    request: u64,
}

impl Drop for BodyArriving {
    fn drop(&mut self) {
        self.activity.body_received(self.request);
    }
}

#[cfg(test)]
mod tests {
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
        let in_flight = activity.request_started(Instant::now(), false);
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
        drop(activity.request_started(Instant::now(), false));
        let idle = activity.waiting().unwrap();
        assert!(!idle.mid_request);
        tokio::time::sleep(Duration::from_millis(5)).await;
        activity.bytes_read();
        let head = activity.waiting().unwrap();
        assert!(head.mid_request && head.since > idle.since);
        activity.evict();
        activity.bytes_read();
        drop(activity.request_started(Instant::now(), false));
        assert_eq!(activity.waiting(), None);
        assert_eq!(activity.closed(limits()).await, Closed::Evicted);
    }

    #[tokio::test]
    async fn a_body_on_its_way_waits_on_the_client_until_it_arrives() {
        let activity = Activity::accepted();
        let started = Instant::now();
        let in_flight = activity.request_started(started, true);
        let arriving = in_flight.receiving();
        let waiting = activity.waiting().expect("a body on its way waits");
        assert!(waiting.mid_request && waiting.since == started);
        drop(arriving);
        assert_eq!(activity.waiting(), None, "the handler is at work");

        // A body that never arrives overruns its deadline and the grace.
        let in_flight = activity.request_started(Instant::now(), true);
        let _arriving = in_flight.receiving();
        let limits = limits().with_body_read_timeout(Duration::from_millis(20));
        assert_eq!(activity.closed(limits).await, Closed::BodyTimedOut);
    }

    #[tokio::test]
    async fn a_stale_body_guard_does_not_end_a_newer_body() {
        let activity = Activity::accepted();
        let first = activity.request_started(Instant::now(), true);
        let stale = first.receiving();
        let second = activity.request_started(Instant::now(), true);
        let _arriving = second.receiving();
        drop(stale);
        assert!(
            activity.waiting().is_some(),
            "the newer body is still on its way"
        );
    }

    #[tokio::test]
    async fn a_response_its_client_does_not_take_overruns_the_write_timeout() {
        let limits = limits().with_write_timeout(Duration::from_millis(40));
        let activity = Activity::accepted();
        let _in_flight = activity.request_started(Instant::now(), false);
        activity.write_blocked();
        tokio::time::sleep(Duration::from_millis(10)).await;
        activity.write_unblocked();
        assert_eq!(activity.waiting(), None, "the socket takes bytes again");
        activity.write_blocked();
        assert!(activity.waiting().expect("blocked again").mid_request);
        // The time refused before counts: less than the whole timeout is left.
        {
            let state = activity.state();
            let (deadline, reason) = state.deadline(limits).unwrap().unwrap();
            assert_eq!(reason, Closed::WriteTimedOut);
            let blocked = state.write.blocked_since.unwrap();
            assert!(deadline <= blocked + Duration::from_millis(30));
        }
        assert_eq!(activity.closed(limits).await, Closed::WriteTimedOut);
    }

    #[test]
    fn timeouts_too_long_for_an_instant_are_no_deadline() {
        let activity = Activity::accepted();
        let limits = ServerLimits::default().with_header_read_timeout(Duration::MAX);
        assert_eq!(activity.state().deadline(limits), Ok(None));
    }
}
