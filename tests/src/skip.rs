//! What a test does when it cannot run its real subject: it fails, unless
//! the run explicitly allows that kind of test to be skipped.
//!
//! A test that cannot reach what it tests (a mount, `chattr`, PostgreSQL)
//! calls [`cannot_run`]. Without an opt-out that is a failure, so a run on a
//! machine that lacks what the tests need cannot pass unnoticed. The
//! opt-out is the environment variable `LEARNABLES_ALLOW_SKIP`: a
//! comma-separated list of the kinds of test that may be skipped here
//! (`fault-tests`, `strace`, `postgres`, `postgres-restart`, `sdk-interop`,
//! `tck`, `browser`, `mcp`, `oidc`), or `all`. An allowed
//! skip still says `SKIPPED:` on the standard error, past the test
//! harness's capture.

/// The environment variable that lists the kinds of test allowed to skip.
pub const ALLOW_SKIP: &str = "LEARNABLES_ALLOW_SKIP";

/// Whether `LEARNABLES_ALLOW_SKIP` allows tests of `kind` to be skipped.
///
/// ```
/// // Not set in the doctests' environment (or set to other kinds).
/// let _allowed: bool = learnables_tests::skip::allowed("no-such-kind");
/// ```
pub fn allowed(kind: &str) -> bool {
    std::env::var(ALLOW_SKIP).is_ok_and(|list| allows(&list, kind))
}

/// Whether the opt-out `list` allows tests of `kind` to be skipped.
///
/// ```
/// use learnables_tests::skip::allows;
/// assert!(allows("postgres, fault-tests", "fault-tests"));
/// assert!(allows("all", "postgres"));
/// assert!(!allows("postgres", "fault-tests"));
/// assert!(!allows("", "postgres"));
/// ```
pub fn allows(list: &str, kind: &str) -> bool {
    list.split(',')
        .map(str::trim)
        .any(|allowed| allowed == kind || allowed == "all")
}

/// Reports that `test`, of `kind`, cannot run its real subject, and `why`:
/// a panic (the test fails) unless `LEARNABLES_ALLOW_SKIP` allows `kind`,
/// in which case a loud `SKIPPED:` line on the standard error, and the
/// caller returns without testing.
///
/// ```no_run
/// // In a test that needs a tmpfs mount it could not make:
/// learnables_tests::skip::cannot_run("full disk", "fault-tests", "cannot mount a tmpfs");
/// return; // reached only where the skip is allowed
/// ```
pub fn cannot_run(test: &str, kind: &str, why: &str) {
    use std::io::Write as _;
    if allowed(kind) {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {test}: {why} ({ALLOW_SKIP} allows {kind} tests to skip)"
        );
    } else {
        panic!(
            "{test} cannot run: {why}. This is a failure, not a skip: provide what the test \
             needs (`.ci/run` does), or set {ALLOW_SKIP}={kind} to allow it to be skipped"
        );
    }
}
