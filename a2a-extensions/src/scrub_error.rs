//! Why a body is not sent to a client that did not activate the extension,
//! and the longest event of a stream the scrubber reads whole.

use std::fmt;

/// The longest event of an event stream the scrubber reads whole; a longer
/// one ends the stream with an error.
///
/// ```
/// use a2a_extensions::{MAX_EVENT, ResponseScrubber};
/// let uri = "https://example.com/a2a/ext/v1";
/// let mut events = ResponseScrubber::new(uri, Some("text/event-stream"), None)?;
/// let mut out = Vec::new();
/// assert!(events.feed(&vec![b'x'; MAX_EVENT + 1], &mut out).is_err());
/// # Ok::<(), a2a_extensions::ScrubError>(())
/// ```
pub const MAX_EVENT: usize = 4 << 20;

/// Why a body is not sent to a client that did not activate: an encoded
/// body (not decoded), or the URI where it cannot be removed. Its
/// `Display` is a sentence for a log line.
///
/// ```
/// use a2a_extensions::ResponseScrubber;
/// let error = ResponseScrubber::new("https://example.com/a2a/ext/v1", None, Some("compress"))
///     .err()
///     .unwrap();
/// assert!(error.to_string().contains("compress"));
/// ```
#[derive(Debug)]
pub struct ScrubError {
    reason: Reason,
}

#[derive(Debug)]
enum Reason {
    Encoded(String),
    Unremovable,
    EventTooLarge,
}

impl fmt::Display for ScrubError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            Reason::Encoded(codings) => write!(
                f,
                "the body is encoded (`{}`) though none was asked for; an encoded body is not decoded to remove the extension's metadata",
                crate::text::shown(codings)
            ),
            Reason::Unremovable => f.write_str(
                "the body names the extension's URI where it cannot be removed (not in JSON the scrubber reads)",
            ),
            Reason::EventTooLarge => write!(
                f,
                "an event of the stream is larger than {MAX_EVENT} bytes and names the extension's URI or is unfinished"
            ),
        }
    }
}

impl std::error::Error for ScrubError {}

impl ScrubError {
    pub(crate) fn encoded(codings: &str) -> ScrubError {
        ScrubError {
            reason: Reason::Encoded(codings.to_owned()),
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
}
