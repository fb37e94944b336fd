//! The versioned knowledge on memory and the embedded store: the back-end suite, async callers, failing back ends, crashes, faults, durability, refusals that leave no trace, redeploys.

mod durability;
mod import_checks;
mod import_reviews;
mod knowledge_async;
mod knowledge_crash;
mod knowledge_embedded;
mod knowledge_export;
mod knowledge_failed_writes;
mod knowledge_footprint;
mod knowledge_history;
mod knowledge_idle;
mod knowledge_in_memory;
mod knowledge_shared_store;
mod look_alike_reviewers;
mod redeploys;
mod refusals_leave_no_trace;
mod review_crash;
mod store_faults;
