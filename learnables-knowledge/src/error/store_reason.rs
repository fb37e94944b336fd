//! Why a back end failed: the words a person reads, and the error that
//! caused it (an I/O or a database error), kept as the failure's source.

use std::error::Error;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// The reason a [`StoreError`](super::StoreError) gives: its text, which the
/// error's message shows, and the error that caused it, if there was one,
/// which the `StoreError`'s [`source`](Error::source) returns, so that a
/// caller can tell, for example, an [`std::io::ErrorKind`].
///
/// It reads as its text (`Deref<Target = str>`, `Display`); two reasons are
/// equal when their texts are. A back end makes one from its words
/// (`"disk full".into()`, or a `String`), or with the error that caused it:
///
/// ```
/// use std::error::Error as _;
/// use std::io;
/// use learnables_knowledge::{StoreError, StoreReason};
///
/// let cause = io::Error::new(io::ErrorKind::StorageFull, "no space left on device");
/// let error = StoreError::Failed(StoreReason::with_source("the log could not be written", cause));
/// assert_eq!(error.to_string(), "the knowledge store failed: the log could not be written");
/// let io = error.source().and_then(|source| source.downcast_ref::<io::Error>()).unwrap();
/// assert_eq!(io.kind(), io::ErrorKind::StorageFull);
///
/// let plain = StoreError::Failed("disk full".into());
/// assert!(plain.source().is_none());
/// ```
#[derive(Clone)]
pub struct StoreReason {
    text: String,
    source: Option<Arc<dyn Error + Send + Sync + 'static>>,
}

impl StoreReason {
    /// A reason of `text` alone.
    ///
    /// ```
    /// let reason = learnables_knowledge::StoreReason::new("disk full");
    /// assert_eq!(&*reason, "disk full");
    /// assert!(reason.cause().is_none());
    /// ```
    pub fn new(text: impl Into<String>) -> StoreReason {
        StoreReason {
            text: text.into(),
            source: None,
        }
    }

    /// A reason of `text`, caused by `source`.
    ///
    /// ```
    /// use std::io;
    /// let cause = io::Error::from(io::ErrorKind::PermissionDenied);
    /// let reason = learnables_knowledge::StoreReason::with_source("knowledge.log: denied", cause);
    /// assert_eq!(reason.to_string(), "knowledge.log: denied");
    /// assert!(reason.cause().unwrap().is::<io::Error>());
    /// ```
    pub fn with_source(
        text: impl Into<String>,
        source: impl Error + Send + Sync + 'static,
    ) -> StoreReason {
        StoreReason {
            text: text.into(),
            source: Some(Arc::new(source)),
        }
    }

    /// The error that caused it, if any.
    ///
    /// ```
    /// let reason = learnables_knowledge::StoreReason::from("disk full");
    /// assert!(reason.cause().is_none());
    /// ```
    pub fn cause(&self) -> Option<&(dyn Error + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn Error + 'static))
    }
}

impl Deref for StoreReason {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for StoreReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Debug for StoreReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            None => fmt::Debug::fmt(&self.text, f),
            Some(source) => f
                .debug_struct("StoreReason")
                .field("text", &self.text)
                .field("source", source)
                .finish(),
        }
    }
}

impl PartialEq for StoreReason {
    fn eq(&self, other: &StoreReason) -> bool {
        self.text == other.text
    }
}

impl Eq for StoreReason {}

impl From<String> for StoreReason {
    fn from(text: String) -> StoreReason {
        StoreReason::new(text)
    }
}

impl From<&str> for StoreReason {
    fn from(text: &str) -> StoreReason {
        StoreReason::new(text)
    }
}

#[cfg(all(test, feature = "embedded"))]
mod tests {
    use std::error::Error as _;
    use std::io;

    use crate::Knowledge;
    use crate::{KnowledgeError, StoreError};

    /// The kind of the I/O error that is `error`'s source.
    fn io_kind(error: &dyn std::error::Error) -> Option<io::ErrorKind> {
        Some(error.source()?.downcast_ref::<io::Error>()?.kind())
    }

    #[test]
    fn an_io_failure_at_opening_is_the_source_of_the_error_with_its_kind() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a file");
        std::fs::write(&file, b"not a directory").unwrap();
        let refused = Knowledge::open(file.join("knowledge")).unwrap_err();
        let KnowledgeError::Store(store @ StoreError::Open { reason, .. }) = &refused else {
            panic!("expected an open error, got {refused:?}");
        };
        // The message is as before; the I/O error is kept beside it.
        assert!(reason.contains("Not a directory"), "{reason}");
        assert_eq!(io_kind(store), Some(io::ErrorKind::NotADirectory));
        // KnowledgeError::Store is transparent: the same source.
        assert_eq!(io_kind(&refused), Some(io::ErrorKind::NotADirectory));
        assert!(reason.cause().unwrap().is::<io::Error>());
    }

    #[test]
    fn reasons_compare_by_their_text_and_debug_as_before() {
        let plain = StoreError::Failed("disk full".into());
        let caused = StoreError::Failed(super::StoreReason::with_source(
            "disk full",
            io::Error::from(io::ErrorKind::StorageFull),
        ));
        assert_eq!(plain, caused);
        assert_eq!(format!("{plain:?}"), r#"Failed("disk full")"#);
        assert!(plain.source().is_none());
        assert_eq!(io_kind(&caused), Some(io::ErrorKind::StorageFull));
    }
}
