//! [`IdIndex`]: the position of every published version, by its id.
//!
//! Each slot holds a version's position and the top bits of its id's hash,
//! in one `u64`. The table hashes a slot by those bits alone, so growing it
//! moves slots without reading a single version: with a million versions,
//! growing by reading each one's id back stalled the writer for a quarter
//! of a second. A lookup compares the stored bits before it reads the
//! version whose id it then compares.

use std::sync::{PoisonError, RwLock};

use hashbrown::HashTable;

/// Bits of a slot that hold the position; the others hold the top of the
/// id's hash. 2^40 positions is far more versions than any knowledge
/// holds in memory.
const POSITION_BITS: u32 = 40;
const POSITION_MASK: u64 = (1 << POSITION_BITS) - 1;

/// An odd constant (2^64 / the golden ratio) that spreads the stored bits
/// over the whole hash the table uses: into its low bits, which pick a
/// bucket, and its top bits, which it compares first.
const SPREAD: u64 = 0x9e37_79b9_7f4a_7c15;

/// The table's hash of a slot, or of an id's hash: its top bits, spread.
fn table_hash(bits: u64) -> u64 {
    (bits >> POSITION_BITS).wrapping_mul(SPREAD)
}

/// Positions by version id.
#[derive(Default)]
pub(crate) struct IdIndex {
    slots: RwLock<HashTable<u64>>,
}

impl IdIndex {
    /// Indexes `position`, the version whose id hashes to `id_hash`. For
    /// the writer only; a position too large to fit a slot is not indexed.
    pub(crate) fn insert(&self, id_hash: u64, position: u64) {
        if position > POSITION_MASK {
            return;
        }
        let slot = (id_hash & !POSITION_MASK) | position;
        self.slots
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert_unique(table_hash(slot), slot, |slot| table_hash(*slot));
    }

    /// The position of the version whose id hashes to `id_hash` and for
    /// whose position `is_it` says yes.
    pub(crate) fn find(&self, id_hash: u64, is_it: impl Fn(u64) -> bool) -> Option<u64> {
        let top = id_hash & !POSITION_MASK;
        self.slots
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .find(table_hash(id_hash), |slot| {
                slot & !POSITION_MASK == top && is_it(slot & POSITION_MASK)
            })
            .map(|slot| slot & POSITION_MASK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_found_by_their_hash_and_the_check() {
        let index = IdIndex::default();
        // Hashes sharing their top bits, as different ids' may.
        let same_top = 0xabcd_ef00_0000_0000;
        for position in 1..=50_000u64 {
            let hash = position.wrapping_mul(0x2545_f491_4f6c_dd1d);
            index.insert(hash, position);
        }
        index.insert(same_top | 1, 60_001);
        index.insert(same_top | 2, 60_002);
        for position in [1u64, 777, 50_000] {
            let hash = position.wrapping_mul(0x2545_f491_4f6c_dd1d);
            assert_eq!(index.find(hash, |at| at == position), Some(position));
        }
        assert_eq!(index.find(same_top, |at| at == 60_002), Some(60_002));
        assert_eq!(index.find(same_top, |at| at == 60_001), Some(60_001));
        assert_eq!(index.find(same_top, |_| false), None);
        assert_eq!(index.find(0x1234_5600_0000_0000, |_| true), None);
    }

    #[test]
    fn a_position_too_large_for_a_slot_is_not_indexed() {
        let index = IdIndex::default();
        index.insert(u64::MAX, POSITION_MASK + 1);
        assert_eq!(index.find(u64::MAX, |_| true), None);
        index.insert(u64::MAX, POSITION_MASK);
        assert_eq!(index.find(u64::MAX, |_| true), Some(POSITION_MASK));
    }
}
