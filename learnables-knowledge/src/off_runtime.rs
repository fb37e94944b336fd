//! Blocking back-end work called from async code.
//!
//! A back end may block on a runtime of its own (the PostgreSQL client
//! does), which panics on a thread already driving a tokio runtime. Work
//! called from such a thread runs on a short-lived thread of its own, and
//! the caller waits for it; elsewhere it runs in place.

/// Runs `work`, on a thread of its own when called from inside a tokio
/// runtime; a panic in `work` is the caller's panic.
pub(crate) fn off_runtime<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    #[cfg(feature = "tokio")]
    if tokio::runtime::Handle::try_current().is_ok() {
        return std::thread::scope(|scope| match scope.spawn(work).join() {
            Ok(value) => value,
            Err(panic) => std::panic::resume_unwind(panic),
        });
    }
    work()
}
