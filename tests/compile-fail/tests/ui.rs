//! Compile-fail tests: every error `#[derive(Learnable)]` and
//! `#[derive(Choice)]` report, the teach-block suggestions the type system
//! refuses, each case under `ui/` with the compiler's
//! expected output beside it in a `.stderr` file, plus cases that must compile
//! and run.
//!
//! Compiler messages change between releases, so the test runs on the
//! toolchain CI uses (stable 1.95) only. After changing a derive's messages,
//! regenerate the `.stderr` files and review the diff:
//!
//! ```text
//! TRYBUILD=overwrite cargo test -p learnables-compile-fail
//! ```

#[test]
#[rustversion::attr(
    not(stable(1.95)),
    ignore = "compiler messages are checked on stable 1.95 only"
)]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/learnable/*.rs");
    t.compile_fail("ui/choice/*.rs");
    t.compile_fail("ui/teach_block/*.rs");
    t.pass("ui/pass/*.rs");
}
