//! [`same_bytes`]: equality of short byte strings (entry keys, collection
//! names) without a call into the C library's `memcmp`: a lookup compares
//! one or two keys, and for texts of a few bytes the call costs more than
//! the comparison.

/// Whether `a` and `b` hold the same bytes. Up to 16 bytes, two loads of
/// each (overlapping when shorter than twice their width) decide it.
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let length = a.len();
    if length != b.len() {
        return false;
    }
    match length {
        0 => true,
        1..=3 => a[0] == b[0] && a[length / 2] == b[length / 2] && a[length - 1] == b[length - 1],
        4..=7 => {
            word::<4>(a, 0) == word::<4>(b, 0)
                && word::<4>(a, length - 4) == word::<4>(b, length - 4)
        }
        8..=16 => {
            word::<8>(a, 0) == word::<8>(b, 0)
                && word::<8>(a, length - 8) == word::<8>(b, length - 8)
        }
        _ => a == b,
    }
}

/// The `W` bytes of `bytes` from `at` (callers keep them within it).
fn word<const W: usize>(bytes: &[u8], at: usize) -> [u8; W] {
    bytes
        .get(at..at + W)
        .and_then(|word| word.try_into().ok())
        .unwrap_or([0; W])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_of_short_texts_compares_as_slices_do() {
        let texts: Vec<Vec<u8>> = (0..=20)
            .flat_map(|length| {
                let base: Vec<u8> = (0..length).map(|i| b'a' + i as u8).collect();
                let mut variants = vec![base.clone()];
                for at in 0..length {
                    let mut changed = base.clone();
                    changed[at] ^= 1;
                    variants.push(changed);
                }
                variants
            })
            .collect();
        for a in &texts {
            for b in &texts {
                assert_eq!(same_bytes(a, b), a == b, "{a:?} against {b:?}");
            }
        }
    }
}
