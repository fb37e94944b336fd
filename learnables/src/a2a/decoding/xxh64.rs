//! XXH64, the hash of zstd's content checksums.

/// XXH64 with seed 0, streamed: the hash of zstd's content checksum
/// (RFC 8878, 3.1.1; the algorithm as xxHash's XXH64 specification gives
/// it). Our own, since `ruzstd`'s needs one more crate.
pub(super) struct Xxh64 {
    lanes: [u64; 4],
    /// Bytes not yet in a 32-byte stripe.
    tail: Vec<u8>,
    length: u64,
}

const PRIME64_1: u64 = 0x9e37_79b1_85eb_ca87;
const PRIME64_2: u64 = 0xc2b2_ae3d_27d4_eb4f;
const PRIME64_3: u64 = 0x1656_67b1_9e37_79f9;
const PRIME64_4: u64 = 0x85eb_ca77_c2b2_ae63;
const PRIME64_5: u64 = 0x27d4_eb2f_1656_67c5;

fn xxh64_round(lane: u64, input: u64) -> u64 {
    lane.wrapping_add(input.wrapping_mul(PRIME64_2))
        .rotate_left(31)
        .wrapping_mul(PRIME64_1)
}

fn xxh64_merge(hash: u64, lane: u64) -> u64 {
    (hash ^ xxh64_round(0, lane))
        .wrapping_mul(PRIME64_1)
        .wrapping_add(PRIME64_4)
}

/// The little-endian word at the start of `bytes` (8 bytes or more).
fn word64(bytes: &[u8]) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(word)
}

impl Xxh64 {
    pub(super) fn new() -> Xxh64 {
        Xxh64 {
            lanes: [
                PRIME64_1.wrapping_add(PRIME64_2),
                PRIME64_2,
                0,
                PRIME64_1.wrapping_neg(),
            ],
            tail: Vec::with_capacity(32),
            length: 0,
        }
    }

    fn stripe(lanes: &mut [u64; 4], stripe: &[u8]) {
        for (lane, word) in lanes.iter_mut().zip(stripe.chunks_exact(8)) {
            *lane = xxh64_round(*lane, word64(word));
        }
    }

    pub(super) fn update(&mut self, mut bytes: &[u8]) {
        self.length += bytes.len() as u64;
        if !self.tail.is_empty() {
            let take = (32 - self.tail.len()).min(bytes.len());
            self.tail.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.tail.len() < 32 {
                return;
            }
            Xxh64::stripe(&mut self.lanes, &self.tail);
            self.tail.clear();
        }
        let mut stripes = bytes.chunks_exact(32);
        for stripe in &mut stripes {
            Xxh64::stripe(&mut self.lanes, stripe);
        }
        self.tail.extend_from_slice(stripes.remainder());
    }

    pub(super) fn finish(&self) -> u64 {
        let [v1, v2, v3, v4] = self.lanes;
        let mut hash = if self.length >= 32 {
            let hash = v1
                .rotate_left(1)
                .wrapping_add(v2.rotate_left(7))
                .wrapping_add(v3.rotate_left(12))
                .wrapping_add(v4.rotate_left(18));
            self.lanes
                .iter()
                .fold(hash, |hash, &lane| xxh64_merge(hash, lane))
        } else {
            PRIME64_5
        };
        hash = hash.wrapping_add(self.length);
        let mut words = self.tail.chunks_exact(8);
        for word in &mut words {
            hash ^= xxh64_round(0, word64(word));
            hash = hash
                .rotate_left(27)
                .wrapping_mul(PRIME64_1)
                .wrapping_add(PRIME64_4);
        }
        let mut rest = words.remainder();
        if let Some(word) = rest.first_chunk::<4>() {
            hash ^= u64::from(u32::from_le_bytes(*word)).wrapping_mul(PRIME64_1);
            hash = hash
                .rotate_left(23)
                .wrapping_mul(PRIME64_2)
                .wrapping_add(PRIME64_3);
            rest = &rest[4..];
        }
        for &byte in rest {
            hash ^= u64::from(byte).wrapping_mul(PRIME64_5);
            hash = hash.rotate_left(11).wrapping_mul(PRIME64_1);
        }
        hash ^= hash >> 33;
        hash = hash.wrapping_mul(PRIME64_2);
        hash ^= hash >> 29;
        hash = hash.wrapping_mul(PRIME64_3);
        hash ^ (hash >> 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh64_matches_the_reference_values() {
        // XXH64 of "" and of "abc" with seed 0, as xxHash gives them.
        assert_eq!(Xxh64::new().finish(), 0xef46_db37_51d8_e999);
        let mut abc = Xxh64::new();
        abc.update(b"abc");
        assert_eq!(abc.finish(), 0x44bc_2cf5_ad77_0999);
    }
}
