//! TLS to PostgreSQL, as libpq's `sslmode` and `sslrootcert` ask, against
//! a throwaway server of its own with a certificate made here for the test
//! (TLS is turned on for the whole server).

use learnables_tests::support::backend_suite;
use learnables_tests::support::postgres as postgres_harness;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use backend_suite::{registered, rule_lesson};
use learnables::Knowledge;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};

/// The certificates of one test run: the authority that signed the
/// server's, and another that did not, as PEM.
struct Certificates {
    right: String,
    wrong: String,
}

/// [`Certificates`] written to files for one test, in a directory removed
/// with it (a static's would outlive the process).
struct CaFiles {
    _dir: tempfile::TempDir,
    right_ca: PathBuf,
    wrong_ca: PathBuf,
}

impl Certificates {
    fn files(&self) -> CaFiles {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, pem: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, pem).unwrap();
            path
        };
        CaFiles {
            right_ca: write("right-ca.pem", &self.right),
            wrong_ca: write("wrong-ca.pem", &self.wrong),
            _dir: dir,
        }
    }
}

fn authority(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap()
}

/// A database on a throwaway server of these tests' own (TLS is turned on
/// for the whole server) with TLS on, whose certificate names `127.0.0.1`
/// only; `None` where PostgreSQL cannot be had (or is given by
/// `DATABASE_URL`, whose TLS this test cannot set up).
fn tls_database() -> Option<(postgres_harness::TestDatabase, CaFiles)> {
    static CERTIFICATES: OnceLock<Option<(&postgres_harness::Server, Certificates)>> =
        OnceLock::new();
    let (server, certificates) = CERTIFICATES
        .get_or_init(|| {
            let server = postgres_harness::own_server()?;
            let right = authority("learnables test CA");
            let wrong = authority("someone else's CA");
            let key = KeyPair::generate().unwrap();
            let mut params = CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
            params
                .distinguished_name
                .push(DnType::CommonName, "learnables test server");
            let certificate = params.signed_by(&key, &right).unwrap();
            if !server.enable_tls(&certificate.pem(), &key.serialize_pem()) {
                println!("SKIPPED: the server given by DATABASE_URL is not set up for TLS here");
                return None;
            }
            Some((
                server,
                Certificates {
                    right: right.pem(),
                    wrong: wrong.pem(),
                },
            ))
        })
        .as_ref()?;
    let database = postgres_harness::fresh_database_on(server);
    Some((database, certificates.files()))
}

/// `url` with more query parameters.
fn with(url: &str, params: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}{params}")
}

fn root(path: &Path) -> String {
    format!("sslrootcert={}", path.display())
}

/// Whether the knowledge's own session is encrypted.
fn encrypted(database: &postgres_harness::TestDatabase) -> bool {
    let mut client = database.client();
    let rows = client
        .query(
            "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
             WHERE a.datname = current_database() AND a.application_name = 'learnables'",
            &[],
        )
        .unwrap();
    !rows.is_empty() && rows.iter().all(|row| row.get::<_, bool>(0))
}

#[test]
fn verify_full_with_the_right_authority_connects_encrypted_and_teaches() {
    let Some((database, certificates)) = tls_database() else {
        return;
    };
    let url = with(
        database.url(),
        &format!("sslmode=verify-full&{}", root(&certificates.right_ca)),
    );
    let knowledge = registered(Knowledge::connect(&url).unwrap());
    assert!(
        knowledge
            .teach(&rule_lesson("84", "general"))
            .unwrap()
            .learned
    );
    assert!(
        encrypted(&database),
        "every session of the knowledge uses TLS"
    );
    // A replica connected the same way sees the lesson.
    let replica = registered(Knowledge::connect(&url).unwrap());
    assert_eq!(replica.history("routing_rules").len(), 1);
}

#[test]
fn verify_full_with_another_authority_is_refused_clearly() {
    let Some((database, certificates)) = tls_database() else {
        return;
    };
    for mode in ["verify-full", "verify-ca", "require"] {
        let url = with(
            database.url(),
            &format!("sslmode={mode}&{}", root(&certificates.wrong_ca)),
        );
        let message = Knowledge::connect(&url).unwrap_err().to_string();
        assert!(message.contains("cannot be opened"), "{mode}: {message}");
        assert!(message.contains("TLS"), "{mode}: {message}");
        assert!(message.contains("UnknownIssuer"), "{mode}: {message}");
    }
}

#[test]
fn verify_full_checks_the_host_name_and_verify_ca_does_not() {
    let Some((database, certificates)) = tls_database() else {
        return;
    };
    // The certificate names 127.0.0.1, not localhost.
    let by_name = database.url().replacen("127.0.0.1", "localhost", 1);
    let ca = root(&certificates.right_ca);
    let message = Knowledge::connect(&with(&by_name, &format!("sslmode=verify-full&{ca}")))
        .unwrap_err()
        .to_string();
    assert!(message.contains("not valid for name"), "{message}");
    Knowledge::connect(&with(&by_name, &format!("sslmode=verify-ca&{ca}"))).unwrap();
}

#[test]
fn require_and_prefer_encrypt_without_checking_the_certificate() {
    let Some((database, _)) = tls_database() else {
        return;
    };
    for mode in ["require", "prefer"] {
        let knowledge = Knowledge::connect(&with(database.url(), &format!("sslmode={mode}")));
        let knowledge = registered(knowledge.unwrap());
        knowledge.teach(&rule_lesson("85", "general")).unwrap();
        assert!(encrypted(&database), "{mode}");
    }
}

#[test]
fn disable_connects_in_plain_text() {
    let Some((database, _)) = tls_database() else {
        return;
    };
    let knowledge = Knowledge::connect(&with(database.url(), "sslmode=disable")).unwrap();
    drop(registered(knowledge.clone()));
    assert!(!encrypted(&database));
}

#[test]
fn verifying_without_a_root_certificate_is_refused_before_connecting() {
    let Some((database, _)) = tls_database() else {
        return;
    };
    let message = Knowledge::connect(&with(
        database.url(),
        "sslmode=verify-full&sslrootcert=/nonexistent/ca.pem",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        message.contains("/nonexistent/ca.pem cannot be read"),
        "{message}"
    );
}

/// SCRAM over TLS binds the session to the server's certificate (SCRAM's
/// `tls-server-end-point` channel binding): a role the server makes
/// authenticate with a SCRAM password connects with
/// `channel_binding=require`, which the client library allows only when
/// the server took the certificate's hash the client sent, and teaches.
#[test]
fn scram_over_tls_binds_the_channel_to_the_certificate() {
    let Some((database, certificates)) = tls_database() else {
        return;
    };
    const ROLE: &str = "learnables_scram";
    const PASSWORD: &str = "scram over tls";
    let mut admin = database.client();
    admin
        .batch_execute(&format!(
            "DO $$ BEGIN \
               IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{ROLE}') THEN \
                 SET password_encryption = 'scram-sha-256'; \
                 CREATE ROLE {ROLE} LOGIN SUPERUSER PASSWORD '{PASSWORD}'; \
               END IF; \
             END $$"
        ))
        .unwrap();
    // Only this role, only over TLS, with SCRAM: every other line (trust)
    // stays for the other tests.
    let hba_file: String = admin.query_one("SHOW hba_file", &[]).unwrap().get(0);
    let hba = std::fs::read_to_string(&hba_file).unwrap();
    let line = format!("hostssl all {ROLE} 127.0.0.1/32 scram-sha-256\n");
    if !hba.starts_with(&line) {
        std::fs::write(&hba_file, format!("{line}{hba}")).unwrap();
        admin.batch_execute("SELECT pg_reload_conf()").unwrap();
    }
    let url = database
        .url()
        .replacen("postgres@", &format!("{ROLE}:scram%20over%20tls@"), 1);
    let url = with(
        &url,
        &format!(
            "sslmode=verify-full&{}&channel_binding=require",
            root(&certificates.right_ca)
        ),
    );
    // The reload is a signal: the server may still take the old rules
    // (trust, no SCRAM, which `channel_binding=require` refuses) for a moment.
    let mut connected = Knowledge::connect(&url);
    for _ in 0..500 {
        if connected.is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        connected = Knowledge::connect(&url);
    }
    let knowledge = registered(connected.unwrap());
    assert!(
        knowledge
            .teach(&rule_lesson("86", "general"))
            .unwrap()
            .learned
    );
}
