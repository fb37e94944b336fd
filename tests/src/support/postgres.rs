//! PostgreSQL for the tests and benchmarks of the PostgreSQL back end.
//!
//! Uses the server at `DATABASE_URL` if that is set (its user must be
//! allowed to create databases). Otherwise starts a throwaway server once
//! per process: `initdb` and `pg_ctl` from `/usr/lib/postgresql/*/bin` (or
//! the `PATH`), a data directory in a temporary directory, listening only
//! on 127.0.0.1 on a free port, trust authentication; run as the
//! `postgres` user when the tests run as root, since `initdb` refuses root.
//! A watcher process started with it stops the server and deletes its
//! directory as soon as this process ends, however it ends: it waits for
//! the end of a pipe only this process holds open.
//!
//! Each test takes a fresh database ([`fresh_database`]), so tests running
//! at once never see each other's versions or notifications. With neither
//! `DATABASE_URL` nor PostgreSQL's programs, [`fresh_database`] fails the
//! test, unless `LEARNABLES_ALLOW_SKIP=postgres` is set: then it prints a
//! loud `SKIPPED:` line and returns `None`, and the test passes without
//! running.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Where the tests' databases are made.
pub struct Server {
    /// A URL of the server's own database, for creating and dropping others.
    admin_url: String,
    /// How to write the URL of another database on the same server.
    urls: Urls,
    /// The watcher of a throwaway server, never waited for: the end of
    /// its standard input, held open until this process ends, tells it to
    /// stop the server.
    _watcher: Option<Child>,
    /// Whether the server was started here (and is thrown away at exit).
    pub throwaway: bool,
    /// How to control a throwaway server: its programs and data directory.
    control: Option<Control>,
}

/// A throwaway server's programs and data directory.
struct Control {
    bin: PathBuf,
    data: PathBuf,
    as_postgres: bool,
}

impl Server {
    /// Restarts a throwaway server (a fast shutdown: sessions are ended, as
    /// when a database fails over), waiting until it accepts connections
    /// again; `false`, doing nothing, for a server given by `DATABASE_URL`.
    pub fn restart(&self) -> bool {
        let Some(control) = &self.control else {
            return false;
        };
        let mut pg_ctl = pg_command(&control.bin, "pg_ctl", control.as_postgres);
        pg_ctl
            .arg("-D")
            .arg(&control.data)
            .args(["-m", "fast", "-w", "-t", "60", "restart"])
            .stdout(Stdio::null())
            .process_group(0);
        run(pg_ctl, "restarting PostgreSQL");
        true
    }
}

impl Server {
    /// Turns TLS on for a throwaway server, with this certificate and key
    /// (PEM), for the connections made from then on (plain ones are still
    /// accepted); `false`, doing nothing, for a server given by
    /// `DATABASE_URL`.
    pub fn enable_tls(&self, certificate: &str, key: &str) -> bool {
        use std::os::unix::fs::PermissionsExt as _;
        let Some(control) = &self.control else {
            return false;
        };
        let certificate_path = control.data.join("server.crt");
        let key_path = control.data.join("server.key");
        std::fs::write(&certificate_path, certificate).expect("writing the certificate");
        std::fs::write(&key_path, key).expect("writing the key");
        std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o600))
            .expect("restricting the key");
        if control.as_postgres {
            let mut chown = Command::new("chown");
            chown
                .arg("postgres:postgres")
                .arg(&certificate_path)
                .arg(&key_path);
            run(chown, "giving the certificate to the postgres user");
        }
        let mut admin = self.admin().expect("connecting to the server");
        admin
            .batch_execute("ALTER SYSTEM SET ssl = on")
            .expect("turning TLS on");
        admin
            .batch_execute("SELECT pg_reload_conf()")
            .expect("reloading the configuration");
        // The reload is a signal: wait until new sessions see it.
        for _ in 0..500 {
            let on: String = self
                .admin()
                .expect("connecting to the server")
                .query_one("SHOW ssl", &[])
                .expect("reading ssl")
                .get(0);
            if on == "on" {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("the server did not turn TLS on (see its log)");
    }
}

enum Urls {
    /// `postgres://` or `postgresql://` URL: the path names the database.
    Url(String),
    /// `key=value` connection string: a `dbname=` is appended.
    KeyValue(String),
}

impl Urls {
    fn of(&self, database: &str) -> String {
        match self {
            Urls::Url(url) => {
                let (base, query) = match url.split_once('?') {
                    Some((base, query)) => (base, Some(query)),
                    None => (url.as_str(), None),
                };
                let scheme_end = base.find("://").map_or(0, |index| index + 3);
                let authority_end = base[scheme_end..]
                    .find('/')
                    .map_or(base.len(), |index| scheme_end + index);
                let mut url = format!("{}/{database}", &base[..authority_end]);
                if let Some(query) = query {
                    url.push('?');
                    url.push_str(query);
                }
                url
            }
            Urls::KeyValue(string) => format!("{string} dbname={database}"),
        }
    }
}

/// The server the tests use, started on first use; `None` if there is none
/// to be had.
pub fn server() -> Option<&'static Server> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            if let Ok(url) = std::env::var("DATABASE_URL")
                && !url.trim().is_empty()
            {
                let urls = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
                    Urls::Url(url.clone())
                } else {
                    Urls::KeyValue(url.clone())
                };
                let server = Server {
                    admin_url: url,
                    urls,
                    _watcher: None,
                    throwaway: false,
                    control: None,
                };
                server.drop_stale_databases();
                return Some(server);
            }
            let bin = binaries()?;
            Some(start(&bin))
        })
        .as_ref()
}

/// A throwaway server for the calling test alone, for a test that restarts
/// or reconfigures its server while other tests of the same binary use
/// theirs; on `DATABASE_URL`, the shared server (which the tests neither
/// restart nor reconfigure). Without PostgreSQL, as [`fresh_database`]:
/// the test fails, or `None` where it may be skipped.
pub fn own_server() -> Option<&'static Server> {
    match server() {
        Some(shared) if !shared.throwaway => Some(shared),
        Some(_) => binaries().map(|bin| &*Box::leak(Box::new(start(&bin)))),
        None => {
            skipped();
            None
        }
    }
}

/// A database of its own for one test; dropped when this is dropped (see
/// [`TestDatabase::into_url`] for one that outlives its test).
pub struct TestDatabase {
    name: String,
    url: String,
    server: &'static Server,
}

impl TestDatabase {
    /// The database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The URL, keeping the database after this test (a throwaway server
    /// deletes it at exit; on `DATABASE_URL`, the next run drops it).
    pub fn into_url(self) -> String {
        let url = self.url.clone();
        std::mem::forget(self);
        url
    }

    /// A connection to the database, for inspecting or sabotaging it.
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls)
            .unwrap_or_else(|error| panic!("connecting to {}: {error}", self.name))
    }

    /// Ends every other session on the database (the knowledge's own
    /// connections and listeners among them); how many were ended.
    pub fn terminate_other_sessions(&self) -> usize {
        let mut client = self.client();
        let rows = client
            .query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
                &[],
            )
            .expect("terminating sessions");
        rows.iter().filter(|row| row.get::<_, bool>(0)).count()
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let Ok(mut admin) = self.server.admin() {
            let _ = admin.batch_execute(&format!(
                "DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// A new, empty database for the calling test. If PostgreSQL cannot be had
/// here, the test fails, or, where `LEARNABLES_ALLOW_SKIP=postgres` allows
/// it, `None` after a loud `SKIPPED:` line.
pub fn fresh_database() -> Option<TestDatabase> {
    let Some(server) = server() else {
        skipped();
        return None;
    };
    Some(fresh_database_on(server))
}

/// A new, empty database on `server` (see [`own_server`]).
pub fn fresh_database_on(server: &'static Server) -> TestDatabase {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let name = format!(
        "learnables_test_{}_{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = server
        .admin()
        .unwrap_or_else(|error| panic!("connecting to the test server: {error}"));
    let mut attempts = 0;
    loop {
        match admin.batch_execute(&format!("CREATE DATABASE \"{name}\"")) {
            Ok(()) => break,
            // "source database is being accessed by other users": another
            // test is creating one from the same template right now.
            Err(error)
                if attempts < 40
                    && error.code() == Some(&postgres::error::SqlState::OBJECT_IN_USE) =>
            {
                attempts += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(error) => panic!("creating the database {name}: {error:?}"),
        }
    }
    TestDatabase {
        url: server.urls.of(&name),
        name,
        server,
    }
}

/// Fails the calling test, since it cannot run without PostgreSQL, unless
/// `LEARNABLES_ALLOW_SKIP=postgres` allows it to be skipped (then says so
/// loudly, past the test harness's output capture).
fn skipped() {
    let test = std::thread::current()
        .name()
        .unwrap_or("a PostgreSQL test")
        .to_owned();
    crate::skip::cannot_run(
        &test,
        "postgres",
        "no PostgreSQL here (DATABASE_URL is not set and no initdb was found under \
         /usr/lib/postgresql/*/bin or on the PATH); install PostgreSQL or set DATABASE_URL to \
         run it",
    );
}

impl Server {
    fn admin(&self) -> Result<postgres::Client, postgres::Error> {
        postgres::Client::connect(&self.admin_url, postgres::NoTls)
    }

    /// Drops the databases that earlier runs on a `DATABASE_URL` server left
    /// behind: those named after a process of this machine that has ended.
    fn drop_stale_databases(&self) {
        let Ok(mut admin) = self.admin() else { return };
        let Ok(rows) = admin.query(
            "SELECT datname FROM pg_database WHERE datname LIKE 'learnables\\_test\\_%'",
            &[],
        ) else {
            return;
        };
        for row in rows {
            let name: String = row.get(0);
            let pid = name.split('_').nth(2).unwrap_or_default();
            let ended = !pid.is_empty() && !Path::new("/proc").join(pid).exists();
            if ended && pid != std::process::id().to_string() {
                let _ = admin
                    .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
            }
        }
    }
}

/// The directory holding `initdb` and `pg_ctl`: the newest of
/// `/usr/lib/postgresql/*/bin`, else the one on the `PATH`.
fn binaries() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
    })
}

/// Whether this process runs as root.
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata("/proc/self").is_ok_and(|meta| meta.uid() == 0)
}

/// A command for one of PostgreSQL's programs, as the `postgres` user when
/// running as root.
fn pg_command(bin: &Path, program: &str, as_postgres: bool) -> Command {
    let program = bin.join(program);
    if as_postgres {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn run(mut command: Command, what: &str) {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|error| panic!("{what}: cannot run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Starts a throwaway server, and the watcher that ends it with this process.
#[allow(
    clippy::zombie_processes,
    reason = "the watcher must outlive this process, to stop the server after it"
)]
fn start(bin: &Path) -> Server {
    let as_postgres = running_as_root();
    let dir = tempfile::Builder::new()
        .prefix("learnables-pg-")
        .tempdir()
        .expect("a temporary directory for PostgreSQL")
        .keep();
    let data = dir.join("data");
    let log = dir.join("server.log");
    if as_postgres {
        let mut chown = Command::new("chown");
        chown.args(["-R", "postgres:postgres"]).arg(&dir);
        run(chown, "giving the data directory to the postgres user");
    }

    // The watcher first: whatever happens from here on, the server and its
    // directory go when this process does.
    let stop = pg_command(bin, "pg_ctl", as_postgres);
    let stop = format!(
        "{} -D '{}' -m immediate -w stop",
        shell_words(&stop),
        data.display()
    );
    let watcher = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "cat >/dev/null; {stop} >/dev/null 2>&1; rm -rf '{}'",
            dir.display()
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own process group: a Ctrl-C to the tests does not kill it
        // before it has stopped the server.
        .process_group(0)
        .spawn()
        .expect("starting the PostgreSQL watcher");

    let mut initdb = pg_command(bin, "initdb", as_postgres);
    initdb.arg("-D").arg(&data).args([
        "-A",
        "trust",
        "-U",
        "postgres",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
    ]);
    run(initdb, "initdb");

    let mut last_error = String::new();
    for _ in 0..5 {
        let port = free_port();
        let mut pg_ctl = pg_command(bin, "pg_ctl", as_postgres);
        pg_ctl
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(&log)
            .args(["-w", "-t", "60", "-o"])
            .arg(format!(
                "-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories='{}' \
                 -c max_connections=200",
                dir.display()
            ))
            .arg("start")
            .stdin(Stdio::null())
            .process_group(0);
        let output = pg_ctl.output().expect("running pg_ctl start");
        if output.status.success() {
            let base = format!("postgres://postgres@127.0.0.1:{port}");
            return Server {
                admin_url: format!("{base}/postgres"),
                urls: Urls::Url(format!("{base}/postgres")),
                _watcher: Some(watcher),
                throwaway: true,
                control: Some(Control {
                    bin: bin.to_owned(),
                    data,
                    as_postgres,
                }),
            };
        }
        last_error = format!(
            "{}{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }
    panic!("PostgreSQL did not start:\n{last_error}");
}

fn shell_words(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|word| format!("'{}'", word.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port on 127.0.0.1")
}
