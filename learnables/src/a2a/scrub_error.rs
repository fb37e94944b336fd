//! Why a body is not sent to a client that did not activate the extension,
//! and the longest event of a stream the scrubber reads whole.

use std::fmt;

/// The longest event of an event stream the scrubber reads whole; a longer
/// one ends the stream with an error.
///
/// ```
/// use learnables::a2a::{MAX_EVENT, ResponseScrubber};
/// let mut events = ResponseScrubber::new(Some("text/event-stream"), None)?;
/// let mut out = Vec::new();
/// assert!(events.feed(&vec![b'x'; MAX_EVENT + 1], &mut out).is_err());
/// # Ok::<(), learnables::a2a::ScrubError>(())
/// ```
pub const MAX_EVENT: usize = 4 << 20;

/// Why a body is not sent to a client that did not activate: an encoding
/// that cannot be decoded, or the URI where it cannot be removed. Its
/// `Display` is a sentence for a log line.
///
/// ```
/// use learnables::a2a::ResponseScrubber;
/// let error = ResponseScrubber::new(None, Some("compress")).err().unwrap();
/// assert!(error.to_string().contains("compress"));
/// ```
#[derive(Debug)]
pub struct ScrubError {
    reason: Reason,
}

#[derive(Debug)]
enum Reason {
    UnknownEncoding(String),
    Stacked(String),
    Undecodable(std::io::Error),
    Unremovable,
    EventTooLarge,
}

impl fmt::Display for ScrubError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            Reason::UnknownEncoding(coding) => write!(
                f,
                "the body's encoding `{}` cannot be decoded to remove teach blocks",
                crate::untrusted::Untrusted::new(coding).max_chars(64)
            ),
            Reason::Stacked(codings) => write!(
                f,
                "the body is encoded more than once (`{}`); only one encoding is decoded",
                crate::untrusted::Untrusted::new(codings).max_chars(64)
            ),
            Reason::Undecodable(error) => {
                write!(f, "the body's encoding does not decode: {error}")
            }
            Reason::Unremovable => f.write_str(
                "the body names the Learnables URI where it cannot be removed (not in JSON the scrubber reads)",
            ),
            Reason::EventTooLarge => write!(
                f,
                "an event of the stream is larger than {MAX_EVENT} bytes and names the Learnables URI or is unfinished"
            ),
        }
    }
}

impl std::error::Error for ScrubError {}

impl ScrubError {
    pub(crate) fn unknown_encoding(coding: &str) -> ScrubError {
        ScrubError {
            reason: Reason::UnknownEncoding(coding.to_owned()),
        }
    }

    pub(crate) fn stacked(codings: &str) -> ScrubError {
        ScrubError {
            reason: Reason::Stacked(codings.to_owned()),
        }
    }

    pub(crate) fn unremovable() -> ScrubError {
        ScrubError {
            reason: Reason::Unremovable,
        }
    }

    pub(crate) fn event_too_large() -> ScrubError {
        ScrubError {
            reason: Reason::EventTooLarge,
        }
    }

    pub(crate) fn undecodable(error: std::io::Error) -> ScrubError {
        ScrubError {
            reason: Reason::Undecodable(error),
        }
    }
}
