//! What goes to a client that did not activate an extension loses every
//! member keyed by the extension's URI and the URI from every `extensions` array, as the body
//! flows, whatever its type. The rules are those of [`ResponseScrubber`].
//!
//! Encoded bodies are not decoded. The layer asks the host for none (it
//! sends the host `Accept-Encoding: identity` for such a client), so a host
//! that encodes anyway is answered `502 Bad Gateway`, and the layer encodes
//! the scrubbed body itself, with tower-http's compression, when the client
//! accepts it. Decoding would put a decoder between the host's bytes and
//! the scrubber, whose output for a few encoded bytes is unbounded (a
//! kilobyte of `br` stands for a gigabyte); asking for none leaves the
//! scrubber's memory bounded by its own buffers, and only what is sent to
//! the client is compressed, by the field's maintained encoder.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};

use super::json_scrub::{JsonFault, JsonScrub, Sink, Stopped};
use super::scrub_error::ScrubError;
use super::scrubbed_events::EventScrub;
use super::uri_scan::{Uri, UriScan};

/// A response extension by which a host says a response of its own
/// carries none of the extension's metadata, so that [`ExtensionLayer`]
/// passes it on as it is to a client that did not activate: for responses
/// that name the extension's URI without carrying its metadata (a page's
/// scripts, which send it to activate). It is an extension of the
/// response, set in the process: no client can send it.
///
/// ```
/// use axum::response::IntoResponse;
/// use a2a_extensions::NoExtensionMetadata;
/// let mut response = "const uri = 'https://example.com/a2a/ext/v1';".into_response();
/// response.extensions_mut().insert(NoExtensionMetadata);
/// ```
///
/// [`ExtensionLayer`]: crate::ExtensionLayer
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoExtensionMetadata;

/// A response body made fit for a client that did not activate an
/// extension, chunk by chunk: what [`ExtensionLayer`] does to
/// every response to such a client, for a host that sends bodies its own
/// way (a push notification, a relay).
///
/// - **Encodings**: an encoded body (any `Content-Encoding` but
///   `identity`) is refused by [`ResponseScrubber::new`]: it is not
///   decoded (see the crate's docs for why). The caller asks its source
///   for an unencoded body, and may encode what the scrubber gives back.
/// - **JSON** (`application/json`, any `+json`, NDJSON, JSON lines, JSON
///   text sequences: one value or many): streamed through byte for byte,
///   except that every member keyed by the URI (compared after its escapes
///   are decoded, in any object at any depth, every copy of a key given
///   twice) is deleted with the comma beside it, and the URI's string is
///   deleted from every `extensions` array; a `metadata` object or an
///   `extensions` array those deletions leave empty is deleted the same
///   way (one the body had empty stays). Numbers, key order and whitespace
///   are not touched.
/// - **Event streams** (`text/event-stream`, lines ended by LF, CR or
///   CRLF): each event is read whole (up to [`MAX_EVENT`](crate::MAX_EVENT) bytes) and passed
///   on unchanged unless it names the URI; then its data is scrubbed as
///   JSON, and its other lines naming the URI are dropped.
/// - **Fail closed**: anything else (another type, none, JSON that stops
///   parsing, nested deeper than 1,024 or with 1 MiB of whitespace after a
///   comma, from where it stops) is passed on unchanged only while it
///   cannot hold the URI in any spelling JSON allows (escapes, UTF-16):
///   where the URI appears, the body ends with an error before its first
///   byte.
///
/// Memory is bounded whatever the body's size.
///
/// ```
/// use a2a_extensions::ResponseScrubber;
/// const URI: &str = "https://example.com/a2a/ext/v1";
///
/// let body = format!(
///     r#"{{"id":1e400,"metadata":{{"x":1,"https:\/\/example.com\/a2a\/ext\/v1":{{"teach":{{}}}}}},"extensions":["{URI}"]}}"#
/// );
/// let scrubber = ResponseScrubber::new(URI, Some("application/json"), None)?;
/// let scrubbed = scrubber.scrub(body.as_bytes())?;
/// assert_eq!(scrubbed, br#"{"id":1e400,"metadata":{"x":1}}"#);
///
/// // Where the URI cannot be removed, the body is refused.
/// let text = ResponseScrubber::new(URI, Some("text/plain"), None)?;
/// assert!(text.scrub(URI.as_bytes()).is_err());
/// // An encoded body is refused before anything is read.
/// assert!(ResponseScrubber::new(URI, Some("application/json"), Some("gzip")).is_err());
/// # Ok::<(), a2a_extensions::ScrubError>(())
/// ```
///
/// [`ExtensionLayer`]: crate::ExtensionLayer
pub struct ResponseScrubber {
    uri: Arc<Uri>,
    mode: Mode,
    /// Bytes of the decoded body read so far.
    read: u64,
    /// Where the JSON stopped parsing, and why, not yet reported.
    fell_back: Option<(u64, JsonFault)>,
    /// Where what is kept of a chunk is copied: one allocation used again
    /// once the frames cut from it are sent (a fresh one a chunk cost a
    /// page fault every few kilobytes, `layer_scrub`'s profile).
    kept: BytesMut,
}

impl std::fmt::Debug for ResponseScrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseScrubber")
            .field("read", &self.read)
            .finish_non_exhaustive()
    }
}

enum Mode {
    Json(JsonScrub),
    Events(EventScrub),
    Scan(ScanPass),
}

/// How the body's type is read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Reading {
    Json,
    Events,
    Other,
}

fn reading(content_type: Option<&str>) -> Reading {
    let Some(content_type) = content_type else {
        return Reading::Other;
    };
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if essence == "text/event-stream" {
        Reading::Events
    } else if essence.contains("json") {
        Reading::Json
    } else {
        Reading::Other
    }
}

impl ResponseScrubber {
    /// The scrubber of the extension `uri` for a body of `content_type` encoded as
    /// `content_encoding` (the headers' values; several header lines
    /// joined with commas); an error for an encoded body (any coding but
    /// `identity`), which is not decoded.
    ///
    /// ```
    /// use a2a_extensions::ResponseScrubber;
    /// const URI: &str = "https://example.com/a2a/ext/v1";
    /// assert!(ResponseScrubber::new(URI, Some("application/json; charset=utf-8"), None).is_ok());
    /// assert!(ResponseScrubber::new(URI, None, Some("identity")).is_ok());
    /// assert!(ResponseScrubber::new(URI, None, Some("gzip")).is_err());
    /// assert!(ResponseScrubber::new(URI, None, Some("identity, br")).is_err());
    /// ```
    pub fn new(
        uri: &str,
        content_type: Option<&str>,
        content_encoding: Option<&str>,
    ) -> Result<ResponseScrubber, ScrubError> {
        ResponseScrubber::for_uri(&Uri::new(uri), content_type, content_encoding)
    }

    /// [`ResponseScrubber::new`] for a URI already prepared.
    pub(crate) fn for_uri(
        uri: &Arc<Uri>,
        content_type: Option<&str>,
        content_encoding: Option<&str>,
    ) -> Result<ResponseScrubber, ScrubError> {
        let codings = content_encoding.unwrap_or_default();
        let encoded = codings
            .split(',')
            .map(str::trim)
            .any(|coding| !coding.is_empty() && !coding.eq_ignore_ascii_case("identity"));
        if encoded {
            return Err(ScrubError::encoded(codings));
        }
        let mode = match reading(content_type) {
            Reading::Json => Mode::Json(JsonScrub::new(uri)),
            Reading::Events => Mode::Events(EventScrub::new(uri)),
            Reading::Other => Mode::Scan(ScanPass::new(uri)),
        };
        Ok(ResponseScrubber {
            uri: uri.clone(),
            mode,
            read: 0,
            fell_back: None,
            kept: BytesMut::new(),
        })
    }

    /// Scrubs the next chunk of the body into `out`.
    ///
    /// ```
    /// use a2a_extensions::ResponseScrubber;
    /// let uri = "https://example.com/a2a/ext/v1";
    /// let mut scrubber = ResponseScrubber::new(uri, Some("application/x-ndjson"), None)?;
    /// let mut out = Vec::new();
    /// for chunk in [&b"{\"https://example.com/a2"[..], b"a/ext/v1\":0,\"a\":[1]}\n{}\n"] {
    ///     scrubber.feed(chunk, &mut out)?;
    /// }
    /// scrubber.finish(&mut out)?;
    /// assert_eq!(out, b"{\"a\":[1]}\n{}\n");
    /// # Ok::<(), a2a_extensions::ScrubError>(())
    /// ```
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<u8>) -> Result<(), ScrubError> {
        let mut frames = VecDeque::new();
        let result = self.feed_bytes(Bytes::copy_from_slice(chunk), &mut frames);
        frames.iter().for_each(|frame| out.extend_from_slice(frame));
        result
    }

    /// The end of the body: what was held back, into `out`; an error when
    /// the body ended where the extension's metadata could be cut in two.
    ///
    /// ```
    /// use a2a_extensions::ResponseScrubber;
    /// let uri = "https://example.com/a2a/ext/v1";
    /// let mut scrubber = ResponseScrubber::new(uri, Some("application/json"), None)?;
    /// let mut out = Vec::new();
    /// scrubber.feed(br#"{"a": 1, "#, &mut out)?;
    /// scrubber.finish(&mut out)?;
    /// assert_eq!(out, br#"{"a": 1, "#);
    /// # Ok::<(), a2a_extensions::ScrubError>(())
    /// ```
    pub fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), ScrubError> {
        let mut frames = VecDeque::new();
        let result = self.finish_bytes(&mut frames);
        frames.iter().for_each(|frame| out.extend_from_slice(frame));
        result
    }

    /// A whole body, scrubbed.
    ///
    /// ```
    /// use a2a_extensions::ResponseScrubber;
    /// let uri = "https://example.com/a2a/ext/v1";
    /// let scrubber = ResponseScrubber::new(uri, Some("application/json"), None)?;
    /// let body = br#"{"n": 123456789012345678901234567890, "z": 0, "a": 1}"#;
    /// assert_eq!(scrubber.scrub(body)?, body);
    /// # Ok::<(), a2a_extensions::ScrubError>(())
    /// ```
    pub fn scrub(mut self, body: &[u8]) -> Result<Vec<u8>, ScrubError> {
        let mut out = Vec::with_capacity(body.len());
        self.feed(body, &mut out)?;
        self.finish(&mut out)?;
        Ok(out)
    }

    /// The URI scrubbed.
    pub(crate) fn uri(&self) -> &Arc<Uri> {
        &self.uri
    }

    /// Where the JSON stopped parsing and why, once: for the log.
    pub(crate) fn take_fallback(&mut self) -> Option<(u64, &'static str)> {
        self.fell_back
            .take()
            .map(|(offset, fault)| (offset, fault.describe()))
    }

    /// The end of the body (see [`ResponseScrubber::finish`]).
    pub(crate) fn finish_bytes(&mut self, frames: &mut VecDeque<Bytes>) -> Result<(), ScrubError> {
        match &mut self.mode {
            Mode::Json(json) => match json.finish() {
                Ok(()) => Ok(()),
                Err(stopped) => {
                    self.fall_back(stopped, Bytes::new(), frames)?;
                    self.finish_bytes(frames)
                }
            },
            Mode::Events(events) => events.finish(frames),
            Mode::Scan(scan) => {
                scan.finish(frames);
                Ok(())
            }
        }
    }

    /// Scrubs the next chunk into `frames`.
    pub(crate) fn feed_bytes(
        &mut self,
        decoded: Bytes,
        frames: &mut VecDeque<Bytes>,
    ) -> Result<(), ScrubError> {
        if decoded.is_empty() {
            return Ok(());
        }
        let offset = self.read;
        self.read += decoded.len() as u64;
        match &mut self.mode {
            Mode::Json(json) => {
                let mut out = Frames::new(&decoded, &mut self.kept);
                let fed = json.feed(&decoded, &mut out);
                out.into_frames(frames);
                match fed {
                    Ok(()) => Ok(()),
                    Err(stopped) => {
                        let at = stopped.at;
                        self.fell_back = Some((offset + at as u64, stopped.fault));
                        self.fall_back(stopped, decoded.slice(at..), frames)
                    }
                }
            }
            Mode::Events(events) => events.feed(&decoded, frames),
            Mode::Scan(scan) => scan.feed(&decoded, frames),
        }
    }

    /// JSON that stopped parsing: what was held back and the rest go on
    /// only while they cannot hold the URI.
    fn fall_back(
        &mut self,
        stopped: Stopped,
        rest: Bytes,
        frames: &mut VecDeque<Bytes>,
    ) -> Result<(), ScrubError> {
        if self.fell_back.is_none() {
            self.fell_back = Some((self.read, stopped.fault));
        }
        let mut scan = ScanPass::new(&self.uri);
        scan.feed(&Bytes::from(stopped.held), frames)?;
        scan.feed(&rest, frames)?;
        self.mode = Mode::Scan(scan);
        Ok(())
    }
}

/// A sink for one chunk: the chunk itself when it goes through whole (no
/// copy), else what is kept of it, copied into one frame.
pub(crate) struct Frames<'a> {
    chunk: &'a Bytes,
    whole: bool,
    out: &'a mut BytesMut,
}

impl<'a> Frames<'a> {
    pub(crate) fn new(chunk: &'a Bytes, out: &'a mut BytesMut) -> Frames<'a> {
        Frames {
            chunk,
            whole: false,
            out,
        }
    }

    pub(crate) fn into_frames(self, frames: &mut VecDeque<Bytes>) {
        if self.whole {
            frames.push_back(self.chunk.clone());
        } else if !self.out.is_empty() {
            frames.push_back(self.out.split().freeze());
        }
    }

    fn copy(&mut self) {
        if std::mem::take(&mut self.whole) {
            self.out.reserve(self.chunk.len());
            self.out.extend_from_slice(self.chunk);
        } else if self.out.is_empty() {
            self.out.reserve(self.chunk.len());
        }
    }
}

impl Sink for Frames<'_> {
    fn input(&mut self, range: Range<usize>) {
        if range == (0..self.chunk.len()) && self.out.is_empty() && !self.whole {
            self.whole = true;
            return;
        }
        self.copy();
        self.out.extend_from_slice(&self.chunk[range]);
    }

    fn held(&mut self, bytes: &[u8]) {
        self.copy();
        self.out.extend_from_slice(bytes);
    }
}

/// Bytes passed on while they cannot hold the URI, the last
/// [`Uri::longest_spelling`] held back until the next ones show they do not
/// begin it.
pub(crate) struct ScanPass {
    scan: UriScan,
    tail: Vec<u8>,
    longest: usize,
}

impl ScanPass {
    pub(crate) fn new(uri: &Arc<Uri>) -> ScanPass {
        ScanPass {
            scan: UriScan::new(uri),
            tail: Vec::new(),
            longest: uri.longest_spelling(),
        }
    }

    pub(crate) fn feed(
        &mut self,
        chunk: &Bytes,
        frames: &mut VecDeque<Bytes>,
    ) -> Result<(), ScrubError> {
        if self.scan.scan(chunk) {
            self.tail.clear();
            return Err(ScrubError::unremovable());
        }
        if chunk.len() >= self.longest {
            if !self.tail.is_empty() {
                frames.push_back(Bytes::from(std::mem::take(&mut self.tail)));
            }
            let cut = chunk.len() - self.longest;
            if cut > 0 {
                frames.push_back(chunk.slice(..cut));
            }
            self.tail.extend_from_slice(&chunk[cut..]);
        } else {
            self.tail.extend_from_slice(chunk);
            if self.tail.len() > self.longest {
                let cut = self.tail.len() - self.longest;
                let rest = self.tail.split_off(cut);
                frames.push_back(Bytes::from(std::mem::replace(&mut self.tail, rest)));
            }
        }
        Ok(())
    }

    pub(crate) fn finish(&mut self, frames: &mut VecDeque<Bytes>) {
        if !self.tail.is_empty() {
            frames.push_back(Bytes::from(std::mem::take(&mut self.tail)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TEST_URI;

    #[test]
    fn encoded_bodies_are_refused() {
        for coding in [
            "gzip",
            "x-gzip",
            "br",
            "zstd",
            "deflate",
            "compress",
            "gzip, gzip",
            "identity, br",
        ] {
            let error = ResponseScrubber::new(TEST_URI, Some("application/json"), Some(coding))
                .unwrap_err();
            assert!(error.to_string().contains(coding), "{error}");
        }
        for coding in ["", "identity", " IDENTITY , identity"] {
            assert!(
                ResponseScrubber::new(TEST_URI, None, Some(coding)).is_ok(),
                "{coding}"
            );
        }
    }

    #[test]
    fn json_that_stops_parsing_goes_on_only_without_the_uri() {
        let scrubber = || ResponseScrubber::new(TEST_URI, Some("application/json"), None).unwrap();
        assert_eq!(
            scrubber().scrub(b"{\"a\":1,} trailing").unwrap(),
            b"{\"a\":1,} trailing"
        );
        let leak = format!("{{\"a\":1,}} {{\"{}\":1}}", TEST_URI.replace('/', "\\/"));
        let mut scrubber = scrubber();
        let mut out = Vec::new();
        assert!(scrubber.feed(leak.as_bytes(), &mut out).is_err());
        assert!(
            !String::from_utf8_lossy(&out).contains("example.com"),
            "{out:?}"
        );
        assert!(scrubber.take_fallback().is_some());
    }
}
