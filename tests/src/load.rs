//! Load for the HTTP benchmarks: a number of requests spread over
//! concurrent clients, timed from the first sent to the last answered, and
//! the client that sends them.

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

/// An HTTP client for load on 127.0.0.1: no proxy, and up to `kept_alive`
/// connections kept open between requests (0: a new connection a request).
///
/// ```
/// let client = learnables_tests::load::client(16);
/// assert!(client.get("http://127.0.0.1:1/").build().is_ok());
/// ```
pub fn client(kept_alive: usize) -> reqwest::Client {
    learnables_examples::install_crypto_provider();
    reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(kept_alive)
        .build()
        .expect("an HTTP client")
}
