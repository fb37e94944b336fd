//! A byte scan for the Learnables URI in any spelling JSON allows: its
//! characters written as they are or as escapes (`\/`, `\u0068`, any
//! `\X`), with NUL bytes between them ignored (so UTF-16 and UTF-32 text
//! is caught too). It runs over bodies the layer does not read as JSON or
//! as events: such a body goes on unchanged, held back only by the length
//! of the longest spelling, unless the URI appears in it.

use crate::EXTENSION_URI;

/// The longest raw spelling of the URI: every character a `\uXXXX` escape.
pub(crate) const LONGEST_SPELLING: usize = 6 * EXTENSION_URI.len();

const URI: &[u8] = EXTENSION_URI.as_bytes();

/// The failure function of the URI (Knuth-Morris-Pratt), so each byte is
/// read once.
const FALLBACK: [usize; EXTENSION_URI.len()] = {
    let mut table = [0; EXTENSION_URI.len()];
    let mut length = 0;
    let mut at = 1;
    while at < URI.len() {
        if URI[at] == URI[length] {
            length += 1;
            table[at] = length;
            at += 1;
        } else if length > 0 {
            length = table[length - 1];
        } else {
            table[at] = 0;
            at += 1;
        }
    }
    table
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Escape {
    None,
    Backslash,
    /// In `\u`: hex digits still to come, the code unit so far.
    Hex(u8, u16),
}

/// The scan's state between chunks.
#[derive(Debug)]
pub(crate) struct UriScan {
    escape: Escape,
    matched: usize,
    found: bool,
}

impl Default for UriScan {
    fn default() -> Self {
        UriScan::new()
    }
}

impl UriScan {
    pub(crate) fn new() -> UriScan {
        UriScan {
            escape: Escape::None,
            matched: 0,
            found: false,
        }
    }

    /// Whether `bytes` hold the URI in any spelling.
    pub(crate) fn mentions(bytes: &[u8]) -> bool {
        UriScan::new().scan(bytes)
    }

    /// Scans the next bytes; whether the URI has been found (in them or
    /// before).
    pub(crate) fn scan(&mut self, bytes: &[u8]) -> bool {
        let mut at = 0;
        while at < bytes.len() && !self.found {
            if self.matched == 0 && self.escape == Escape::None {
                match memchr::memchr2(URI[0], b'\\', &bytes[at..]) {
                    Some(found) => at += found,
                    None => return false,
                }
            }
            if self.step(bytes[at]) {
                at += 1;
            }
        }
        self.found
    }

    /// Reads one byte; `false` when it must be read again (it ended a `\u`
    /// escape that was not one).
    fn step(&mut self, byte: u8) -> bool {
        match self.escape {
            Escape::None if byte == b'\\' => self.escape = Escape::Backslash,
            Escape::None => self.char(byte),
            Escape::Backslash => {
                self.escape = Escape::None;
                match byte {
                    b'u' => self.escape = Escape::Hex(4, 0),
                    b'b' => self.char(0x08),
                    b'f' => self.char(0x0c),
                    b'n' => self.char(b'\n'),
                    b'r' => self.char(b'\r'),
                    b't' => self.char(b'\t'),
                    // `\"`, `\\`, `\/`, and any other `\X` read as `X`.
                    _ => self.char(byte),
                }
            }
            Escape::Hex(left, unit) => match (byte as char).to_digit(16) {
                Some(digit) => {
                    let unit = unit << 4 | digit as u16;
                    if left > 1 {
                        self.escape = Escape::Hex(left - 1, unit);
                    } else {
                        self.escape = Escape::None;
                        self.char(u8::try_from(unit).unwrap_or(0xff));
                    }
                }
                None => {
                    self.escape = Escape::None;
                    return false;
                }
            },
        }
        true
    }

    fn char(&mut self, byte: u8) {
        if byte == 0 {
            return;
        }
        while self.matched > 0 && URI[self.matched] != byte {
            self.matched = FALLBACK[self.matched - 1];
        }
        if URI[self.matched] == byte {
            self.matched += 1;
        }
        if self.matched == URI.len() {
            self.found = true;
            self.matched = FALLBACK[URI.len() - 1];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_is_found() {
        for text in [
            EXTENSION_URI.to_owned(),
            EXTENSION_URI.replace('/', "\\/"),
            EXTENSION_URI.replacen('h', "\\u0068", 1),
            EXTENSION_URI
                .replace('s', "\\u0073")
                .replace('/', "\\u002F"),
            format!("hhttps://rsaxb.com/a2a/learnables/vhttps{EXTENSION_URI}x"),
            EXTENSION_URI
                .bytes()
                .flat_map(|byte| [byte, 0])
                .map(char::from)
                .collect(),
            format!("\\{EXTENSION_URI}"),
            format!("\\u00{EXTENSION_URI}"),
        ] {
            assert!(UriScan::mentions(text.as_bytes()), "{text}");
            for split in 0..text.len() {
                let mut scan = UriScan::new();
                let (a, b) = text.as_bytes().split_at(split);
                assert!(scan.scan(a) | scan.scan(b), "{text} split at {split}");
            }
        }
    }

    #[test]
    fn near_misses_are_not() {
        for text in [
            "https://rsaxb.com/a2a/learnables/v2",
            "https://rsaxb.com/a2a/learnables/",
            "http://rsaxb.com/a2a/learnables/v1",
            "\\\\u0068ttps://rsaxb.com/a2a/learnables/v1",
            "https:\\u2F/rsaxb.com/a2a/learnables/v1",
        ] {
            assert!(!UriScan::mentions(text.as_bytes()), "{text}");
        }
    }
}
