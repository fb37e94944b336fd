//! [`TextBlocks`]: the short texts of versions (id, entry, description,
//! value), many to one allocation. A version lives as long as its
//! knowledge, so a text of its own would leave one small allocation behind
//! for every lesson, scattered among the short-lived ones of the requests
//! that taught them: the allocator's free lists fragment, and every
//! allocation of the process gets slower as the knowledge grows. Kept in
//! blocks, a lesson leaves nothing behind but its share of one.

use std::sync::{Mutex, PoisonError};

use bytes::{Bytes, BytesMut};

/// The size of a block: texts longer than this get one of their own size.
const BLOCK: usize = 64 * 1024;

/// Where texts are written: the free end of the current block.
#[derive(Default)]
pub(crate) struct TextBlocks {
    free: Mutex<BytesMut>,
}

/// A text kept in a [`TextBlocks`]: a share of its block, which lives as
/// long as any text in it.
#[derive(Clone, Default)]
pub(crate) struct SharedText(Bytes);

impl TextBlocks {
    /// Keeps `parts` one after the other as one text.
    pub(crate) fn keep(&self, parts: &[&str]) -> SharedText {
        let length = parts.iter().map(|part| part.len()).sum::<usize>();
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        if free.capacity() < length {
            *free = BytesMut::with_capacity(BLOCK.max(length));
        }
        for part in parts {
            free.extend_from_slice(part.as_bytes());
        }
        SharedText(free.split().freeze())
    }
}

impl SharedText {
    /// The text's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The text from byte `start` to byte `end`, if they are within it and
    /// on character boundaries.
    pub(crate) fn get(&self, start: usize, end: usize) -> Option<&str> {
        std::str::from_utf8(self.0.get(start..end)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_read_back_as_kept_across_blocks() {
        let blocks = TextBlocks::default();
        let texts: Vec<(String, SharedText)> = (0..20_000)
            .map(|n| {
                let id = format!("version-{n}");
                let text = blocks.keep(&[&id, "|", "é"]);
                (format!("{id}|é"), text)
            })
            .collect();
        for (expected, text) in &texts {
            assert_eq!(text.len(), expected.len());
            assert_eq!(text.get(0, text.len()), Some(expected.as_str()));
        }
    }

    #[test]
    fn a_text_longer_than_a_block_is_kept_whole() {
        let blocks = TextBlocks::default();
        let long = "x".repeat(BLOCK * 2 + 3);
        let before = blocks.keep(&["short"]);
        let text = blocks.keep(&[&long]);
        let after = blocks.keep(&["next"]);
        assert_eq!(text.get(0, text.len()), Some(long.as_str()));
        assert_eq!(before.get(0, 5), Some("short"));
        assert_eq!(after.get(0, 4), Some("next"));
    }

    #[test]
    fn a_range_outside_the_text_or_inside_a_character_is_none() {
        let blocks = TextBlocks::default();
        let text = blocks.keep(&["aé"]);
        assert_eq!(text.get(0, 3), Some("aé"));
        assert_eq!(text.get(0, 2), None);
        assert_eq!(text.get(1, 4), None);
    }
}
