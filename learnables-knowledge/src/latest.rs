//! `Latest`: a value replaced whole, read as a shared `Arc` of its latest
//! version (the published state, the registry of learnables).

use std::sync::{Arc, PoisonError, RwLock};

/// The latest of a value that is replaced whole: readers take an `Arc` of
/// it and keep reading that one while it is replaced. A plain read lock:
/// reads are a pin or a lesson, and a replacement is a pointer swap.
pub(crate) struct Latest<T> {
    value: RwLock<Arc<T>>,
}

impl<T> Latest<T> {
    pub(crate) fn new(value: T) -> Latest<T> {
        Latest {
            value: RwLock::new(Arc::new(value)),
        }
    }

    /// The latest value.
    pub(crate) fn get(&self) -> Arc<T> {
        // Nothing is left half done under the lock (it only swaps an `Arc`),
        // so a poisoned lock still holds a whole value.
        Arc::clone(&self.value.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Makes `value` the latest; readers holding an earlier one keep it.
    pub(crate) fn set(&self, value: Arc<T>) {
        let earlier = std::mem::replace(
            &mut *self.value.write().unwrap_or_else(PoisonError::into_inner),
            value,
        );
        // The earlier value is dropped after the lock, should it be the last.
        drop(earlier);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_keeps_the_value_it_took() {
        let latest = Latest::new(1);
        let taken = latest.get();
        latest.set(Arc::new(2));
        assert_eq!((*taken, *latest.get()), (1, 2));
    }
}
