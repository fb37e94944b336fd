//! [`AppendLog`]: a list that one writer appends to while any number of
//! readers index it, without locks: what is appended is never moved nor
//! changed, so a reader's reference stays valid as the list grows.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// How many items a chunk holds, unless said otherwise.
const CHUNK: usize = 1024;

/// Levels of the chunk directory: level `k` points to `2^k` chunks, so the
/// levels together hold far more items than any knowledge will.
const LEVELS: usize = 48;

type Chunk<T> = Box<[Slot<T>]>;

/// An item's place in a chunk, aligned to a cache line: an item that fills
/// whole lines with the slot's flag (a knowledge's version does) is read
/// from as few lines as its layout allows.
#[repr(align(64))]
struct Slot<T>(OnceLock<T>);

/// A level of the directory: its chunks, each made when first written.
type Level<T> = OnceLock<Box<[OnceLock<Chunk<T>>]>>;

/// An append-only list read by index. Appends come from one writer at a time
/// (the knowledge's writer lock); reads need no lock. Memory grows by one
/// chunk of `N` items at a time, plus a small directory.
pub(crate) struct AppendLog<T, const N: usize = CHUNK> {
    levels: [Level<T>; LEVELS],
    len: AtomicUsize,
}

impl<T, const N: usize> Default for AppendLog<T, N> {
    fn default() -> Self {
        AppendLog {
            levels: std::array::from_fn(|_| OnceLock::new()),
            len: AtomicUsize::new(0),
        }
    }
}

/// The level, the chunk within it and the slot within that of item `index`,
/// for chunks of `n` items.
fn place(index: usize, n: usize) -> (usize, usize, usize) {
    let chunk = index / n;
    let level = (chunk + 1).ilog2() as usize;
    (level, chunk + 1 - (1 << level), index % n)
}

impl<T, const N: usize> AppendLog<T, N> {
    /// How many items have been appended.
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// The item at `index`, once appended.
    pub(crate) fn get(&self, index: usize) -> Option<&T> {
        let (level, chunk, slot) = place(index, N);
        self.levels.get(level)?.get()?[chunk].get()?[slot].0.get()
    }

    /// Appends `item` at the end; returns its index. Only one writer may
    /// append at a time: a second would find the slot taken and get its
    /// item back.
    pub(crate) fn push(&self, item: T) -> Result<usize, T> {
        let index = self.len.load(Ordering::Acquire);
        let (level, chunk, slot) = place(index, N);
        let Some(directory) = self.levels.get(level) else {
            return Err(item);
        };
        let chunks =
            directory.get_or_init(|| (0..1usize << level).map(|_| OnceLock::new()).collect());
        let slots = chunks[chunk].get_or_init(|| (0..N).map(|_| Slot(OnceLock::new())).collect());
        slots[slot].0.set(item)?;
        self.len.store(index + 1, Ordering::Release);
        Ok(index)
    }
}

/// How many positions a block of a [`PositionLog`] holds.
const BLOCK: usize = 64;

/// An append-only list of positions (never 0), eight bytes each: what a
/// collection keeps of its versions. One writer, like [`AppendLog`].
#[derive(Default)]
pub(crate) struct PositionLog {
    blocks: AppendLog<[AtomicU64; BLOCK], 16>,
    len: AtomicUsize,
}

impl PositionLog {
    /// How many positions have been appended.
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// The position at `index`, once appended.
    pub(crate) fn get(&self, index: usize) -> Option<u64> {
        let position = self.blocks.get(index / BLOCK)?[index % BLOCK].load(Ordering::Acquire);
        (position != 0).then_some(position)
    }

    /// Appends `position` (not 0).
    pub(crate) fn push(&self, position: u64) {
        let index = self.len();
        if index.is_multiple_of(BLOCK) {
            // Only the writer appends: the block is new.
            let _ = self.blocks.push(std::array::from_fn(|_| AtomicU64::new(0)));
        }
        if let Some(block) = self.blocks.get(index / BLOCK) {
            block[index % BLOCK].store(position, Ordering::Release);
            self.len.store(index + 1, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_keep_their_index_and_address_as_the_log_grows() {
        let log: AppendLog<usize> = AppendLog::default();
        assert_eq!(log.get(0), None);
        let count = 5 * CHUNK + 17;
        for i in 0..count {
            assert_eq!(log.push(i * 3), Ok(i));
        }
        let first: *const usize = log.get(0).unwrap();
        for i in 0..CHUNK {
            log.push(0).unwrap();
            assert_eq!(log.get(i).copied(), Some(i * 3));
        }
        assert!(std::ptr::eq(first, log.get(0).unwrap()));
        assert_eq!(log.len(), count + CHUNK);
        assert_eq!(log.get(count + CHUNK), None);
    }

    #[test]
    fn positions_are_kept_in_order_across_blocks() {
        let log = PositionLog::default();
        assert_eq!(log.get(0), None);
        for position in 1..=1000 {
            log.push(position * 2);
        }
        assert_eq!(log.len(), 1000);
        assert!((0..1000).all(|i| log.get(i) == Some(2 * (i as u64 + 1))));
        assert_eq!(log.get(1000), None);
    }

    #[test]
    fn readers_see_every_item_appended_while_they_read() {
        let log: std::sync::Arc<AppendLog<usize>> = std::sync::Arc::default();
        let reader = {
            let log = log.clone();
            std::thread::spawn(move || {
                let mut seen = 0;
                while seen < 3 * CHUNK {
                    let len = log.len();
                    for i in seen..len {
                        assert_eq!(log.get(i).copied(), Some(i));
                    }
                    seen = len;
                }
            })
        };
        for i in 0..3 * CHUNK {
            log.push(i).unwrap();
        }
        reader.join().unwrap();
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_version_and_its_slot_fill_two_cache_lines() {
        use crate::knowledge::change::Change;
        assert_eq!(size_of::<Slot<Change>>(), 128);
        assert_eq!(align_of::<Slot<Change>>(), 64);
    }
}
