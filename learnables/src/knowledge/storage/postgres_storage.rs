//! The PostgreSQL back end: one database shared by every replica of an agent.
//!
//! It keeps every version as a row of one table, with the linear history
//! enforced by the database's own constraints and transactions; see
//! [`PostgresStorage`] for what it guarantees.

use std::error::Error as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, UNIX_EPOCH};

use postgres::config::Host;
use postgres::fallible_iterator::FallibleIterator as _;
use postgres::types::Type;
use postgres::{Client, Config, NoTls};

use super::{Storage, StoreError, Wake};
use crate::knowledge::VersionRecord;

/// The channel every append notifies and every watcher listens on.
const CHANNEL: &str = "learnables_versions";

/// The advisory lock that serializes migrations ("learnabl" in ASCII).
const MIGRATION_LOCK: i64 = 0x6c65_6172_6e61_626c;

/// The schema, one step per version: step `n` takes the schema from
/// version `n - 1` to `n`. Never edit a released step; add one.
const MIGRATIONS: &[&str] = &[
    // 1: the versions.
    "CREATE TABLE learnables_versions (
        position bigint PRIMARY KEY CHECK (position > 0),
        collection text NOT NULL,
        definition_version bigint NOT NULL CHECK (definition_version > 0),
        version_id text NOT NULL UNIQUE,
        previous_version_id text UNIQUE REFERENCES learnables_versions (version_id),
        entry text NOT NULL,
        taught_by text NOT NULL,
        taught_at timestamptz NOT NULL,
        record json NOT NULL,
        UNIQUE (collection, definition_version),
        CHECK ((definition_version = 1) = (previous_version_id IS NULL))
    );
    COMMENT ON TABLE learnables_versions IS
        'Every version of a learnables knowledge, in position order. Written only by the \
         learnables PostgreSQL back end; the record column is the version as written, the \
         other columns copy parts of it for constraints and queries.';",
];

/// How long the listener waits for a notification before it checks
/// whether it was asked to stop.
const LISTEN_POLL: Duration = Duration::from_millis(200);

/// How long the listener's connection may stay silent before it checks
/// the connection is still alive.
const LISTEN_PING: Duration = Duration::from_secs(30);

/// Set on every session: a transaction left open by a client that vanished
/// is ended by the server after this long, releasing its write lock; and a
/// commit waits until it is flushed to disk (a database or role whose
/// default is `synchronous_commit = off` would otherwise have lessons
/// acknowledged that a crash of the server can lose; a stricter setting,
/// such as `remote_apply`, is kept).
const SESSION_SETTINGS: &str = "SET idle_in_transaction_session_timeout = '30s'; \
     SELECT set_config('synchronous_commit', 'on', false) \
     WHERE current_setting('synchronous_commit') = 'off'";

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
///   other version replaced (unique). An append is one transaction that
///   locks the table against other writers (readers are not blocked),
///   checks that its first version is one past the last stored, inserts
///   the group and commits. If another replica wrote first, the append is
///   refused with [`StoreError::Conflict`] and stores nothing; the
///   constraints refuse anything that slips past the check the same way.
/// - **All or nothing.** A group of versions is committed whole or not at
///   all. A connection lost before the commit stores nothing; the next call
///   reconnects (an append whose connection turned out to be stale is tried
///   once more on a fresh one). A connection lost *during* the commit leaves
///   its outcome unknown to the client, so the back end reconnects, waits
///   for the old transaction to end, and reports what the database holds:
///   `Ok` if the group was stored, [`StoreError::Failed`] if it was not.
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
/// keep several knowledges in one database). Connections are plain TCP or
/// Unix sockets: TLS is not supported yet.
///
/// ```no_run
/// use learnables::knowledge::{PostgresStorage, Storage};
/// let storage = PostgresStorage::connect("postgres://agent@db.internal/knowledge")?;
/// println!("{} versions stored", storage.load()?.len());
/// # Ok::<(), learnables::knowledge::StoreError>(())
/// ```
pub struct PostgresStorage {
    config: Config,
    /// The database, for messages: never the password.
    location: String,
    client: Mutex<Option<Client>>,
    /// Signals shared with the listener threads.
    signals: Arc<Signals>,
}

/// What a storage tells its listener threads.
#[derive(Debug)]
struct Signals {
    /// Set when the storage is dropped: the listeners end.
    stop: AtomicBool,
    /// Set when this storage may have stored versions it did not report
    /// as stored: the listeners wake the knowledge.
    wake_soon: AtomicBool,
    /// Names this storage's own appends in their notifications, so that
    /// its listeners do not wake the knowledge for versions it already
    /// has.
    writer: String,
}

impl std::fmt::Debug for PostgresStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStorage")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl PostgresStorage {
    /// Connects to the database at `url` (`postgres://user:password@host:port/dbname`,
    /// or the `key=value` form), creating or upgrading the tables it needs.
    /// No error message ever shows the password.
    pub fn connect(url: &str) -> Result<PostgresStorage, StoreError> {
        let mut config: Config = url.parse().map_err(|error| StoreError::Open {
            location: "the PostgreSQL connection string".into(),
            reason: format!("it cannot be read: {}", explain(&error)),
        })?;
        if config.get_application_name().is_none() {
            config.application_name("learnables");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        let location = describe(&config);
        let open_error = |reason: String| StoreError::Open {
            location: location.clone(),
            reason,
        };
        let mut client = open_client(&config).map_err(|error| open_error(explain(&error)))?;
        migrate(&mut client).map_err(|error| match error {
            Migration::Sql(error) => open_error(format!(
                "its learnables tables could not be created or upgraded: {}",
                explain(&error)
            )),
            Migration::Newer(found) => open_error(format!(
                "its learnables tables are at schema version {found}, newer than this \
                 release knows ({}); upgrade learnables",
                MIGRATIONS.len()
            )),
        })?;
        Ok(PostgresStorage {
            config,
            location,
            client: Mutex::new(Some(client)),
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
        &self.location
    }

    /// The version of the learnables tables this release creates and
    /// expects, as recorded in the database's `learnables_schema` table.
    pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

    fn lock_client(&self) -> MutexGuard<'_, Option<Client>> {
        self.client.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn failed(&self, what: &str, error: &postgres::Error) -> StoreError {
        StoreError::Failed(format!(
            "{what} in {} failed: {}",
            self.location,
            explain(error)
        ))
    }

    /// The open connection, or a new one if there is none.
    fn connection<'a>(
        &self,
        guard: &'a mut MutexGuard<'_, Option<Client>>,
        what: &str,
    ) -> Result<(&'a mut Client, bool), StoreError> {
        let reused = guard.as_ref().is_some_and(|client| !client.is_closed());
        if !reused {
            **guard = None;
            let client = open_client(&self.config).map_err(|error| {
                StoreError::Failed(format!(
                    "{what} failed: {} cannot be reached: {}",
                    self.location,
                    explain(&error)
                ))
            })?;
            **guard = Some(client);
        }
        let client = guard.as_mut().expect("a connection was just opened");
        Ok((client, reused))
    }

    fn read_since(&self, position: u64) -> Result<Vec<VersionRecord>, StoreError> {
        let what = format!("reading the versions after position {position}");
        let after = i64::try_from(position).unwrap_or(i64::MAX);
        let mut guard = self.lock_client();
        let mut retried = false;
        loop {
            let (client, reused) = self.connection(&mut guard, &what)?;
            let rows = client.query_typed(
                "SELECT position, collection, definition_version, version_id, record::text \
                 FROM learnables_versions WHERE position > $1 ORDER BY position",
                &[(&after, Type::INT8)],
            );
            match rows {
                Ok(rows) => return rows.iter().map(|row| self.record_of(row)).collect(),
                Err(error) => {
                    let lost = connection_lost(&error) || client.is_closed();
                    if lost {
                        *guard = None;
                    }
                    if lost && reused && !retried {
                        retried = true;
                        continue;
                    }
                    return Err(self.failed(&what, &error));
                }
            }
        }
    }

    fn record_of(&self, row: &postgres::Row) -> Result<VersionRecord, StoreError> {
        let columns = || -> Result<(i64, String, i64, String, String), postgres::Error> {
            Ok((
                row.try_get(0)?,
                row.try_get(1)?,
                row.try_get(2)?,
                row.try_get(3)?,
                row.try_get(4)?,
            ))
        };
        let (position, collection, definition_version, version_id, json) =
            columns().map_err(|error| {
                StoreError::Damaged(format!(
                    "a version in {} cannot be read: {}",
                    self.location,
                    explain(&error)
                ))
            })?;
        let record: VersionRecord = serde_json::from_str(&json).map_err(|error| {
            StoreError::Damaged(format!(
                "the version at position {position} in {} cannot be read: {error}",
                self.location
            ))
        })?;
        let agrees = i64::try_from(record.position) == Ok(position)
            && record.collection == collection
            && i64::try_from(record.definition_version) == Ok(definition_version)
            && record.version_id == version_id;
        if !agrees {
            return Err(StoreError::Damaged(format!(
                "the version stored at position {position} in {} does not match its columns \
                 (it says position {}, collection `{}`, version {} `{}`); was the table edited \
                 by hand?",
                self.location,
                record.position,
                record.collection,
                record.definition_version,
                record.version_id
            )));
        }
        Ok(record)
    }

    fn write(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        let rows = Rows::of(records)?;
        let first = rows.position[0];
        let what = match records.len() {
            1 => format!("storing the version at position {first}"),
            n => format!("storing {n} versions from position {first}"),
        };
        let mut guard = self.lock_client();
        let mut retried = false;
        loop {
            let (client, reused) = self.connection(&mut guard, &what)?;
            let (step, error) = match append_rows(client, &rows, &self.signals.writer) {
                Ok(Appended::Stored) => return Ok(()),
                Ok(Appended::Behind(found)) => {
                    return Err(StoreError::Conflict {
                        expected: records[0].position,
                        found,
                    });
                }
                Err(failure) => failure,
            };
            if error.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) {
                // Another writer stored a version with one of these
                // positions, numbers or ids first.
                let found = last_position(client).unwrap_or(records[0].position);
                return Err(StoreError::Conflict {
                    expected: records[0].position,
                    found,
                });
            }
            let lost = connection_lost(&error) || client.is_closed();
            if !lost {
                return Err(StoreError::Failed(format!(
                    "{what} in {} failed: {}; nothing was stored",
                    self.location,
                    explain(&error)
                )));
            }
            *guard = None;
            if step == Step::Commit {
                return self.settle(&mut guard, &what, &rows, &error);
            }
            if reused && !retried {
                // The connection had died since its last use; the
                // transaction never started or died with it.
                retried = true;
                continue;
            }
            return Err(StoreError::Failed(format!(
                "{what} in {} failed: the connection was lost ({}); nothing was stored",
                self.location,
                explain(&error)
            )));
        }
    }

    /// Finds out whether a commit whose answer was lost with its connection
    /// took effect: waits (on a new connection) for the old transaction to
    /// end, then looks for the group's first version.
    fn settle(
        &self,
        guard: &mut MutexGuard<'_, Option<Client>>,
        what: &str,
        rows: &Rows,
        lost: &postgres::Error,
    ) -> Result<(), StoreError> {
        let unknown = |why: String| {
            // Its notification, if it was stored, was taken for this
            // storage's own: have the listeners look instead.
            self.signals.wake_soon.store(true, Ordering::Release);
            StoreError::Failed(format!(
                "{what} in {}: the connection was lost while committing ({}), and whether the \
                 versions were stored could not be checked ({why}); if they were, the \
                 knowledge picks them up from the database",
                self.location,
                explain(lost)
            ))
        };
        let check = |client: &mut Client| -> Result<bool, postgres::Error> {
            let mut transaction = client.transaction()?;
            transaction.batch_execute(
                "SET LOCAL lock_timeout = '120s'; \
                 LOCK TABLE learnables_versions IN SHARE MODE",
            )?;
            let found = transaction.query_typed_opt(
                "SELECT 1 FROM learnables_versions WHERE version_id = $1",
                &[(&rows.version_id[0], Type::TEXT)],
            )?;
            transaction.commit()?;
            Ok(found.is_some())
        };
        // The server may be restarting, or the check's own connection may
        // fail too: a few tries, a little apart.
        let mut pause = Duration::from_millis(20);
        let mut attempts = 0;
        let stored = loop {
            attempts += 1;
            let outcome = open_client(&self.config).and_then(|mut client| {
                let stored = check(&mut client)?;
                **guard = Some(client);
                Ok(stored)
            });
            match outcome {
                Ok(stored) => break stored,
                Err(error) if attempts >= 4 => return Err(unknown(explain(&error))),
                Err(_) => {
                    std::thread::sleep(pause);
                    pause *= 4;
                }
            }
        };
        if stored {
            Ok(())
        } else {
            Err(StoreError::Failed(format!(
                "{what} in {} failed: the connection was lost while committing ({}); nothing \
                 was stored",
                self.location,
                explain(lost)
            )))
        }
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
        let client = match self.client.get_mut() {
            Ok(client) => client.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(client) = client {
            let _ = std::thread::Builder::new()
                .name("learnables-postgres-close".into())
                .spawn(move || drop(client));
        }
    }
}

impl Storage for PostgresStorage {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.read_since(0)
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        if records.is_empty() {
            return Ok(());
        }
        self.write(records)
    }

    fn load_since(&self, position: u64) -> Result<Vec<VersionRecord>, StoreError> {
        self.read_since(position)
    }

    fn watch(&self, wake: Wake) -> Result<(), StoreError> {
        // Listening starts before this returns, so that nothing appended
        // after it goes unannounced.
        let client = open_listener(&self.config).map_err(|error| {
            StoreError::Failed(format!(
                "listening for other replicas' versions on {} failed: {}",
                self.location,
                explain(&error)
            ))
        })?;
        let listener = Listener {
            config: self.config.clone(),
            signals: Arc::clone(&self.signals),
            wake,
        };
        std::thread::Builder::new()
            .name("learnables-postgres-listener".into())
            .spawn(move || listener.run(client))
            .map_err(|error| {
                StoreError::Failed(format!(
                    "the thread listening for other replicas' versions could not start: {error}"
                ))
            })?;
        Ok(())
    }
}

/// A watcher's connection and what it does with notifications.
struct Listener {
    config: Config,
    signals: Arc<Signals>,
    wake: Wake,
}

impl Listener {
    fn stopped(&self) -> bool {
        self.signals.stop.load(Ordering::Acquire)
    }

    /// Whether a notification announces versions another writer stored.
    fn is_another_writers(&self, notification: &postgres::Notification) -> bool {
        notification.payload().split(' ').next() != Some(self.signals.writer.as_str())
    }

    fn run(self, client: Client) {
        let mut client = Some(client);
        let mut backoff = Duration::from_millis(50);
        while !self.stopped() {
            let Some(connection) = client.as_mut() else {
                match open_listener(&self.config) {
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

/// A group of versions as the columns of `learnables_versions`.
struct Rows {
    position: Vec<i64>,
    collection: Vec<String>,
    definition_version: Vec<i64>,
    version_id: Vec<String>,
    previous_version_id: Vec<Option<String>>,
    entry: Vec<String>,
    taught_by: Vec<String>,
    taught_at: Vec<std::time::SystemTime>,
    record: Vec<String>,
}

impl Rows {
    fn of(records: &[VersionRecord]) -> Result<Rows, StoreError> {
        let mut rows = Rows {
            position: Vec::with_capacity(records.len()),
            collection: Vec::with_capacity(records.len()),
            definition_version: Vec::with_capacity(records.len()),
            version_id: Vec::with_capacity(records.len()),
            previous_version_id: Vec::with_capacity(records.len()),
            entry: Vec::with_capacity(records.len()),
            taught_by: Vec::with_capacity(records.len()),
            taught_at: Vec::with_capacity(records.len()),
            record: Vec::with_capacity(records.len()),
        };
        for pair in records.windows(2) {
            if pair[1].position != pair[0].position + 1 {
                return Err(StoreError::Failed(format!(
                    "a group of versions must hold consecutive positions, and position {} is \
                     followed by {}; nothing was stored",
                    pair[0].position, pair[1].position
                )));
            }
        }
        for record in records {
            let too_large = |what: &str, value: u64| {
                StoreError::Failed(format!(
                    "the {what} {value} is too large for PostgreSQL; nothing was stored"
                ))
            };
            let identifiers = [
                Some(&record.collection),
                Some(&record.version_id),
                record.previous_version_id.as_ref(),
            ];
            if identifiers
                .into_iter()
                .flatten()
                .any(|id| id.contains('\0'))
            {
                return Err(StoreError::Failed(format!(
                    "the version at position {} names a collection or version id that holds \
                     the NUL character, which PostgreSQL text cannot hold; nothing was stored",
                    record.position
                )));
            }
            rows.position.push(
                i64::try_from(record.position)
                    .map_err(|_| too_large("position", record.position))?,
            );
            rows.definition_version.push(
                i64::try_from(record.definition_version)
                    .map_err(|_| too_large("version number", record.definition_version))?,
            );
            rows.collection.push(record.collection.clone());
            rows.version_id.push(record.version_id.clone());
            rows.previous_version_id
                .push(record.previous_version_id.clone());
            // These two columns are for queries; the record keeps the exact
            // text, NUL characters included.
            rows.entry.push(record.entry.replace('\0', "\u{fffd}"));
            rows.taught_by
                .push(record.taught_by.replace('\0', "\u{fffd}"));
            rows.taught_at.push(
                UNIX_EPOCH
                    .checked_add(Duration::from_millis(record.taught_at_ms))
                    .unwrap_or(UNIX_EPOCH),
            );
            rows.record
                .push(serde_json::to_string(record).map_err(|error| {
                    StoreError::Failed(format!(
                        "the version at position {} cannot be written as JSON: {error}; nothing \
                     was stored",
                        record.position
                    ))
                })?);
        }
        Ok(rows)
    }
}

/// The steps of an append, to tell a connection lost before the commit
/// (nothing stored) from one lost during it (outcome unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Prepare,
    Commit,
}

enum Appended {
    Stored,
    /// The store's last position is not the one before the group's first.
    Behind(u64),
}

/// Appends `rows` in one transaction, announcing them as `writer`'s.
fn append_rows(
    client: &mut Client,
    rows: &Rows,
    writer: &str,
) -> Result<Appended, (Step, postgres::Error)> {
    let prepare = |error| (Step::Prepare, error);
    let mut transaction = client.transaction().map_err(prepare)?;
    // EXCLUSIVE blocks other writers (who would conflict anyway) until this
    // commits, not readers.
    transaction
        .batch_execute(
            "SET LOCAL lock_timeout = '60s'; \
             LOCK TABLE learnables_versions IN EXCLUSIVE MODE",
        )
        .map_err(prepare)?;
    let found: i64 = transaction
        .query_typed_one(
            "SELECT coalesce(max(position), 0) FROM learnables_versions",
            &[],
        )
        .and_then(|row| row.try_get(0))
        .map_err(prepare)?;
    if found + 1 != rows.position[0] {
        return Ok(Appended::Behind(u64::try_from(found).unwrap_or(0)));
    }
    transaction
        .execute_typed(
            "INSERT INTO learnables_versions (position, collection, definition_version, \
             version_id, previous_version_id, entry, taught_by, taught_at, record) \
             SELECT position, collection, definition_version, version_id, previous_version_id, \
                    entry, taught_by, taught_at, record::json \
             FROM unnest($1::int8[], $2::text[], $3::int8[], $4::text[], $5::text[], \
                         $6::text[], $7::text[], $8::timestamptz[], $9::text[]) \
                  AS group_(position, collection, definition_version, version_id, \
                            previous_version_id, entry, taught_by, taught_at, record) \
             ORDER BY position",
            &[
                (&rows.position, Type::INT8_ARRAY),
                (&rows.collection, Type::TEXT_ARRAY),
                (&rows.definition_version, Type::INT8_ARRAY),
                (&rows.version_id, Type::TEXT_ARRAY),
                (&rows.previous_version_id, Type::TEXT_ARRAY),
                (&rows.entry, Type::TEXT_ARRAY),
                (&rows.taught_by, Type::TEXT_ARRAY),
                (&rows.taught_at, Type::TIMESTAMPTZ_ARRAY),
                (&rows.record, Type::TEXT_ARRAY),
            ],
        )
        .map_err(prepare)?;
    let payload = format!("{writer} {}", rows.position[rows.position.len() - 1]);
    transaction
        .execute_typed(
            "SELECT pg_notify($1, $2)",
            &[(&CHANNEL, Type::TEXT), (&payload, Type::TEXT)],
        )
        .map_err(prepare)?;
    transaction
        .commit()
        .map_err(|error| (Step::Commit, error))?;
    Ok(Appended::Stored)
}

fn last_position(client: &mut Client) -> Option<u64> {
    let row = client
        .query_typed_one(
            "SELECT coalesce(max(position), 0) FROM learnables_versions",
            &[],
        )
        .ok()?;
    u64::try_from(row.try_get::<_, i64>(0).ok()?).ok()
}

/// Why migrating failed.
enum Migration {
    Sql(postgres::Error),
    /// The database is at a schema version this release does not know.
    Newer(i32),
}

impl From<postgres::Error> for Migration {
    fn from(error: postgres::Error) -> Migration {
        Migration::Sql(error)
    }
}

/// Brings the tables to [`MIGRATIONS`]'s last version, holding an advisory
/// lock so that replicas starting together migrate one after the other.
fn migrate(client: &mut Client) -> Result<(), Migration> {
    let mut transaction = client.transaction()?;
    transaction.execute_typed(
        "SELECT pg_advisory_xact_lock($1)",
        &[(&MIGRATION_LOCK, Type::INT8)],
    )?;
    let exists: bool = transaction
        .query_typed_one("SELECT to_regclass('learnables_schema') IS NOT NULL", &[])?
        .try_get(0)?;
    if !exists {
        transaction.batch_execute(
            "CREATE TABLE learnables_schema (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            COMMENT ON TABLE learnables_schema IS
                'The versions of the learnables tables applied to this schema.';",
        )?;
    }
    let current: i32 = transaction
        .query_typed_one(
            "SELECT coalesce(max(version), 0) FROM learnables_schema",
            &[],
        )?
        .try_get(0)?;
    let known = MIGRATIONS.len();
    let applied = usize::try_from(current).unwrap_or(0);
    if applied > known {
        return Err(Migration::Newer(current));
    }
    for (index, step) in MIGRATIONS.iter().enumerate().skip(applied) {
        transaction.batch_execute(step)?;
        let version = i32::try_from(index + 1).expect("fewer than 2^31 migrations");
        transaction.execute_typed(
            "INSERT INTO learnables_schema (version) VALUES ($1)",
            &[(&version, Type::INT4)],
        )?;
    }
    transaction.commit()?;
    Ok(())
}

fn open_client(config: &Config) -> Result<Client, postgres::Error> {
    let mut client = config.connect(NoTls)?;
    client.batch_execute(SESSION_SETTINGS)?;
    Ok(client)
}

fn open_listener(config: &Config) -> Result<Client, postgres::Error> {
    let mut config = config.clone();
    // Notice a connection that died silently within a minute or so.
    config.keepalives_idle(Duration::from_secs(30));
    let mut client = open_client(&config)?;
    client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
    Ok(client)
}

/// Whether `error` means the connection is gone (rather than a statement
/// refused on a connection that still works).
fn connection_lost(error: &postgres::Error) -> bool {
    if error.is_closed() {
        return true;
    }
    if let Some(code) = error.code() {
        let code = code.code();
        // Connection exceptions, and the server ending the session.
        return code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03");
    }
    error
        .source()
        .is_some_and(|cause| cause.is::<std::io::Error>())
}

/// What went wrong, in words: the server's message and SQLSTATE for a
/// database error, else the client's error and its cause.
fn explain(error: &postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        let mut text = format!("{} (SQLSTATE {})", db.message(), db.code().code());
        if let Some(detail) = db.detail() {
            text.push_str(&format!("; {detail}"));
        }
        return text;
    }
    match error.source() {
        Some(cause) => format!("{error}: {cause}"),
        None => error.to_string(),
    }
}

/// The database a configuration points at, as a URL without the password.
fn describe(config: &Config) -> String {
    let user = config
        .get_user()
        .map(|user| format!("{user}@"))
        .unwrap_or_default();
    let ports = config.get_ports();
    let hosts: Vec<String> = if config.get_hosts().is_empty() {
        vec!["localhost".to_owned()]
    } else {
        config
            .get_hosts()
            .iter()
            .enumerate()
            .map(|(index, host)| {
                let host = match host {
                    Host::Tcp(name) => name.clone(),
                    Host::Unix(path) => path.display().to_string(),
                };
                match ports.get(index).or(ports.first()) {
                    Some(port) => format!("{host}:{port}"),
                    None => host,
                }
            })
            .collect()
    };
    let dbname = config.get_dbname().unwrap_or_default();
    format!("postgresql://{user}{}/{dbname}", hosts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_never_shows_the_password() {
        let config: Config = "postgres://agent:s3cret@db.internal:6543/knowledge"
            .parse()
            .unwrap();
        assert_eq!(
            describe(&config),
            "postgresql://agent@db.internal:6543/knowledge"
        );
        let config: Config = "host=/run/postgresql user=agent password=s3cret dbname=k"
            .parse()
            .unwrap();
        assert_eq!(describe(&config), "postgresql://agent@/run/postgresql/k");
    }

    #[test]
    fn an_unreadable_url_is_refused_without_echoing_it() {
        let error = PostgresStorage::connect("postgres://agent:s3cret@db:notaport/k").unwrap_err();
        let message = error.to_string();
        assert!(!message.contains("s3cret"), "{message}");
        assert!(
            message.starts_with("the knowledge store at the PostgreSQL connection string"),
            "{message}"
        );
    }

    #[test]
    fn an_unreachable_server_is_reported_without_the_password() {
        // Port 1 on the loopback: nothing listens there.
        let error = PostgresStorage::connect("postgres://agent:s3cret@127.0.0.1:1/k").unwrap_err();
        let message = error.to_string();
        assert!(!message.contains("s3cret"), "{message}");
        assert!(
            message.starts_with(
                "the knowledge store at postgresql://agent@127.0.0.1:1/k cannot be opened: "
            ),
            "{message}"
        );
    }
}
