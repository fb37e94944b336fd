//! The PostgreSQL back end: one database shared by every replica of an agent.
//!
//! It keeps every version as a row of one table, with the linear history
//! enforced by the database's own constraints and transactions; see
//! [`PostgresStorage`] for what it guarantees. The parts: the connection
//! and its reuse (`connection.rs`), the schema (`migrations.rs`), appending
//! (`append.rs`), reading (`read.rs`) and listening for other replicas
//! (`listener.rs`).

mod append;
mod connection;
mod listener;
mod migrations;
mod read;
mod reviews;
mod tls;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use postgres::Config;

use self::append::Appended;
use self::connection::{Connection, Endpoint, Failure, describe, explain, open_client};
use self::listener::{Listener, Signals, open_listener};
use self::migrations::{MIGRATIONS, Migration, migrate};
use super::{Redecide, ReviewsOf, Storage, StoreError, Wake};
use crate::StoreReason;
use crate::off_runtime::off_runtime;
use crate::{ReviewRecord, VersionRecord};

/// The PostgreSQL back end, for knowledge shared by every replica of an
/// agent. Usually reached through
/// [`Knowledge::connect`](crate::Knowledge::connect).
///
/// What it guarantees, and how the database itself enforces it:
///
/// - **One linear history.** Versions are rows of `learnables_versions`,
///   keyed by their position (primary key), with `UNIQUE (collection,
///   definition_version)`, `UNIQUE version_id` and each
///   `previous_version_id` naming a stored version (foreign key) that no
///   other version replaced (unique).
/// - **No lesson refused because another replica wrote first.** Appends
///   are serialized in the database by the `EXCLUSIVE` lock on
///   `learnables_versions` (other writers wait; readers are not blocked).
///   The lock covers the whole knowledge rather than one collection,
///   because positions are one order across all collections. An append is
///   one statement, one round trip: the server-side function
///   `learnables_append` takes the lock, checks that the group's first
///   version is one past the last stored, inserts the group and notifies,
///   all in its own transaction. If another replica wrote first, the back
///   end opens a transaction, takes the lock, reads the versions it has
///   not seen, and the knowledge decides the group again on top of them
///   ([`Storage::append_decided`]) before it is stored under the same
///   lock: the lessons wait, they are not refused. (A plain
///   [`Storage::append`] that does not follow on is refused with
///   [`StoreError::Conflict`]; the constraints refuse anything that slips
///   past the check the same way.)
/// - **All or nothing.** A group of versions is committed whole or not at
///   all. A connection lost during an append leaves its outcome unknown to
///   the client, so the back end reconnects, waits for the old transaction
///   to end, and reports what the database holds: `Ok` if the group was
///   stored; if it was not, the append is tried once more on a fresh
///   connection when the old one may have died before its use, else
///   refused with [`StoreError::Failed`] (nothing stored). If even that
///   check fails, the answer is [`StoreError::OutcomeUnknown`] (the lesson
///   may have been absorbed), never a refusal.
/// - **Safe from async code.** The client blocks on a runtime of its own;
///   called from inside a tokio runtime, every call runs on a thread of its
///   own instead of panicking.
/// - **Prompt news of other replicas' lessons.** Each append notifies the
///   channel `learnables_versions` inside its transaction (so only
///   committed versions are announced). [`Storage::watch`] listens on its
///   own connection and thread and wakes the knowledge on every
///   notification of versions another writer stored; if that connection
///   drops, it reconnects and wakes once, since notifications may have been
///   missed meanwhile. It never wakes from inside `append` or `load`.
/// - **Catching up reads only the tail**, through the primary-key index.
/// - **Versioned migrations**, applied on connect inside one transaction
///   that holds a transaction-level advisory lock, so any number of
///   replicas may start at once. The schema version is kept in
///   `learnables_schema`; a database migrated by a newer release is
///   refused rather than misread.
///
/// The tables are created in the first schema of the connection's
/// `search_path` (set it with `options=-csearch_path%3Dname` in the URL to
/// keep several knowledges in one database). Over TCP, TLS (rustls) follows
/// libpq's `sslmode` (`disable`, `prefer` (the default), `require`,
/// `verify-ca`, `verify-full`) and `sslrootcert=PATH` (a PEM file) in the
/// URL: `require` encrypts without checking the certificate unless a root
/// certificate is given; `verify-ca` checks the chain; `verify-full` the
/// chain and the host name.
///
/// ```no_run
/// use learnables_knowledge::{PostgresStorage, Storage};
/// let storage = PostgresStorage::connect("postgres://agent@db.internal/knowledge")?;
/// println!("{} versions stored", storage.load()?.len());
/// # Ok::<(), learnables_knowledge::StoreError>(())
/// ```
pub struct PostgresStorage {
    connection: Connection,
    /// Signals shared with the listener threads.
    signals: Arc<Signals>,
}

impl std::fmt::Debug for PostgresStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStorage")
            .field("location", &self.connection.location)
            .finish_non_exhaustive()
    }
}

impl PostgresStorage {
    /// Connects to the database at `url` (`postgres://user:password@host:port/dbname`,
    /// or the `key=value` form), creating or upgrading the tables it needs.
    /// No error message ever shows the password.
    pub fn connect(url: &str) -> Result<PostgresStorage, StoreError> {
        off_runtime(|| PostgresStorage::connect_here(url))
    }

    fn connect_here(url: &str) -> Result<PostgresStorage, StoreError> {
        let unreadable = |reason: StoreReason| StoreError::Open {
            location: "the PostgreSQL connection string".into(),
            reason: match reason.cause() {
                None => format!("it cannot be read: {reason}").into(),
                Some(_) => reason,
            },
        };
        let (url, tls) = tls::split_tls_params(url).map_err(|reason| unreadable(reason.into()))?;
        let mut config: Config = url.parse().map_err(|error| {
            unreadable(StoreReason::with_source(
                format!("it cannot be read: {}", explain(&error)),
                error,
            ))
        })?;
        if config.get_application_name().is_none() {
            config.application_name("learnables");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        let location = describe(&config);
        let open_error = |reason: StoreReason| StoreError::Open {
            location: location.clone(),
            reason,
        };
        let (mode, connector) = tls::connector(&tls).map_err(|reason| open_error(reason.into()))?;
        config.ssl_mode(mode);
        let endpoint = Endpoint {
            config,
            tls: connector,
        };
        let mut client = open_client(&endpoint)
            .map_err(|error| open_error(StoreReason::with_source(explain(&error), error)))?;
        migrate(&mut client).map_err(|error| match error {
            Migration::Sql(error) => open_error(StoreReason::with_source(
                format!(
                    "its learnables tables could not be created or upgraded: {}",
                    explain(&error)
                ),
                error,
            )),
            Migration::Newer(found) => open_error(
                format!(
                    "its learnables tables are at schema version {found}, newer than this \
                     release knows ({}); upgrade learnables",
                    MIGRATIONS.len()
                )
                .into(),
            ),
        })?;
        Ok(PostgresStorage {
            connection: Connection::new(endpoint, location, client),
            signals: Arc::new(Signals {
                stop: AtomicBool::new(false),
                wake_soon: AtomicBool::new(false),
                writer: uuid::Uuid::now_v7().simple().to_string(),
            }),
        })
    }

    /// The database, as shown in messages: host, port, user and database
    /// name, never the password.
    pub fn location(&self) -> &str {
        &self.connection.location
    }

    /// The version of the learnables tables this release creates and
    /// expects, as recorded in the database's `learnables_schema` table.
    pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

    fn read_since(&self, position: u64) -> Result<Vec<VersionRecord>, StoreError> {
        let location = &self.connection.location;
        let read = self.connection.run(
            |session| read::records_after(&mut session.client, position, location),
            None,
        );
        read.unwrap_or_else(|failure| {
            let (Failure::Lost(error) | Failure::Refused(error) | Failure::Unknown(_, error)) =
                failure;
            Err(StoreError::Failed(StoreReason::with_source(
                format!(
                    "reading the versions after position {position} in {location} failed: {}",
                    explain(&error)
                ),
                error,
            )))
        })
    }
}

impl Drop for PostgresStorage {
    fn drop(&mut self) {
        // The listeners end by themselves within `LISTEN_POLL`. They are not
        // joined: this may run on a listener's own thread, when a wake-up
        // held the last handle to the knowledge.
        self.signals.stop.store(true, Ordering::Release);
        // The synchronous client closes its connection by running a small
        // runtime of its own, which panics on a thread that is already
        // driving an async runtime (an agent dropping its knowledge when its
        // server stops). A thread of its own closes it anywhere.
        let client = self.connection.take();
        if let Some(client) = client {
            let _ = std::thread::Builder::new()
                .name("learnables-postgres-close".into())
                .spawn(move || drop(client));
        }
    }
}

impl Storage for PostgresStorage {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        off_runtime(|| self.read_since(0))
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        let Some(first) = records.first() else {
            return Ok(());
        };
        match off_runtime(|| append::append_once(&self.connection, &self.signals, records))? {
            Appended::Stored => Ok(()),
            Appended::Behind(found) => Err(StoreError::Conflict {
                expected: first.position,
                found,
            }),
        }
    }

    fn append_decided(
        &self,
        records: Vec<VersionRecord>,
        redecide: &mut Redecide<'_>,
    ) -> Result<(), StoreError> {
        off_runtime(|| append::append_decided(&self.connection, &self.signals, records, redecide))
    }

    fn load_since(&self, position: u64) -> Result<Vec<VersionRecord>, StoreError> {
        off_runtime(|| self.read_since(position))
    }

    fn append_review(&self, record: &ReviewRecord) -> Result<(), StoreError> {
        off_runtime(|| reviews::append(&self.connection, record))
    }

    fn load_reviews(&self) -> Result<Vec<ReviewRecord>, StoreError> {
        off_runtime(|| reviews::load(&self.connection))
    }

    fn load_reviews_of(&self, which: ReviewsOf<'_>) -> Result<Vec<ReviewRecord>, StoreError> {
        off_runtime(|| reviews::load_of(&self.connection, which))
    }

    fn watch(&self, wake: Wake) -> Result<(), StoreError> {
        // Listening starts before this returns, so that nothing appended
        // after it goes unannounced.
        let client = off_runtime(|| open_listener(&self.connection.endpoint)).map_err(|error| {
            StoreError::Failed(StoreReason::with_source(
                format!(
                    "listening for other replicas' versions on {} failed: {}",
                    self.connection.location,
                    explain(&error)
                ),
                error,
            ))
        })?;
        let listener = Listener {
            endpoint: self.connection.endpoint.clone(),
            signals: Arc::clone(&self.signals),
            wake,
        };
        std::thread::Builder::new()
            .name("learnables-postgres-listener".into())
            .spawn(move || listener.run(client))
            .map_err(|error| {
                StoreError::Failed(
                    format!(
                        "the thread listening for other replicas' versions could not start: {error}"
                    )
                    .into(),
                )
            })?;
        Ok(())
    }
}
