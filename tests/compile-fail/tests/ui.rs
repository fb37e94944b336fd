//! Compile-fail tests: every error `#[derive(Learnable)]` and
//! `#[derive(Choice)]` report, the teach-block suggestions the type system
//! refuses, each case under `ui/` with the compiler's
//! expected output beside it in a `.stderr` file, plus cases that must compile
//! and run.
//!
//! The suite runs on every toolchain the workspace builds with (stable 1.95,
//! the minimum supported version, and later), never skipped. trybuild
//! normalises what legitimately differs between machines and runs (paths,
//! the crate's directory, `$RUST` sources, line numbers inside the standard
//! library); the messages themselves are compared exactly, so a compiler
//! whose wording differs makes this test fail loudly rather than pass
//! unchecked. After such a change, or after changing a derive's messages,
//! regenerate the `.stderr` files and review the diff:
//!
//! ```text
//! TRYBUILD=overwrite cargo test -p learnables-compile-fail
//! ```

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/learnable/*.rs");
    t.compile_fail("ui/choice/*.rs");
    t.compile_fail("ui/teach_block/*.rs");
    t.pass("ui/pass/*.rs");
}
