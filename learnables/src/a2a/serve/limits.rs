//! How long a connection may take for each part of a request, and how many
//! connections are served at once.

use std::time::Duration;

/// The timeouts and the connection cap [`serve`](super::serve) enforces.
///
/// The defaults are safe for an agent on the open network:
///
/// | limit | default | why |
/// | --- | --- | --- |
/// | [`header_read_timeout`](Self::header_read_timeout) | 10 s | a request head is a few kilobytes that every real client writes at once, right after it connects |
/// | [`body_read_timeout`](Self::body_read_timeout) | 30 s | axum reads at most 2 MB of body by default: 30 s allows a client as slow as 70 KB/s; a lesson is a few kilobytes |
/// | [`write_timeout`](Self::write_timeout) | 30 s | as long to take a response as to send a request: 30 s of waiting lets a client as slow as 70 KB/s take 2 MB past what the kernel buffers; a learnables answer is a few kilobytes |
/// | [`idle_timeout`](Self::idle_timeout) | 60 s | long enough for a client to reuse its connection for the next question, short enough that idle sockets do not pile up |
/// | [`max_connections`](Self::max_connections) | 512 | half of Linux's default limit of 1024 open files, which leaves the rest for the knowledge store, PostgreSQL and logs |
/// | [`shutdown_timeout`](Self::shutdown_timeout) | 8 s | requests in flight finish, and the process still closes its store before `docker stop` and systemd's default give up on it (10 s, 90 s) |
///
/// ```
/// use std::time::Duration;
/// use learnables::a2a::serve::ServerLimits;
///
/// let limits = ServerLimits::default()
///     .with_header_read_timeout(Duration::from_secs(5))
///     .with_max_connections(256);
/// assert_eq!(limits.header_read_timeout(), Duration::from_secs(5));
/// assert_eq!(limits.body_read_timeout(), Duration::from_secs(30));
/// assert_eq!(limits.max_connections(), 256);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    header_read_timeout: Duration,
    body_read_timeout: Duration,
    write_timeout: Duration,
    idle_timeout: Duration,
    max_connections: usize,
    shutdown_timeout: Duration,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            max_connections: 512,
            shutdown_timeout: Duration::from_secs(8),
        }
    }
}

impl ServerLimits {
    /// The time a client has to send a request's whole head (request line
    /// and headers), counted from the connection's accept for its first
    /// request and from the first byte for the next ones. A connection that
    /// overruns it is closed.
    ///
    /// ```
    /// # use learnables::a2a::serve::ServerLimits;
    /// assert_eq!(ServerLimits::default().header_read_timeout().as_secs(), 10);
    /// ```
    pub fn header_read_timeout(&self) -> Duration {
        self.header_read_timeout
    }

    /// The time a client has to send a request's whole body, counted from
    /// the end of its head. A handler that reads the body past it gets an
    /// error, and the client gets `408 Request Timeout` and the connection
    /// is closed; a connection whose body has not arrived (or been read by
    /// its handler) a second past it is closed, answered or not.
    ///
    /// ```
    /// # use learnables::a2a::serve::ServerLimits;
    /// assert_eq!(ServerLimits::default().body_read_timeout().as_secs(), 30);
    /// ```
    pub fn body_read_timeout(&self) -> Duration {
        self.body_read_timeout
    }

    /// The time a response may wait on its client to take its bytes, summed
    /// over the response: the time the connection's socket refuses more
    /// bytes (its buffers full because the client does not read), not the
    /// time the handler takes to produce them. A connection that overruns
    /// it is closed, the rest of the response unsent.
    ///
    /// ```
    /// # use learnables::a2a::serve::ServerLimits;
    /// assert_eq!(ServerLimits::default().write_timeout().as_secs(), 30);
    /// ```
    pub fn write_timeout(&self) -> Duration {
        self.write_timeout
    }

    /// The time a kept-alive connection may stay open without a request:
    /// from the end of a response to the first byte of the next request.
    ///
    /// ```
    /// # use learnables::a2a::serve::ServerLimits;
    /// assert_eq!(ServerLimits::default().idle_timeout().as_secs(), 60);
    /// ```
    pub fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }

    /// The most connections served at once. When a new connection arrives
    /// at the cap, a connection waiting on its client is closed to make
    /// room: the longest idle, else the one waiting longest in the middle
    /// of a request (for its head, for its body, or for its client to take
    /// its response). Only when every connection's handler is at work does
    /// the new one wait, in the listen backlog, for one to finish.
    ///
    /// ```
    /// # use learnables::a2a::serve::ServerLimits;
    /// assert_eq!(ServerLimits::default().max_connections(), 512);
    /// ```
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// Sets [`header_read_timeout`](Self::header_read_timeout).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use learnables::a2a::serve::ServerLimits;
    /// let limits = ServerLimits::default().with_header_read_timeout(Duration::from_secs(2));
    /// assert_eq!(limits.header_read_timeout(), Duration::from_secs(2));
    /// ```
    pub fn with_header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// Sets [`body_read_timeout`](Self::body_read_timeout).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use learnables::a2a::serve::ServerLimits;
    /// let limits = ServerLimits::default().with_body_read_timeout(Duration::from_secs(5));
    /// assert_eq!(limits.body_read_timeout(), Duration::from_secs(5));
    /// ```
    pub fn with_body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// Sets [`write_timeout`](Self::write_timeout).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use learnables::a2a::serve::ServerLimits;
    /// let limits = ServerLimits::default().with_write_timeout(Duration::from_secs(10));
    /// assert_eq!(limits.write_timeout(), Duration::from_secs(10));
    /// ```
    pub fn with_write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// Sets [`idle_timeout`](Self::idle_timeout).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use learnables::a2a::serve::ServerLimits;
    /// let limits = ServerLimits::default().with_idle_timeout(Duration::from_secs(15));
    /// assert_eq!(limits.idle_timeout(), Duration::from_secs(15));
    /// ```
    pub fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Sets [`max_connections`](Self::max_connections); 0 counts as 1.
    ///
    /// ```
    /// # use learnables::a2a::serve::ServerLimits;
    /// assert_eq!(ServerLimits::default().with_max_connections(64).max_connections(), 64);
    /// assert_eq!(ServerLimits::default().with_max_connections(0).max_connections(), 1);
    /// ```
    pub fn with_max_connections(mut self, max: usize) -> Self {
        self.max_connections = max.max(1);
        self
    }

    /// How long, once a shutdown begins, the requests in flight have to
    /// finish: the server stops accepting at once, lets each connection
    /// finish the request it is serving, and after this closes those that
    /// have not.
    ///
    /// ```
    /// # use learnables::a2a::serve::ServerLimits;
    /// assert_eq!(ServerLimits::default().shutdown_timeout().as_secs(), 8);
    /// ```
    pub fn shutdown_timeout(&self) -> Duration {
        self.shutdown_timeout
    }

    /// Sets [`shutdown_timeout`](Self::shutdown_timeout).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use learnables::a2a::serve::ServerLimits;
    /// let limits = ServerLimits::default().with_shutdown_timeout(Duration::from_secs(25));
    /// assert_eq!(limits.shutdown_timeout(), Duration::from_secs(25));
    /// ```
    pub fn with_shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }
}
