//! A byte scan for an extension's URI in any spelling JSON allows: its
//! characters written as they are or as escapes (`\/`, `\u0068`, any
//! `\X`), with NUL bytes between them ignored (so UTF-16 and UTF-32 text
//! is caught too). It runs over bodies the layer does not read as JSON or
//! as events: such a body goes on unchanged, held back only by the length
//! of the longest spelling, unless the URI appears in it.

use std::sync::Arc;

/// An extension's URI, ready to be looked for: its bytes and their failure
/// function (Knuth-Morris-Pratt), so each byte of a body is read once.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Uri {
    bytes: Box<[u8]>,
    fallback: Box<[usize]>,
}

impl Uri {
    pub(crate) fn new(uri: &str) -> Arc<Uri> {
        let bytes: Box<[u8]> = uri.as_bytes().into();
        let mut fallback = vec![0; bytes.len()];
        let mut length = 0;
        let mut at = 1;
        while at < bytes.len() {
            if bytes[at] == bytes[length] {
                length += 1;
                fallback[at] = length;
                at += 1;
            } else if length > 0 {
                length = fallback[length - 1];
            } else {
                at += 1;
            }
        }
        Arc::new(Uri {
            bytes,
            fallback: fallback.into(),
        })
    }

    /// The URI's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The longest raw spelling of the URI: every character a `\uXXXX` escape.
    pub(crate) fn longest_spelling(&self) -> usize {
        6 * self.bytes.len()
    }
}

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
    uri: Arc<Uri>,
    escape: Escape,
    matched: usize,
    found: bool,
}

impl UriScan {
    pub(crate) fn new(uri: &Arc<Uri>) -> UriScan {
        UriScan {
            uri: uri.clone(),
            escape: Escape::None,
            matched: 0,
            found: false,
        }
    }

    /// Whether `bytes` hold the URI in any spelling.
    pub(crate) fn mentions(uri: &Arc<Uri>, bytes: &[u8]) -> bool {
        UriScan::new(uri).scan(bytes)
    }

    /// Scans the next bytes; whether the URI has been found (in them or
    /// before).
    pub(crate) fn scan(&mut self, bytes: &[u8]) -> bool {
        let mut at = 0;
        if self.uri.bytes.is_empty() {
            // An empty URI names nothing.
            return false;
        }
        while at < bytes.len() && !self.found {
            if self.matched == 0 && self.escape == Escape::None {
                match memchr::memchr2(self.uri.bytes[0], b'\\', &bytes[at..]) {
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
        let uri = &*self.uri;
        while self.matched > 0 && uri.bytes[self.matched] != byte {
            self.matched = uri.fallback[self.matched - 1];
        }
        if uri.bytes[self.matched] == byte {
            self.matched += 1;
        }
        if self.matched == uri.bytes.len() {
            self.found = true;
            self.matched = uri.fallback[uri.bytes.len() - 1];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TEST_URI;

    #[test]
    fn every_spelling_is_found() {
        for text in [
            TEST_URI.to_owned(),
            TEST_URI.replace('/', "\\/"),
            TEST_URI.replacen('h', "\\u0068", 1),
            TEST_URI.replace('s', "\\u0073").replace('/', "\\u002F"),
            format!("hhttps://example.com/a2a/ext/vhttps{TEST_URI}x"),
            TEST_URI
                .bytes()
                .flat_map(|byte| [byte, 0])
                .map(char::from)
                .collect(),
            format!("\\{TEST_URI}"),
            format!("\\u00{TEST_URI}"),
        ] {
            assert!(
                UriScan::mentions(&Uri::new(TEST_URI), text.as_bytes()),
                "{text}"
            );
            for split in 0..text.len() {
                let mut scan = UriScan::new(&Uri::new(TEST_URI));
                let (a, b) = text.as_bytes().split_at(split);
                assert!(scan.scan(a) | scan.scan(b), "{text} split at {split}");
            }
        }
    }

    #[test]
    fn near_misses_are_not() {
        for text in [
            "https://example.com/a2a/ext/v2",
            "https://example.com/a2a/ext/",
            "http://example.com/a2a/ext/v1",
            "\\\\u0068ttps://example.com/a2a/ext/v1",
            "https:\\u2F/example.com/a2a/ext/v1",
        ] {
            assert!(
                !UriScan::mentions(&Uri::new(TEST_URI), text.as_bytes()),
                "{text}"
            );
        }
    }
}
