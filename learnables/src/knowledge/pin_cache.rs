//! The state a thread pinned last: pinning the same knowledge again, while
//! nothing was published since, costs one reference count instead of an
//! [`ArcSwap`](arc_swap::ArcSwap) load. A task pins once per request; a
//! server's threads pin the same knowledge over and over.
//!
//! A knowledge counts its publications (odd while one is under way); a
//! thread keeps the state it pinned with the count it read before and after
//! loading it, and reuses it while the count is unchanged. It holds the
//! state weakly, so a thread never keeps an old state's versions alive.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use arc_swap::ArcSwap;

use super::state::State;

/// A knowledge's current state and its count of publications.
pub(crate) struct Current {
    state: ArcSwap<State>,
    /// Odd while a new state is being published.
    publications: AtomicU64,
    /// Tells this knowledge's states from any other's in a thread's cache.
    id: u64,
}

struct Last {
    id: u64,
    publications: u64,
    state: Weak<State>,
}

thread_local! {
    static LAST: RefCell<Option<Last>> = const { RefCell::new(None) };
}

impl Current {
    pub(crate) fn new(state: State) -> Current {
        static IDS: AtomicU64 = AtomicU64::new(0);
        Current {
            state: ArcSwap::from_pointee(state),
            publications: AtomicU64::new(0),
            id: IDS.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The current state, for a reader.
    pub(crate) fn pin(&self) -> Arc<State> {
        let before = self.publications.load(Ordering::Acquire);
        // (No cache while the thread's locals are being destroyed.)
        let cached = LAST
            .try_with(|last| {
                let last = last.try_borrow().ok()?;
                let last = last.as_ref()?;
                (last.id == self.id && last.publications == before)
                    .then(|| last.state.upgrade())
                    .flatten()
            })
            .ok()
            .flatten();
        if let Some(state) = cached {
            return state;
        }
        let state = self.state.load_full();
        let after = self.publications.load(Ordering::Acquire);
        if before == after && before.is_multiple_of(2) {
            let _ = LAST.try_with(|last| {
                if let Ok(mut last) = last.try_borrow_mut() {
                    *last = Some(Last {
                        id: self.id,
                        publications: before,
                        state: Arc::downgrade(&state),
                    });
                }
            });
        }
        state
    }

    /// The current state, without touching the thread's cache.
    pub(crate) fn load_full(&self) -> Arc<State> {
        self.state.load_full()
    }

    /// The current state, for a look that keeps nothing.
    pub(crate) fn load(&self) -> arc_swap::Guard<Arc<State>> {
        self.state.load()
    }

    /// Makes `state` current. The caller holds the knowledge's writer lock.
    pub(crate) fn store(&self, state: Arc<State>) {
        self.publications.fetch_add(1, Ordering::AcqRel);
        self.state.store(state);
        self.publications.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_after_a_publication_sees_it_and_two_knowledges_are_kept_apart() {
        let first = Current::new(State::default());
        let second = Current::new(State::default());
        let pinned = first.pin();
        assert!(Arc::ptr_eq(&pinned, &first.pin()));
        assert!(!Arc::ptr_eq(&pinned, &second.pin()));
        assert!(Arc::ptr_eq(&second.pin(), &second.pin()));
        let next = Arc::new(State::default());
        first.store(next.clone());
        assert!(Arc::ptr_eq(&first.pin(), &next));
        assert!(Arc::ptr_eq(&first.pin(), &next));
        drop(pinned);
    }
}
