//! Text a client sent, made fit to quote in an error message or a log
//! line: shortened, and every character that does not show as itself
//! (controls, which a terminal may run as escape sequences, and the
//! invisible and direction-changing format characters) written as an
//! escape. Our own because the escaping a message needs is a few lines and
//! no maintained crate offers exactly it without a terminal dependency.

use std::fmt::Write;

/// The most characters of a client's text quoted.
const SHOWN_CHARS: usize = 64;

/// `text` as a message quotes it.
pub(crate) fn shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(SHOWN_CHARS * 2));
    for (count, c) in text.chars().enumerate() {
        if count == SHOWN_CHARS {
            out.push('…');
            break;
        }
        if hidden(c) {
            // Cannot fail: writing to a String.
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `c` does not show as itself.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_escaped_and_long_text_shortened() {
        assert_eq!(shown("a\u{1b}[31mb\u{202e}"), "a\\u{1b}[31mb\\u{202e}");
        let long = "é".repeat(100);
        let short = shown(&long);
        assert_eq!(short.chars().count(), SHOWN_CHARS + 1);
        assert!(short.ends_with('…'));
        assert_eq!(shown("1.0"), "1.0");
    }
}
