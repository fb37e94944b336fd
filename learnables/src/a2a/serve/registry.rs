//! The connections being served, and which one gives way to a new one.
//!
//! Our own: tower's `ConcurrencyLimit` and hyper-util make a new connection
//! wait for a slot, while here a connection that waits on its client gives
//! its slot up, so that clients holding every slot cannot keep a new one
//! out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use super::activity::Activity;

/// The open connections by id, at most a cap of them.
#[derive(Debug)]
pub(super) struct Registry {
    max: usize,
    open: Mutex<HashMap<u64, Arc<Activity>>>,
    freed: Notify,
}

impl Registry {
    pub(super) fn new(max: usize) -> Registry {
        Registry {
            max,
            open: Mutex::new(HashMap::new()),
            freed: Notify::new(),
        }
    }

    fn open(&self) -> MutexGuard<'_, HashMap<u64, Arc<Activity>>> {
        // Inserts and removals are single calls: a panic cannot leave the map torn.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes room for one more connection: true when there is room, after
    /// closing a connection waiting on its client if the cap is reached
    /// (the longest idle, else the longest waiting in the middle of a
    /// request); false when every connection's handler is at work.
    pub(super) fn make_room(&self) -> bool {
        let mut open = self.open();
        if open.len() < self.max {
            return true;
        }
        self.evict_longest_waiting(&mut open)
    }

    /// Closes a connection waiting on its client, if there is one, to free
    /// its socket.
    pub(super) fn evict_one(&self) -> bool {
        self.evict_longest_waiting(&mut self.open())
    }

    fn evict_longest_waiting(&self, open: &mut HashMap<u64, Arc<Activity>>) -> bool {
        let longest = open
            .iter()
            .filter_map(|(id, activity)| Some((activity.waiting()?, *id)))
            .min();
        let Some((_, id)) = longest else {
            return false;
        };
        if let Some(activity) = open.remove(&id) {
            activity.evict();
        }
        true
    }

    /// Counts a new connection in, until the returned guard is dropped
    /// (when its task ends, even by a panic).
    pub(super) fn admit(self: &Arc<Self>, id: u64, activity: Arc<Activity>) -> Admitted {
        self.open().insert(id, activity);
        Admitted {
            registry: Arc::clone(self),
            id,
        }
    }

    fn remove(&self, id: u64) {
        if self.open().remove(&id).is_some() {
            self.freed.notify_one();
        }
    }

    /// Resolves after a connection was counted out.
    pub(super) async fn freed(&self) {
        self.freed.notified().await;
    }
}

/// A connection counted in the registry.
#[derive(Debug)]
pub(super) struct Admitted {
    registry: Arc<Registry>,
    id: u64,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.registry.remove(self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn later() {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }

    #[test]
    fn at_the_cap_the_longest_waiting_gives_way_and_busy_ones_never_do() {
        let now = tokio::time::Instant::now;
        let registry = Arc::new(Registry::new(2));
        let oldest = Activity::accepted();
        later();
        let newer = Activity::accepted();
        let _first = registry.admit(1, Arc::clone(&oldest));
        let second = registry.admit(2, Arc::clone(&newer));

        assert!(registry.make_room());
        assert_eq!(oldest.waiting(), None, "the oldest was evicted");
        assert!(newer.waiting().is_some());

        let busy = Activity::accepted();
        let _in_flight = busy.request_started(now(), false);
        let _third = registry.admit(3, busy);
        let _in_flight = newer.request_started(now(), false);
        assert!(!registry.make_room(), "both open connections are busy");
        drop(second);
        assert!(registry.make_room());
    }

    #[test]
    fn an_idle_connection_gives_way_before_an_older_one_waiting_for_its_head() {
        let registry = Arc::new(Registry::new(2));
        let head = Activity::accepted();
        later();
        let idle = Activity::accepted();
        drop(idle.request_started(tokio::time::Instant::now(), false));
        let _first = registry.admit(1, Arc::clone(&head));
        let _second = registry.admit(2, Arc::clone(&idle));

        assert!(registry.make_room());
        assert_eq!(idle.waiting(), None, "the idle one was evicted");
        assert!(head.waiting().is_some());
    }

    #[test]
    fn a_slow_body_gives_way_like_a_slow_head_and_a_handler_at_work_does_not() {
        let registry = Arc::new(Registry::new(2));
        let slow_body = Activity::accepted();
        let in_flight = slow_body.request_started(tokio::time::Instant::now(), true);
        let _arriving = in_flight.receiving();
        later();
        let working = Activity::accepted();
        let working_request = working.request_started(tokio::time::Instant::now(), true);
        drop(working_request.receiving());
        let _first = registry.admit(1, Arc::clone(&slow_body));
        let _second = registry.admit(2, Arc::clone(&working));

        assert!(registry.make_room(), "the slow body gives way");
        assert_eq!(slow_body.waiting(), None, "evicted");
        let also_working = Activity::accepted();
        let _also = also_working.request_started(tokio::time::Instant::now(), false);
        let _third = registry.admit(3, also_working);
        assert!(!registry.make_room(), "handlers at work never give way");
    }
}
