//! Connections to the database: opening one, the one connection an append
//! or a read reuses (or reopens, trying once more when a reused connection
//! turns out dead) with the append statement prepared on it once, and
//! errors in words that never show the password.

use std::error::Error as _;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::tls::MakeRustlsConnect;
use postgres::config::Host;
use postgres::types::Type;
use postgres::{Client, Config, Statement};

/// Set on every session: a transaction left open by a client that vanished
/// is ended by the server after this long, releasing its write lock; and a
/// commit waits until it is flushed to disk (a database or role whose
/// default is `synchronous_commit = off` would otherwise have lessons
/// acknowledged that a crash of the server can lose; a stricter setting,
/// such as `remote_apply`, is kept).
const SESSION_SETTINGS: &str = "SET idle_in_transaction_session_timeout = '30s'; \
     SELECT set_config('synchronous_commit', 'on', false) \
     WHERE current_setting('synchronous_commit') = 'off'";

/// Where the database is, and how to talk to it.
#[derive(Clone)]
pub(super) struct Endpoint {
    pub(super) config: Config,
    /// TLS as the connection string's `sslmode` asks (the client's own
    /// mode, in `config`, says whether it is used).
    /// `None` for `sslmode=disable`.
    pub(super) tls: Option<MakeRustlsConnect>,
}

/// The database and the connection appends and reads share.
pub(super) struct Connection {
    pub(super) endpoint: Endpoint,
    /// The database, for messages: never the password.
    pub(super) location: String,
    session: Mutex<Option<Session>>,
}

/// The call that appends a group of versions (see `append.rs`).
const APPEND: &str = "SELECT learnables_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";

/// The types of [`APPEND`]'s parameters.
const APPEND_TYPES: [Type; 10] = [
    Type::TEXT,
    Type::INT8_ARRAY,
    Type::TEXT_ARRAY,
    Type::INT8_ARRAY,
    Type::TEXT_ARRAY,
    Type::TEXT_ARRAY,
    Type::TEXT_ARRAY,
    Type::TEXT_ARRAY,
    Type::TIMESTAMPTZ_ARRAY,
    Type::TEXT_ARRAY,
];

/// An open connection, and the append call prepared on it: a call parsed
/// and planned once per connection rather than once per lesson, as the
/// server would otherwise do for every commit.
pub(super) struct Session {
    pub(super) client: Client,
    append: Option<Statement>,
}

impl Session {
    fn new(client: Client) -> Session {
        Session {
            client,
            append: None,
        }
    }

    /// The append call, prepared on this connection the first time.
    pub(super) fn append_statement(&mut self) -> Result<Statement, postgres::Error> {
        if let Some(statement) = &self.append {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare_typed(APPEND, &APPEND_TYPES)?;
        self.append = Some(statement.clone());
        Ok(statement)
    }
}

/// Whether a write whose connection was lost took effect, asked on a new
/// connection.
pub(super) type Check<'a> = dyn FnMut(&mut Client) -> Result<bool, postgres::Error> + 'a;

/// How an operation on the connection failed.
pub(super) enum Failure {
    /// The connection was lost (on a fresh connection, or twice): for an
    /// operation that writes, nothing was stored.
    Lost(postgres::Error),
    /// The database refused the operation on a connection that works.
    Refused(postgres::Error),
    /// The connection was lost while the operation may have taken effect,
    /// and whether it did could not be checked: why, and the loss.
    Unknown(String, postgres::Error),
}

impl Connection {
    pub(super) fn new(endpoint: Endpoint, location: String, client: Client) -> Connection {
        Connection {
            endpoint,
            location,
            session: Mutex::new(Some(Session::new(client))),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Session>> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the connection out, to close it (see `PostgresStorage`'s drop).
    pub(super) fn take(&mut self) -> Option<Client> {
        let session = match self.session.get_mut() {
            Ok(session) => session.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        session.map(|session| session.client)
    }

    /// Runs `operation` on the open connection, or on a new one if there is
    /// none. If the connection is lost meanwhile, and `settle` is given
    /// (the operation writes), `settle` is asked on a new connection
    /// whether the operation took effect: if it did, its result is
    /// `Ok(done)`. An operation that did not take effect on a reused
    /// connection, which may have died since its last use, is tried once
    /// more on a fresh one.
    pub(super) fn run<T>(
        &self,
        mut operation: impl FnMut(&mut Session) -> Result<T, postgres::Error>,
        mut settle: Option<(&mut Check<'_>, T)>,
    ) -> Result<T, Failure> {
        let mut guard = self.lock();
        let mut retried = false;
        loop {
            let reused = guard
                .as_ref()
                .is_some_and(|session| !session.client.is_closed());
            if !reused {
                *guard = None;
                let client = open_client(&self.endpoint).map_err(Failure::Lost)?;
                *guard = Some(Session::new(client));
            }
            let session = guard.as_mut().expect("a connection is open");
            let error = match operation(session) {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            if !(connection_lost(&error) || session.client.is_closed()) {
                return Err(Failure::Refused(error));
            }
            *guard = None;
            if let Some((check, _)) = settle.as_mut() {
                match self.settle(&mut guard, check) {
                    Ok(true) => return Ok(settle.take().expect("settle is given").1),
                    Ok(false) => {}
                    Err(why) => return Err(Failure::Unknown(why, error)),
                }
            }
            if reused && !retried {
                retried = true;
                continue;
            }
            return Err(Failure::Lost(error));
        }
    }

    /// Whether an operation whose connection was lost took effect: `check`
    /// on a new connection, tried a few times a little apart (the server
    /// may be restarting). The new connection is kept.
    fn settle(
        &self,
        guard: &mut MutexGuard<'_, Option<Session>>,
        check: &mut Check<'_>,
    ) -> Result<bool, String> {
        let mut pause = Duration::from_millis(20);
        let mut attempts = 0;
        loop {
            attempts += 1;
            let outcome = open_client(&self.endpoint).and_then(|mut client| {
                let done = check(&mut client)?;
                **guard = Some(Session::new(client));
                Ok(done)
            });
            match outcome {
                Ok(done) => return Ok(done),
                Err(error) if attempts >= 4 => return Err(explain(&error)),
                Err(_) => {
                    std::thread::sleep(pause);
                    pause *= 4;
                }
            }
        }
    }
}

/// Opens a connection with the session settings every connection has.
pub(super) fn open_client(endpoint: &Endpoint) -> Result<Client, postgres::Error> {
    let mut client = match &endpoint.tls {
        Some(tls) => endpoint.config.connect(tls.clone())?,
        None => endpoint.config.connect(postgres::NoTls)?,
    };
    client.batch_execute(SESSION_SETTINGS)?;
    Ok(client)
}

/// Whether `error` means the connection is gone (rather than a statement
/// refused on a connection that still works).
pub(super) fn connection_lost(error: &postgres::Error) -> bool {
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
pub(super) fn explain(error: &postgres::Error) -> String {
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
pub(super) fn describe(config: &Config) -> String {
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
    use crate::PostgresStorage;

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
        // Port 1 on the loopback: nothing listens there. Without TLS, so
        // that the connection is tried whatever crypto provider is installed.
        let error =
            PostgresStorage::connect("postgres://agent:s3cret@127.0.0.1:1/k?sslmode=disable")
                .unwrap_err();
        let message = error.to_string();
        assert!(!message.contains("s3cret"), "{message}");
        assert!(
            message.starts_with(
                "the knowledge store at postgresql://agent@127.0.0.1:1/k cannot be opened: "
            ),
            "{message}"
        );
        // The driver's error is the source, and the refused connection's
        // I/O error is its own.
        let source = std::error::Error::source(&error).expect("a source");
        let postgres = source
            .downcast_ref::<postgres::Error>()
            .expect("a postgres::Error");
        let io = std::error::Error::source(postgres)
            .and_then(|cause| cause.downcast_ref::<std::io::Error>())
            .expect("an I/O error under it");
        assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
    }
}
