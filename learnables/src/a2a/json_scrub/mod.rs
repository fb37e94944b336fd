//! The streaming JSON scrubber: JSON text goes through byte for byte,
//! chunk by chunk, except every member keyed by the Learnables URI (in any
//! object, at any depth, every copy of a key given twice, the key compared
//! after its escapes are decoded) and the URI's string in an `extensions`
//! array, whose spans are deleted with the comma beside them. A `metadata`
//! object or an `extensions` array left empty by those deletions goes too,
//! as a member keyed by the URI does (one the host sent empty stays), so
//! that a scrubbed message looks like one that never had a block. Nothing
//! is parsed into values: numbers, key order and whitespace stay as they
//! came.
//!
//! Memory is bounded whatever the size of the text: a stack of open
//! containers (at most [`MAX_DEPTH`]) and the bytes held back while a key
//! may still turn out to be the URI (a comma, the whitespace after it and
//! the key's first characters, and the start of each `metadata` or
//! `extensions` member until something in it is kept: at most
//! [`MAX_HELD`] in all). Text that is not
//! JSON, nested deeper or holding more than that stops the scrubber with a
//! [`JsonFault`]: the caller decides what becomes of the rest.

use std::ops::Range;

mod pending;
mod tokens;

use tokens::{Frame, Kind, Matcher, Mode, Num, State};

/// The deepest nesting of arrays and objects the scrubber follows.
pub(crate) const MAX_DEPTH: usize = 1024;

/// The most bytes held back at once (a comma and the whitespace after it,
/// before the key that decides whether they are kept).
pub(crate) const MAX_HELD: usize = 1 << 20;

/// Where scrubbed bytes go: ranges of the chunk being fed, or bytes held
/// back from earlier.
pub(crate) trait Sink {
    /// `range` of the chunk being fed, unchanged.
    fn input(&mut self, range: Range<usize>);
    /// Bytes held back earlier and now kept.
    fn held(&mut self, bytes: &[u8]);
}

/// Why the scrubber stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonFault {
    /// The text is not JSON (or ended inside a value).
    Syntax,
    /// Arrays and objects nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// More than [`MAX_HELD`] bytes would have to be held back.
    TooLong,
}

impl JsonFault {
    /// The fault in words, for a log line.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            JsonFault::Syntax => "it is not JSON",
            JsonFault::TooDeep => "it nests deeper than the scrubber follows",
            JsonFault::TooLong => {
                "it holds more whitespace after a comma than the scrubber holds back"
            }
        }
    }
}

/// A stop, and what the scrubber had not sent when it stopped.
#[derive(Debug)]
pub(crate) struct Stopped {
    pub(crate) fault: JsonFault,
    /// Bytes held back, never sent: they come before the rest of the text.
    pub(crate) held: Vec<u8>,
    /// Where in the chunk fed the rest begins (the chunk's length when the
    /// stop came at the end).
    pub(crate) at: usize,
}

/// The scrubber's state between chunks.
pub(crate) struct JsonScrub {
    state: State,
    mode: Mode,
    stack: Vec<Frame>,
    /// Bytes held back from earlier chunks; what is held of the chunk being
    /// fed stays in it, from `hold_at`, and is copied only at its end.
    held: Vec<u8>,
    /// Where in the chunk being fed the bytes held back begin (0 when they
    /// began in an earlier chunk).
    hold_at: usize,
    matcher: Option<Matcher>,
    /// The depth of the container a removed member is being skipped in.
    skip_depth: usize,
    /// The value about to start is an `extensions` member's (`Array`) or
    /// a `metadata` member's (`Object`), its key still held.
    candidate: Option<Kind>,
    /// How many frames hold their member's start back, and those starts,
    /// one after another (each frame knows where its own begins): one
    /// buffer used again, not one allocation a member.
    pending_frames: usize,
    pending_bytes: Vec<u8>,
    /// The lowest of those frames in the stack.
    lowest_pending: usize,
    /// Where the bytes being passed on began in the chunk being fed.
    run: usize,
}

impl Default for JsonScrub {
    fn default() -> Self {
        JsonScrub::new()
    }
}

impl JsonScrub {
    pub(crate) fn new() -> JsonScrub {
        JsonScrub {
            state: State::Top,
            mode: Mode::Pass,
            stack: Vec::new(),
            held: Vec::new(),
            hold_at: 0,
            matcher: None,
            skip_depth: 0,
            candidate: None,
            pending_frames: 0,
            pending_bytes: Vec::new(),
            lowest_pending: 0,
            run: 0,
        }
    }

    /// How many bytes are held back now, between chunks.
    #[cfg(test)]
    pub(crate) fn held_len(&self) -> usize {
        self.held.len()
    }

    /// Scrubs the next chunk of the text into `sink`.
    pub(crate) fn feed(&mut self, input: &[u8], sink: &mut impl Sink) -> Result<(), Stopped> {
        self.run = 0;
        self.hold_at = 0;
        let mut at = 0;
        while at < input.len() {
            // Inside a string nobody needs to decode: up to its next quote
            // or escape in one go.
            if let State::Str { .. } = self.state {
                let end = memchr::memchr2(b'"', b'\\', &input[at..])
                    .map_or(input.len(), |found| at + found);
                if let Some(matcher) = &mut self.matcher {
                    // A key (or an `extensions` string) still deciding: its
                    // plain run compared in one go.
                    matcher.feed_run(&input[at..end]);
                    if !matcher.alive() {
                        self.release(input, sink);
                    }
                }
                if self.mode == Mode::Hold
                    && self.held.len() + self.pending_bytes.len() + end.saturating_sub(self.hold_at)
                        > MAX_HELD
                {
                    return Err(self.stop(JsonFault::TooLong, input, at, sink));
                }
                at = end;
                if at == input.len() {
                    break;
                }
            }
            match self.step(input, at, sink) {
                Ok(true) => at += 1,
                // The byte ended a number: it is read again after it.
                Ok(false) => {}
                Err(fault) => return Err(self.stop(fault, input, at, sink)),
            }
        }
        match self.mode {
            Mode::Pass => self.pass(input.len(), sink),
            Mode::Hold => self.keep_held(input, input.len(), sink),
            Mode::Skip => {}
        }
        Ok(())
    }

    /// Sends the bytes passed on in this chunk up to `end`.
    fn pass(&mut self, end: usize, sink: &mut impl Sink) {
        if self.run < end {
            sink.input(self.run..end);
        }
        self.run = end;
    }

    /// Holding at `end` of this chunk, which is not read further: what was
    /// passed before the hold is sent, what is held of the chunk copied.
    fn keep_held(&mut self, input: &[u8], end: usize, sink: &mut impl Sink) {
        if self.held.is_empty() {
            self.pass(self.hold_at, sink);
        }
        self.held
            .extend_from_slice(&input[self.hold_at.min(end)..end]);
    }

    /// The end of the text: an error unless it ended between values.
    pub(crate) fn finish(&mut self) -> Result<(), Stopped> {
        if let State::Num(num) = self.state
            && num.complete()
            && self.stack.is_empty()
        {
            self.state = State::Top;
        }
        if self.state == State::Top && self.held.is_empty() {
            Ok(())
        } else {
            Err(Stopped {
                fault: JsonFault::Syntax,
                held: self.take_all_held(),
                at: 0,
            })
        }
    }

    fn stop(&mut self, fault: JsonFault, input: &[u8], at: usize, sink: &mut impl Sink) -> Stopped {
        match self.mode {
            Mode::Pass => self.pass(at, sink),
            Mode::Hold => self.keep_held(input, at, sink),
            Mode::Skip => {}
        }
        self.mode = Mode::Skip;
        Stopped {
            fault,
            held: self.take_all_held(),
            at,
        }
    }

    /// Reads one byte; `Ok(false)` when it must be read again (it ended a
    /// number and belongs to what follows).
    fn step(&mut self, input: &[u8], at: usize, sink: &mut impl Sink) -> Result<bool, JsonFault> {
        let byte = input[at];
        let space = matches!(byte, b' ' | b'\t' | b'\n' | b'\r');
        match self.state {
            State::Top => match byte {
                _ if space || byte == 0x1e => {}
                _ => self.value(input, at, sink)?,
            },
            State::Value | State::FirstValue => match byte {
                _ if space => {}
                b']' if self.state == State::FirstValue => {
                    self.close(Kind::Array, at, input, sink)?;
                }
                _ => self.value(input, at, sink)?,
            },
            State::FirstKey => match byte {
                _ if space => {}
                b'}' => self.close(Kind::Object, at, input, sink)?,
                b'"' => self.open_key(input, at, sink),
                _ => return Err(JsonFault::Syntax),
            },
            State::Key => match byte {
                _ if space => {}
                b'"' => self.open_key(input, at, sink),
                _ => return Err(JsonFault::Syntax),
            },
            State::Colon => match byte {
                _ if space => {}
                b':' => self.state = State::Value,
                _ => return Err(JsonFault::Syntax),
            },
            State::After => match byte {
                _ if space => {}
                b',' => self.comma(at),
                b'}' => self.close(Kind::Object, at, input, sink)?,
                b']' => self.close(Kind::Array, at, input, sink)?,
                _ => return Err(JsonFault::Syntax),
            },
            State::Str { key } => match byte {
                b'"' => {
                    self.hold(at)?;
                    self.string_end(key, input, sink);
                    return Ok(true);
                }
                b'\\' => self.state = State::Esc { key },
                _ => self.decoded(byte, input, sink),
            },
            State::Esc { key } => {
                self.state = State::Str { key };
                let decoded = match byte {
                    b'"' | b'\\' | b'/' => byte,
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'u' => {
                        self.state = State::Hex {
                            key,
                            left: 4,
                            unit: 0,
                        };
                        self.hold(at)?;
                        return Ok(true);
                    }
                    _ => return Err(JsonFault::Syntax),
                };
                self.hold(at)?;
                self.decoded(decoded, input, sink);
                return Ok(true);
            }
            State::Hex { key, left, unit } => {
                let digit = (byte as char).to_digit(16).ok_or(JsonFault::Syntax)? as u16;
                let unit = unit << 4 | digit;
                self.hold(at)?;
                if left > 1 {
                    self.state = State::Hex {
                        key,
                        left: left - 1,
                        unit,
                    };
                } else {
                    self.state = State::Str { key };
                    let decoded = u8::try_from(unit).ok().filter(u8::is_ascii).unwrap_or(0xff);
                    self.decoded(decoded, input, sink);
                }
                return Ok(true);
            }
            State::Num(num) => match num.next(byte) {
                Some(next) => self.state = State::Num(next),
                None if num.complete() => {
                    self.value_done();
                    return Ok(false);
                }
                None => return Err(JsonFault::Syntax),
            },
            State::Lit(rest) => match rest.split_first() {
                Some((&expected, rest)) if expected == byte => {
                    self.state = State::Lit(rest);
                    if rest.is_empty() {
                        self.value_done();
                    }
                }
                _ => return Err(JsonFault::Syntax),
            },
        }
        self.hold(at)?;
        Ok(true)
    }

    /// The byte at `at` is held back, while holding: an error when that
    /// would hold more than [`MAX_HELD`].
    fn hold(&self, at: usize) -> Result<(), JsonFault> {
        if self.mode == Mode::Hold
            && self.held.len() + self.pending_bytes.len() + at.saturating_sub(self.hold_at)
                >= MAX_HELD
        {
            return Err(JsonFault::TooLong);
        }
        Ok(())
    }

    /// A character of a string's text, decoded.
    fn decoded(&mut self, byte: u8, input: &[u8], sink: &mut impl Sink) {
        if let Some(matcher) = &mut self.matcher {
            matcher.feed(byte);
            if !matcher.alive() {
                self.release(input, sink);
            }
        }
    }

    /// What was held is kept (the comma too when a member before it was
    /// kept) and passed on with what follows.
    fn release(&mut self, input: &[u8], sink: &mut impl Sink) {
        self.matcher = None;
        // Something is kept: the members it is in are too, and go first.
        self.drain_pending(|bytes| {
            if !bytes.is_empty() {
                sink.held(bytes);
            }
        });
        let frame = self.stack.last_mut();
        let keep_comma = frame.as_ref().is_none_or(|frame| frame.kept);
        if let Some(frame) = frame {
            frame.kept = true;
        }
        if self.mode != Mode::Hold {
            return;
        }
        self.mode = Mode::Pass;
        if self.held.is_empty() {
            // Held in this chunk only: it goes on in the same run, but for
            // a comma not kept.
            if !keep_comma && input.get(self.hold_at) == Some(&b',') {
                self.pass(self.hold_at, sink);
                self.run = self.hold_at + 1;
            }
            return;
        }
        let held = match self.held.split_first() {
            Some((b',', rest)) if !keep_comma => rest,
            _ => &self.held[..],
        };
        if !held.is_empty() {
            sink.held(held);
        }
        self.held.clear();
        // What is held of this chunk began at its start.
        self.run = 0;
    }

    /// Starts holding at `at` (which is held too); nothing is copied yet.
    fn start_hold(&mut self, at: usize) {
        if self.mode == Mode::Pass {
            self.mode = Mode::Hold;
            self.hold_at = at;
        }
    }

    fn open_key(&mut self, input: &[u8], at: usize, sink: &mut impl Sink) {
        self.state = State::Str { key: true };
        if self.mode == Mode::Skip {
            return;
        }
        self.start_hold(at);
        // A key that begins with a plain character other than `h`, `e` or
        // `m` is neither the URI, `extensions` nor `metadata`: most keys,
        // decided without a matcher (the scrubber's cost is mostly per key).
        if input
            .get(at + 1)
            .is_some_and(|first| !matches!(first, b'h' | b'e' | b'm' | b'\\'))
        {
            self.release(input, sink);
            return;
        }
        self.matcher = Some(Matcher {
            at: 0,
            uri: true,
            extensions: true,
            metadata: true,
        });
    }

    /// A `,` in a container: held, in an object or an `extensions` array,
    /// until what follows decides.
    fn comma(&mut self, at: usize) {
        let Some(frame) = self.stack.last() else {
            return;
        };
        let holds = frame.kind == Kind::Object || frame.scrubs;
        self.state = match frame.kind {
            Kind::Object => State::Key,
            Kind::Array => State::Value,
        };
        if self.mode == Mode::Skip && self.stack.len() == self.skip_depth {
            // The member removed ends here; the comma waits for the next.
            self.mode = if holds { Mode::Hold } else { Mode::Pass };
            self.run = at;
            self.hold_at = at;
        } else if holds {
            self.start_hold(at);
        }
    }

    fn string_end(&mut self, key: bool, input: &[u8], sink: &mut impl Sink) {
        self.state = if key {
            State::Colon
        } else {
            State::Str { key }
        };
        let matcher = self.matcher.take();
        if !key {
            self.value_done();
        }
        let Some(matcher) = matcher else { return };
        if matcher.is_uri() {
            // The member (or the element) is removed, with the comma before it.
            if self.held.is_empty() {
                self.pass(self.hold_at, sink);
            }
            self.held.clear();
            self.mode = Mode::Skip;
            self.skip_depth = self.stack.len();
            if let Some(frame) = self.stack.last_mut() {
                frame.removed = true;
            }
        } else if key && matcher.is_extensions() {
            // Held until its value shows whether anything of it is kept.
            self.candidate = Some(Kind::Array);
        } else if key && matcher.is_metadata() {
            self.candidate = Some(Kind::Object);
        } else {
            self.release(input, sink);
        }
    }

    /// A value starts with `byte`.
    fn value(&mut self, input: &[u8], at: usize, sink: &mut impl Sink) -> Result<(), JsonFault> {
        let byte = input[at];
        let candidate = self.candidate.take();
        let scrubs = self.stack.last().is_some_and(|frame| frame.scrubs);
        if scrubs && byte == b'"' && self.mode != Mode::Skip {
            self.start_hold(at);
            self.matcher = Some(Matcher {
                at: 0,
                uri: true,
                extensions: false,
                metadata: false,
            });
            self.state = State::Str { key: false };
            return Ok(());
        }
        let opens = match byte {
            b'{' => Some(Kind::Object),
            b'[' => Some(Kind::Array),
            _ => None,
        };
        // A `metadata` or `extensions` member whose value is of another
        // kind is kept as any member is.
        if scrubs || (candidate.is_some() && candidate != opens) {
            self.release(input, sink);
        }
        self.state = match byte {
            b'{' | b'[' => {
                if self.stack.len() >= MAX_DEPTH {
                    return Err(JsonFault::TooDeep);
                }
                let object = byte == b'{';
                let pending = if candidate.is_some() && self.mode == Mode::Hold {
                    // The bracket is held too.
                    self.hold(at + 1)?;
                    Some(self.pend(input, at, sink))
                } else {
                    None
                };
                self.stack.push(Frame {
                    kind: if object { Kind::Object } else { Kind::Array },
                    kept: false,
                    scrubs: !object && candidate == Some(Kind::Array) && self.mode != Mode::Skip,
                    pending,
                    removed: false,
                });
                if object {
                    State::FirstKey
                } else {
                    State::FirstValue
                }
            }
            b'"' => State::Str { key: false },
            b'-' => State::Num(Num::Minus),
            b'0' => State::Num(Num::Zero),
            b'1'..=b'9' => State::Num(Num::Int),
            b't' => State::Lit(b"rue"),
            b'f' => State::Lit(b"alse"),
            b'n' => State::Lit(b"ull"),
            _ => return Err(JsonFault::Syntax),
        };
        Ok(())
    }

    fn value_done(&mut self) {
        self.state = if self.stack.is_empty() {
            State::Top
        } else {
            State::After
        };
    }
}

/// A sink into one vector.
struct VecSink<'a> {
    input: &'a [u8],
    out: &'a mut Vec<u8>,
}

impl Sink for VecSink<'_> {
    fn input(&mut self, range: Range<usize>) {
        self.out.extend_from_slice(&self.input[range]);
    }

    fn held(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }
}

/// `text` scrubbed whole, or `None` when it is not JSON the scrubber reads.
pub(crate) fn scrub_whole(text: &[u8]) -> Option<Vec<u8>> {
    let mut scrub = JsonScrub::new();
    let mut out = Vec::with_capacity(text.len());
    scrub
        .feed(
            text,
            &mut VecSink {
                input: text,
                out: &mut out,
            },
        )
        .ok()?;
    scrub.finish().ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EXTENSION_URI;

    const U: &str = EXTENSION_URI;

    /// `text` fed in two chunks split at every position and byte by byte:
    /// the same result each time, which is returned.
    fn scrubbed(text: &str) -> Option<String> {
        let whole = scrub_whole(text.as_bytes());
        let bytes = text.as_bytes();
        for split in 0..=bytes.len() {
            assert_eq!(
                in_chunks(&[&bytes[..split], &bytes[split..]]),
                whole,
                "{text} split at {split}"
            );
        }
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(in_chunks(&singles), whole, "{text} byte by byte");
        whole.map(|out| String::from_utf8(out).unwrap())
    }

    fn in_chunks(chunks: &[&[u8]]) -> Option<Vec<u8>> {
        let mut scrub = JsonScrub::new();
        let mut out = Vec::new();
        for chunk in chunks {
            scrub
                .feed(
                    chunk,
                    &mut VecSink {
                        input: chunk,
                        out: &mut out,
                    },
                )
                .ok()?;
        }
        scrub.finish().ok()?;
        Some(out)
    }

    #[test]
    fn blocks_go_with_their_commas_wherever_they_are() {
        let cases = [
            (
                format!(r#"{{"metadata":{{"{U}":{{"teach":{{"a":[1,{{"b":"}}"}}]}}}}}}}}"#),
                r#"{}"#.to_owned(),
            ),
            (
                format!(r#"{{"a":1,"{U}":2,"b":3}}"#),
                r#"{"a":1,"b":3}"#.to_owned(),
            ),
            (format!(r#"{{"{U}":2,"b":3}}"#), r#"{"b":3}"#.to_owned()),
            (format!(r#"{{"a":1,"{U}":2}}"#), r#"{"a":1}"#.to_owned()),
            (
                format!(r#"{{"{U}":2,"{U}":[3],"b":3,"{U}":null}}"#),
                r#"{"b":3}"#.to_owned(),
            ),
            (
                format!("{{\n  \"a\": 1,\n  \"{U}\" : {{ }} ,\n  \"b\": 2\n}}"),
                "{\n  \"a\": 1,\n  \"b\": 2\n}".to_owned(),
            ),
            (
                format!(r#"[{{"x":{{"{U}":1}}}},{{"{U}":"s"}}] {{"{U}":true}}"#),
                r#"[{"x":{}},{}] {}"#.to_owned(),
            ),
            (
                format!(r#"{{"extensions":["{U}","https://e.x/y","{U}"],"e":["{U}"]}}"#),
                format!(r#"{{"extensions":["https://e.x/y"],"e":["{U}"]}}"#),
            ),
            (
                format!(r#"{{"extensions":["{U}"],"ext\u0065nsions":[1,"{U}",{{}}]}}"#),
                r#"{"ext\u0065nsions":[1,{}]}"#.to_owned(),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(scrubbed(&text).as_deref(), Some(&expected[..]), "{text}");
        }
    }

    #[test]
    fn no_emptied_metadata_or_extensions_is_left() {
        let cases = [
            (
                format!(r#"{{"a":1,"metadata":{{"{U}":1}},"b":2}}"#),
                r#"{"a":1,"b":2}"#,
            ),
            (format!(r#"{{"metadata":{{"{U}":1}},"b":2}}"#), r#"{"b":2}"#),
            (format!(r#"{{"a":1,"metadata":{{"{U}":1}}}}"#), r#"{"a":1}"#),
            (format!(r#"{{"a":1,"extensions":["{U}"]}}"#), r#"{"a":1}"#),
            (
                format!(r#"{{ "a" : 1 , "metadata" : {{ "{U}" : 1 }} , "b" : 2 }}"#),
                r#"{ "a" : 1 , "b" : 2 }"#,
            ),
            (
                format!(r#"{{"metadata":{{"metadata":{{"{U}":1}}}}}}"#),
                "{}",
            ),
            (
                format!(r#"{{"metadata":{{"{U}":1,"metadata":{{}}}}}}"#),
                r#"{"metadata":{"metadata":{}}}"#,
            ),
            (
                format!(r#"{{"metadata":{{"{U}":1,"extensions":["{U}"],"k":0}}}}"#),
                r#"{"metadata":{"k":0}}"#,
            ),
            (format!(r#"{{"m\u0065tadata":{{"{U}":1}}}}"#), "{}"),
            (
                format!(r#"{{"metadata":[{{"{U}":1}}]}}"#),
                r#"{"metadata":[{}]}"#,
            ),
            (
                format!(r#"{{"extensions":{{"{U}":1}}}}"#),
                r#"{"extensions":{}}"#,
            ),
            (
                format!(r#"{{"metadata":{{"{U}":1}}}} {{"metadata":{{"{U}":2}},"k":[]}}"#),
                r#"{} {"k":[]}"#,
            ),
            (
                format!(
                    r#"[{{"metadata":{{"{U}":1}},"extensions":["{U}"]}},{{"extensions":["{U}",2]}}]"#
                ),
                r#"[{},{"extensions":[2]}]"#,
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(scrubbed(&text).as_deref(), Some(expected), "{text}");
        }
        // What the host sent empty, or not as an object or array, stays.
        for text in [
            r#"{"metadata":{},"extensions":[]}"#,
            r#"{"metadata" : { } , "extensions" : [ ] , "m":{"metadata":{"metadata":{}}}}"#,
            r#"{"metadata":null,"extensions":"x","metadata":1}"#,
        ] {
            assert_eq!(scrubbed(text).as_deref(), Some(text), "{text}");
        }
        // Not JSON after all: what was held comes back to be scanned.
        let mut scrub = JsonScrub::new();
        let mut out = Vec::new();
        let text = b"{\"a\":1,\"metadata\":{ ]";
        let stopped = scrub
            .feed(
                text,
                &mut VecSink {
                    input: text,
                    out: &mut out,
                },
            )
            .unwrap_err();
        assert_eq!(out, b"{\"a\":1");
        assert_eq!(stopped.held, b",\"metadata\":{ ");
        assert_eq!(&text[stopped.at..], b"]");
        // The start of a pending member counts toward what is held.
        let mut text = b"{\"metadata\":{".to_vec();
        text.resize(text.len() + MAX_HELD, b' ');
        let mut scrub = JsonScrub::new();
        let mut out = Vec::new();
        let stopped = scrub
            .feed(
                &text,
                &mut VecSink {
                    input: &text,
                    out: &mut out,
                },
            )
            .unwrap_err();
        assert_eq!(stopped.fault, JsonFault::TooLong);
        assert_eq!(
            out.len() + stopped.held.len() + (text.len() - stopped.at),
            text.len()
        );
    }

    #[test]
    fn keys_are_compared_after_their_escapes() {
        for key in [
            U.replace('/', "\\/"),
            U.replacen('h', "\\u0068", 1),
            U.replace('t', "\\u0074").replace('.', "\\u002e"),
            U.replace('1', "\\u0031"),
        ] {
            let text = format!(r#"{{"metadata":{{"{key}":{{"teach":1}},"k":"v"}}}}"#);
            assert_eq!(
                scrubbed(&text).as_deref(),
                Some(r#"{"metadata":{"k":"v"}}"#),
                "{text}"
            );
        }
    }

    #[test]
    fn everything_else_stays_byte_for_byte() {
        for text in [
            r#"{"n": 123456789012345678901234567890, "z": -0.5e-7, "a": 1e400}"#.to_owned(),
            " [ 1 ,\t2 ,\r\n {\"z\":1,\"a\":\"\\u00e9\\\"\"} ] \n".to_owned(),
            format!(
                r#"{{"text":"{U}","uri":"{U}","capabilities":{{"extensions":[{{"uri":"{U}"}}]}}}}"#
            ),
            format!(r#"{{"https://rsaxb.com/a2a/learnables/v2":1,"{U}x":2,"h":3,"e":4}}"#),
            "{\"extensions\":[\"https://rsaxb.com/a2a/learnables/v\",null]}\n{}\n[]".to_owned(),
            "\"solo\"  17  true false null".to_owned(),
        ] {
            assert_eq!(scrubbed(&text).as_deref(), Some(&text[..]), "{text}");
        }
    }

    #[test]
    fn what_is_not_json_stops_it() {
        for text in [
            "{\"a\":1,}",
            "{\"a\" 1}",
            "[1,]",
            "{'a':1}",
            "{\"a\":tru}",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":\"\\x\"}",
            "{\"a\":1",
            "]",
            "{\"a\":1}}",
            "NaN",
        ] {
            assert_eq!(scrubbed(text), None, "{text}");
        }
        let deep = "[".repeat(MAX_DEPTH + 1);
        let mut scrub = JsonScrub::new();
        let mut out = Vec::new();
        let stopped = scrub
            .feed(
                deep.as_bytes(),
                &mut VecSink {
                    input: deep.as_bytes(),
                    out: &mut out,
                },
            )
            .unwrap_err();
        assert_eq!(stopped.fault, JsonFault::TooDeep);
        assert_eq!(stopped.at, MAX_DEPTH);
        assert_eq!(out.len(), MAX_DEPTH);
    }

    #[test]
    fn what_is_held_back_is_bounded() {
        let mut text = b"{\"a\":1,".to_vec();
        text.resize(text.len() + MAX_HELD + 1, b' ');
        let mut scrub = JsonScrub::new();
        let mut out = Vec::new();
        let stopped = scrub
            .feed(
                &text,
                &mut VecSink {
                    input: &text,
                    out: &mut out,
                },
            )
            .unwrap_err();
        assert_eq!(stopped.fault, JsonFault::TooLong);
        assert_eq!(out, b"{\"a\":1");
        assert_eq!(stopped.held.len(), MAX_HELD);
        // A long key is held only until it cannot be the URI.
        let key = format!("{{\"{}\":1}}", "h".repeat(10_000));
        let mut scrub = JsonScrub::new();
        let mut out = Vec::new();
        scrub
            .feed(
                &key.as_bytes()[..5_000],
                &mut VecSink {
                    input: key.as_bytes(),
                    out: &mut out,
                },
            )
            .unwrap();
        assert!(scrub.held_len() <= 3, "{}", scrub.held_len());
    }
}
