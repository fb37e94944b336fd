//! Load for the HTTP benchmarks: a number of requests spread over
//! concurrent clients, timed from the first sent to the last answered.

use std::future::Future;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;

/// Runs `iters` requests on `runtime`, spread over `clients` concurrent
/// tasks: `client(count)` makes the future of one client sending `count`
/// requests (the counts add up to `iters`). Returns the time from the first
/// request sent to the last answered.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let runtime = tokio::runtime::Runtime::new().unwrap();
/// let sent = Arc::new(AtomicU64::new(0));
/// learnables_tests::load::spread(&runtime, 4, 10, |count| {
///     let sent = sent.clone();
///     async move {
///         sent.fetch_add(count, Ordering::Relaxed);
///     }
/// });
/// assert_eq!(sent.load(Ordering::Relaxed), 10);
/// ```
pub fn spread<F, C>(runtime: &Runtime, clients: u64, iters: u64, client: C) -> Duration
where
    C: Fn(u64) -> F,
    F: Future<Output = ()> + Send + 'static,
{
    runtime.block_on(async {
        let start = Instant::now();
        let tasks: Vec<_> = (0..clients)
            .map(|task| tokio::spawn(client(iters / clients + u64::from(task < iters % clients))))
            .collect();
        for task in tasks {
            task.await.expect("a client task");
        }
        start.elapsed()
    })
}
