//! Listening for other replicas' versions: a connection and thread of
//! their own that wake the knowledge on every notification.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use postgres::Client;
use postgres::fallible_iterator::FallibleIterator as _;

use super::super::Wake;
use super::connection::{Endpoint, open_client};

/// The channel every append notifies and every watcher listens on.
pub(super) const CHANNEL: &str = "learnables_versions";

/// How long the listener waits for a notification before it checks
/// whether it was asked to stop.
const LISTEN_POLL: Duration = Duration::from_millis(200);

/// How long the listener's connection may stay silent before it checks
/// the connection is still alive.
const LISTEN_PING: Duration = Duration::from_secs(30);

/// What a storage tells its listener threads.
#[derive(Debug)]
pub(super) struct Signals {
    /// Set when the storage is dropped: the listeners end.
    pub(super) stop: AtomicBool,
    /// Set when this storage may have stored versions it did not report
    /// as stored: the listeners wake the knowledge.
    pub(super) wake_soon: AtomicBool,
    /// Names this storage's own appends in their notifications, so that
    /// its listeners do not wake the knowledge for versions it already
    /// has.
    pub(super) writer: String,
}

/// A watcher's connection and what it does with notifications.
pub(super) struct Listener {
    pub(super) endpoint: Endpoint,
    pub(super) signals: Arc<Signals>,
    pub(super) wake: Wake,
}

impl Listener {
    fn stopped(&self) -> bool {
        self.signals.stop.load(Ordering::Acquire)
    }

    /// Whether a notification announces versions another writer stored.
    fn is_another_writers(&self, notification: &postgres::Notification) -> bool {
        notification.payload().split(' ').next() != Some(self.signals.writer.as_str())
    }

    pub(super) fn run(self, client: Client) {
        let mut client = Some(client);
        let mut backoff = Duration::from_millis(50);
        while !self.stopped() {
            let Some(connection) = client.as_mut() else {
                match open_listener(&self.endpoint) {
                    Ok(opened) => {
                        client = Some(opened);
                        backoff = Duration::from_millis(50);
                        // Notifications sent while disconnected are lost.
                        (self.wake)();
                    }
                    Err(_) => {
                        self.pause(backoff);
                        backoff = (backoff * 2).min(Duration::from_secs(5));
                    }
                }
                continue;
            };
            if !self.listen(connection) {
                client = None;
            }
        }
    }

    /// Waits for notifications until asked to stop or until the connection
    /// is lost (then returns false).
    fn listen(&self, client: &mut Client) -> bool {
        let mut silent_since = Instant::now();
        while !self.stopped() {
            if self.signals.wake_soon.swap(false, Ordering::AcqRel) {
                (self.wake)();
            }
            let next = client.notifications().timeout_iter(LISTEN_POLL).next();
            match next {
                Ok(Some(first)) => {
                    // One wake-up for every notification already received,
                    // none for this storage's own appends.
                    let mut others = self.is_another_writers(&first);
                    let mut notifications = client.notifications();
                    let mut pending = notifications.iter();
                    while let Ok(Some(notification)) = pending.next() {
                        others |= self.is_another_writers(&notification);
                    }
                    if self.stopped() {
                        return true;
                    }
                    if others {
                        (self.wake)();
                    }
                    silent_since = Instant::now();
                }
                Ok(None) if client.is_closed() => return false,
                Ok(None) => {
                    if silent_since.elapsed() >= LISTEN_PING {
                        if client.is_valid(Duration::from_secs(10)).is_err() {
                            return false;
                        }
                        silent_since = Instant::now();
                    }
                }
                Err(_) => return false,
            }
        }
        true
    }

    fn pause(&self, duration: Duration) {
        let until = Instant::now() + duration;
        while !self.stopped() && Instant::now() < until {
            std::thread::sleep(LISTEN_POLL.min(until - Instant::now()));
        }
    }
}

pub(super) fn open_listener(endpoint: &Endpoint) -> Result<Client, postgres::Error> {
    let mut endpoint = endpoint.clone();
    // Notice a connection that died silently within a minute or so.
    endpoint.config.keepalives_idle(Duration::from_secs(30));
    let mut client = open_client(&endpoint)?;
    client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
    Ok(client)
}
