//! Compile-fail (trybuild) tests of `#[derive(Learnable)]` and `#[derive(Choice)]`: see `tests/ui.rs`.
