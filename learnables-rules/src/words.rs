//! Counting the words of a text in any script.
//!
//! Unicode word segmentation (UAX #29) finds the words of scripts written
//! with spaces. Scripts written without them are segmented differently: each
//! Han ideograph and each kana is a segment of its own, and a run of Thai,
//! Lao, Khmer or Myanmar is one segment however many words it holds (finding
//! those needs a dictionary). For both, a run of such characters counts by
//! its length: one word per three Han characters or kana, one per six
//! letters of the others, rounded up. Short enough that a sentence counts as
//! several words, long enough that one word (查表, ตาราง) counts as one.

use unicode_segmentation::UnicodeSegmentation;

/// The length of a word written without spaces, in units of
/// [`weight`]: three Han characters or kana, six Thai letters.
const UNITS_PER_WORD: usize = 6;

/// The number of words in `text`: UAX #29 words, with runs of scripts
/// written without spaces counted by length.
///
/// ```
/// use learnables_rules::word_count;
/// assert_eq!(word_count("A table keyed on the chapter"), 6);
/// assert_eq!(word_count("按章节查表"), 2);
/// assert_eq!(word_count("ตารางตามบทของพิกัด"), 3);
/// assert_eq!(word_count("..."), 0);
/// ```
pub fn word_count(text: &str) -> usize {
    let mut count = 0;
    let mut run: usize = 0;
    for segment in text.split_word_bounds() {
        if !segment.chars().any(char::is_alphanumeric) {
            count += run.div_ceil(UNITS_PER_WORD);
            run = 0;
        } else if let Some(units) = segment.chars().map(weight).sum::<Option<usize>>() {
            run += units;
        } else {
            count += run.div_ceil(UNITS_PER_WORD) + 1;
            run = 0;
        }
    }
    count + run.div_ceil(UNITS_PER_WORD)
}

/// For a character of a script that does not separate its words with
/// spaces, its share of a word (in units, [`UNITS_PER_WORD`] to a word);
/// `None` for any other character.
fn weight(c: char) -> Option<usize> {
    match u32::from(c) {
        // Thai, Lao, Myanmar, Khmer, Tai Tham: letters, vowel signs and marks.
        0x0E00..=0x0EFF | 0x1000..=0x109F | 0x1780..=0x17FF | 0x19E0..=0x19FF | 0x1A20..=0x1AAF => {
            Some(1)
        }
        // Ideographic marks, kana, CJK ideographs.
        0x3005..=0x3007
        | 0x3040..=0x30FF
        | 0x31F0..=0x31FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF
        | 0xFF66..=0xFF9F
        | 0x20000..=0x3134F => Some(2),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaced_scripts_count_their_words() {
        assert_eq!(word_count("Rules."), 1);
        assert_eq!(word_count("Ask the model"), 3);
        assert_eq!(word_count("Правила таблицы"), 2);
        assert_eq!(word_count("جدول حسب الفصل"), 3);
    }

    #[test]
    fn scripts_without_spaces_count_by_length() {
        assert_eq!(word_count("查表"), 1);
        assert_eq!(word_count("按照章节查表决定"), 3);
        assert_eq!(word_count("章に応じて表で決める"), 4);
        assert_eq!(word_count("ตาราง"), 1);
        assert_eq!(word_count("HS章节"), 2);
    }

    #[test]
    fn punctuation_separates_runs() {
        assert_eq!(word_count("查表。人工"), 2);
        assert_eq!(word_count("…"), 0);
    }
}
