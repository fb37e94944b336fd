//! Tests of learnables.
