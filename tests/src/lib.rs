//! Tests of learnables, and what they share.

pub mod skip;
