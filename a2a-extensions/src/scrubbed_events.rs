//! A streamed (`text/event-stream`) response for a client that did not
//! activate the extension: passed on event by event as it arrives (lines
//! ended by LF, CR or CRLF, as the SSE format allows), each event that does
//! not name the URI unchanged, byte for byte; one that does with its data
//! scrubbed as JSON and its other lines naming the URI dropped.

use std::collections::VecDeque;
use std::sync::Arc;

use bytes::Bytes;

use super::json_scrub::scrub_whole;
use super::scrub_error::{MAX_EVENT, ScrubError};
use super::uri_scan::{Uri, UriScan};

/// One line of the event being read: where it starts, where its text
/// ends and where its line ending does.
#[derive(Clone, Copy, Debug)]
struct Line {
    start: usize,
    text_end: usize,
    end: usize,
}

/// The event stream's state between chunks.
pub(crate) struct EventScrub {
    uri: Arc<Uri>,
    /// The event read so far, as it came.
    event: Vec<u8>,
    lines: Vec<Line>,
    /// Where the line being read starts in `event`.
    line_start: usize,
    /// The last byte read was a CR: a LF right after it ends no new line.
    after_cr: bool,
}

impl EventScrub {
    pub(crate) fn new(uri: &Arc<Uri>) -> EventScrub {
        EventScrub {
            uri: uri.clone(),
            event: Vec::new(),
            lines: Vec::new(),
            line_start: 0,
            after_cr: false,
        }
    }

    pub(crate) fn feed(
        &mut self,
        chunk: &Bytes,
        frames: &mut VecDeque<Bytes>,
    ) -> Result<(), ScrubError> {
        let mut at = 0;
        if std::mem::take(&mut self.after_cr) && chunk.first() == Some(&b'\n') {
            // The LF of a CRLF split between two chunks.
            at = 1;
            match self.lines.last_mut() {
                Some(line) if line.end == self.event.len() => {
                    line.end += 1;
                    self.event.push(b'\n');
                    self.line_start += 1;
                }
                _ => frames.push_back(chunk.slice(..1)),
            }
        }
        while at < chunk.len() {
            let Some(found) = memchr::memchr2(b'\r', b'\n', &chunk[at..]) else {
                self.event.extend_from_slice(&chunk[at..]);
                break;
            };
            let end = at + found;
            self.event.extend_from_slice(&chunk[at..end]);
            let text_end = self.event.len();
            self.event.push(chunk[end]);
            at = end + 1;
            if chunk[end] == b'\r' {
                if chunk.get(at) == Some(&b'\n') {
                    self.event.push(b'\n');
                    at += 1;
                } else if at == chunk.len() {
                    self.after_cr = true;
                }
            }
            if text_end == self.line_start {
                // A blank line: the event is complete.
                self.dispatch(frames)?;
            } else {
                self.lines.push(Line {
                    start: self.line_start,
                    text_end,
                    end: self.event.len(),
                });
                self.line_start = self.event.len();
            }
            if self.event.len() > MAX_EVENT {
                return Err(ScrubError::event_too_large());
            }
        }
        if self.event.len() > MAX_EVENT {
            return Err(ScrubError::event_too_large());
        }
        Ok(())
    }

    pub(crate) fn finish(&mut self, frames: &mut VecDeque<Bytes>) -> Result<(), ScrubError> {
        if self.line_start < self.event.len() {
            self.lines.push(Line {
                start: self.line_start,
                text_end: self.event.len(),
                end: self.event.len(),
            });
            self.line_start = self.event.len();
        }
        if self.event.is_empty() {
            return Ok(());
        }
        self.dispatch(frames)
    }

    /// Sends the event read (its lines, then what follows the last one:
    /// the blank line that ended it).
    fn dispatch(&mut self, frames: &mut VecDeque<Bytes>) -> Result<(), ScrubError> {
        let event = std::mem::take(&mut self.event);
        let lines = std::mem::take(&mut self.lines);
        self.line_start = 0;
        if !UriScan::mentions(&self.uri, &event) {
            frames.push_back(Bytes::from(event));
            return Ok(());
        }
        let data_of = |line: &Line| data_value(&event[line.start..line.text_end]);
        let data: Vec<&[u8]> = lines.iter().filter_map(data_of).collect();
        let joined = data.join(&b'\n');
        let scrubbed = if UriScan::mentions(&self.uri, &joined) {
            let scrubbed = scrub_whole(&self.uri, &joined).ok_or_else(ScrubError::unremovable)?;
            (scrubbed != joined).then_some(scrubbed)
        } else {
            None
        };
        let mut out = Vec::with_capacity(event.len());
        let mut data_written = false;
        for line in &lines {
            let raw = &event[line.start..line.end];
            if data_of(line).is_some() {
                match &scrubbed {
                    None => out.extend_from_slice(raw),
                    Some(_) if data_written => {}
                    Some(scrubbed) => {
                        // Each line ended as the first data line was.
                        let ending = match &event[line.text_end..line.end] {
                            [] => &b"\n"[..],
                            ending => ending,
                        };
                        let mut parts = scrubbed.split(|&byte| byte == b'\n').peekable();
                        while let Some(part) = parts.next() {
                            out.extend_from_slice(b"data: ");
                            out.extend_from_slice(part);
                            if parts.peek().is_some() || line.end > line.text_end {
                                out.extend_from_slice(ending);
                            }
                        }
                        data_written = true;
                    }
                }
            } else if !UriScan::mentions(&self.uri, raw) {
                out.extend_from_slice(raw);
            }
        }
        let tail = lines.last().map_or(0, |line| line.end);
        out.extend_from_slice(&event[tail..]);
        frames.push_back(Bytes::from(out));
        Ok(())
    }
}

/// The value of a `data` line (after `data:` and one space), or `None`
/// for any other line.
fn data_value(line: &[u8]) -> Option<&[u8]> {
    let rest = line.strip_prefix(b"data")?;
    match rest.split_first() {
        None => Some(rest),
        Some((b':', value)) => Some(value.strip_prefix(b" ").unwrap_or(value)),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TEST_URI;

    fn scrub(chunks: &[&[u8]]) -> Result<Vec<u8>, ScrubError> {
        let mut events = EventScrub::new(&Uri::new(TEST_URI));
        let mut frames = VecDeque::new();
        for chunk in chunks {
            events.feed(&Bytes::copy_from_slice(chunk), &mut frames)?;
        }
        events.finish(&mut frames)?;
        Ok(frames
            .iter()
            .flat_map(|frame| frame.iter().copied())
            .collect())
    }

    #[test]
    fn events_without_the_uri_pass_byte_for_byte_whatever_their_line_endings() {
        let stream = b"id: 1\r\ndata:{\"a\":1}\r\n\r\n: comment\rdata: 2\r\rdata: 3\n\n";
        for split in 0..=stream.len() {
            let (a, b) = stream.split_at(split);
            assert_eq!(scrub(&[a, b]).unwrap(), stream, "split at {split}");
        }
    }

    #[test]
    fn a_block_is_removed_from_events_ended_by_cr_alone() {
        let block = format!(r#"{{"metadata":{{"{TEST_URI}":{{"teach":{{}}}},"k":1}}}}"#);
        let stream = format!("id: 7\rdata: {block}\r\rdata: {{}}\r\r");
        for split in 0..=stream.len() {
            let (a, b) = stream.as_bytes().split_at(split);
            let out = String::from_utf8(scrub(&[a, b]).unwrap()).unwrap();
            assert!(!out.contains(TEST_URI), "split at {split}: {out}");
            assert!(out.starts_with("id: 7\r"), "{out}");
            assert!(out.contains(r#"{"metadata":{"k":1}}"#), "{out}");
            assert!(out.ends_with("\r\rdata: {}\r\r"), "{out}");
        }
    }

    #[test]
    fn other_lines_naming_the_uri_are_dropped_and_unreadable_data_refused() {
        let comment = format!(": {{\"{TEST_URI}\":1}}\ndata: 1\n\n");
        assert_eq!(scrub(&[comment.as_bytes()]).unwrap(), b"data: 1\n\n");
        let text = format!("data: not json {TEST_URI}\n\n");
        assert!(scrub(&[text.as_bytes()]).is_err());
    }

    #[test]
    fn an_event_too_large_is_refused() {
        let big = vec![b'x'; MAX_EVENT + 1];
        assert!(scrub(&[b"data: ", &big]).is_err());
    }
}
