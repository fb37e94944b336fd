//! Tests of learnables, and what they share.

pub mod load;
pub mod loopback;
pub mod routing_entries;
pub mod skip;
pub mod support;
