//! TLS to the database, with rustls, as libpq's `sslmode` and
//! `sslrootcert` ask:
//!
//! | `sslmode` | TLS | certificate checked |
//! | --- | --- | --- |
//! | `disable` | never | - |
//! | `prefer` (the default) | if the server offers it | no |
//! | `require` | always | no; with `sslrootcert`, as `verify-ca` (as libpq does) |
//! | `verify-ca` | always | signed by the root certificate |
//! | `verify-full` | always | signed by the root certificate, for the host connected to |
//!
//! The root certificate is the PEM file `sslrootcert` names, else
//! `~/.postgresql/root.crt` (libpq's default); `verify-ca` and
//! `verify-full` without either are refused before connecting. The
//! PostgreSQL client library parses neither `verify-*` nor `sslrootcert`,
//! so both are taken out of the connection string first.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use postgres::config::SslMode as ClientSslMode;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};

mod stream;

pub(super) use stream::MakeRustlsConnect;

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// The TLS parameters of a connection string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TlsParams {
    pub(super) mode: SslMode,
    pub(super) root_cert: Option<PathBuf>,
}

/// Takes `sslmode` and `sslrootcert` out of a connection string (URL or
/// `key=value` form): the rest, for the client library, and the TLS
/// parameters. Errors say what is wrong without echoing the string.
pub(super) fn split_tls_params(url: &str) -> Result<(String, TlsParams), String> {
    let mut mode = None;
    let mut root_cert = None;
    let mut take = |key: &str, value: String| -> Result<bool, String> {
        match key {
            "sslmode" => {
                mode = Some(match value.as_str() {
                    "disable" => SslMode::Disable,
                    "prefer" => SslMode::Prefer,
                    "require" => SslMode::Require,
                    "verify-ca" => SslMode::VerifyCa,
                    "verify-full" => SslMode::VerifyFull,
                    _ => {
                        return Err(
                            "its sslmode must be disable, prefer, require, verify-ca or \
                             verify-full"
                                .to_owned(),
                        );
                    }
                });
                Ok(true)
            }
            "sslrootcert" => {
                root_cert = Some(PathBuf::from(value));
                Ok(true)
            }
            _ => Ok(false),
        }
    };
    let rest = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        match url.split_once('?') {
            None => url.to_owned(),
            Some((base, query)) => {
                let mut kept = Vec::new();
                for pair in query.split('&') {
                    let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                    if !take(&percent_decoded(key)?, percent_decoded(value)?)? {
                        kept.push(pair);
                    }
                }
                if kept.is_empty() {
                    base.to_owned()
                } else {
                    format!("{base}?{}", kept.join("&"))
                }
            }
        }
    } else {
        let mut kept = String::new();
        for (key, value, text) in key_values(url)? {
            if !take(&key, value)? {
                kept.push_str(text);
                kept.push(' ');
            }
        }
        kept.trim_end().to_owned()
    };
    let mode = mode.unwrap_or(SslMode::Prefer);
    Ok((rest, TlsParams { mode, root_cert }))
}

fn percent_decoded(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text
                .get(index + 1..index + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                .ok_or("its query holds a malformed percent-encoding")?;
            decoded.push(hex);
            index += 3;
        } else {
            decoded.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(decoded).map_err(|_| "its query is not UTF-8 once decoded".to_owned())
}

/// The `key=value` pairs of a libpq connection string: each key, its value
/// (quotes and backslash escapes resolved) and its text as written.
fn key_values(text: &str) -> Result<Vec<(String, String, &str)>, String> {
    let mut pairs = Vec::new();
    let mut chars = text.char_indices().peekable();
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(start, _)) = chars.peek() else {
            return Ok(pairs);
        };
        let mut key = String::new();
        while let Some((_, c)) = chars.next_if(|(_, c)| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        if chars.next_if(|(_, c)| *c == '=').is_none() {
            return Err(format!("its parameter `{key}` has no `=`"));
        }
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        let quoted = chars.next_if(|(_, c)| *c == '\'').is_some();
        let mut end = text.len();
        loop {
            let Some((at, c)) = chars.next() else {
                if quoted {
                    return Err(format!("the value of `{key}` has no closing quote"));
                }
                break;
            };
            match c {
                '\\' => match chars.next() {
                    Some((_, escaped)) => value.push(escaped),
                    None => return Err(format!("the value of `{key}` ends with a backslash")),
                },
                '\'' if quoted => {
                    end = at + 1;
                    break;
                }
                c if c.is_whitespace() && !quoted => {
                    end = at;
                    break;
                }
                c => value.push(c),
            }
        }
        pairs.push((key, value, &text[start..end]));
    }
}

/// The rustls crypto provider TLS uses: the process's default, installed
/// first by the feature `rustls-aws-lc-rs` (or else `rustls-ring`) when it
/// is on and the application installed none.
pub(super) fn provider() -> Result<Arc<CryptoProvider>, String> {
    // Installing fails only when a provider is already installed: that one
    // is used.
    #[cfg(feature = "rustls-aws-lc-rs")]
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    #[cfg(all(feature = "rustls-ring", not(feature = "rustls-aws-lc-rs")))]
    let _ = rustls::crypto::ring::default_provider().install_default();
    CryptoProvider::get_default().cloned().ok_or_else(|| {
        "TLS needs a rustls crypto provider and none is installed: install one at the \
         start of the program (`rustls::crypto::aws_lc_rs::default_provider().install_default()` \
         or the same for `ring`), or turn on the learnables feature `rustls-aws-lc-rs` or \
         `rustls-ring`; or connect with sslmode=disable"
            .to_string()
    })
}

/// The client's own TLS mode and the connector for `params`: none for
/// `sslmode=disable`, which needs no crypto provider.
pub(super) fn connector(
    params: &TlsParams,
) -> Result<(ClientSslMode, Option<MakeRustlsConnect>), String> {
    if params.mode == SslMode::Disable {
        return Ok((ClientSslMode::Disable, None));
    }
    let roots = match (params.mode, &params.root_cert) {
        (SslMode::VerifyCa | SslMode::VerifyFull, None) => match default_root_cert() {
            Some(path) => Some(root_store(&path)?),
            None => {
                return Err(format!(
                    "sslmode={} needs the certificate of the authority that signed the \
                     server's: give sslrootcert=PATH (a PEM file), or put it in \
                     ~/.postgresql/root.crt",
                    if params.mode == SslMode::VerifyCa {
                        "verify-ca"
                    } else {
                        "verify-full"
                    }
                ));
            }
        },
        (SslMode::Disable | SslMode::Prefer, _) => None,
        (_, Some(path)) => Some(root_store(path)?),
        (SslMode::Require, None) => None,
    };
    let provider = match (provider(), params.mode) {
        (Ok(provider), _) => provider,
        // `prefer` is libpq's default: a libpq or a client library built
        // without TLS connects in clear under it, and so does this one when
        // the application installed no provider, saying so.
        (Err(_), SslMode::Prefer) => {
            tracing::warn!(
                "PostgreSQL: no rustls crypto provider is installed, so sslmode=prefer connects                  without TLS; install one (or turn on the learnables feature `rustls-aws-lc-rs`                  or `rustls-ring`) for TLS, or give sslmode=require to refuse a connection in clear"
            );
            return Ok((ClientSslMode::Disable, None));
        }
        (Err(error), _) => return Err(error),
    };
    let verifier: Arc<dyn ServerCertVerifier> = match roots {
        None => Arc::new(AnyCertificate(provider.clone())),
        Some(roots) => {
            let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
                .build()
                .map_err(|error| format!("its root certificate cannot be used: {error}"))?;
            if params.mode == SslMode::VerifyFull {
                webpki
            } else {
                Arc::new(AnyName(webpki))
            }
        }
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("TLS cannot be set up: {error}"))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    let mode = match params.mode {
        SslMode::Disable => ClientSslMode::Disable,
        SslMode::Prefer => ClientSslMode::Prefer,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => ClientSslMode::Require,
    };
    Ok((mode, Some(MakeRustlsConnect::new(config))))
}

fn default_root_cert() -> Option<PathBuf> {
    let path = Path::new(&std::env::var_os("HOME")?).join(".postgresql/root.crt");
    path.is_file().then_some(path)
}

fn root_store(path: &Path) -> Result<Arc<RootCertStore>, String> {
    let unreadable = |why: String| {
        format!(
            "its root certificate {} cannot be read: {why}",
            path.display()
        )
    };
    let mut roots = RootCertStore::empty();
    for certificate in
        CertificateDer::pem_file_iter(path).map_err(|error| unreadable(error.to_string()))?
    {
        let certificate = certificate.map_err(|error| unreadable(error.to_string()))?;
        roots
            .add(certificate)
            .map_err(|error| unreadable(error.to_string()))?;
    }
    if roots.is_empty() {
        return Err(unreadable("it holds no PEM certificate".to_owned()));
    }
    Ok(Arc::new(roots))
}

/// `prefer` and `require` without a root certificate: encrypted, but the
/// certificate is not checked (as libpq does). The handshake's signatures
/// are still checked, so the session is with whoever holds the key.
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain up to the root certificate is checked, the host
/// name is not.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(mode: SslMode, root_cert: Option<&str>) -> TlsParams {
        TlsParams {
            mode,
            root_cert: root_cert.map(PathBuf::from),
        }
    }

    #[test]
    fn tls_parameters_are_taken_out_of_urls() {
        let (rest, tls) = split_tls_params(
            "postgres://agent:pw@db:5432/k?sslmode=verify-full&application_name=x&sslrootcert=%2Ftmp%2Fca.pem",
        )
        .unwrap();
        assert_eq!(rest, "postgres://agent:pw@db:5432/k?application_name=x");
        assert_eq!(tls, params(SslMode::VerifyFull, Some("/tmp/ca.pem")));
        let (rest, tls) = split_tls_params("postgresql://db/k").unwrap();
        assert_eq!(rest, "postgresql://db/k");
        assert_eq!(tls, params(SslMode::Prefer, None));
        let (rest, tls) = split_tls_params("postgres://db/k?sslmode=require").unwrap();
        assert_eq!(rest, "postgres://db/k");
        assert_eq!(tls, params(SslMode::Require, None));
    }

    #[test]
    fn tls_parameters_are_taken_out_of_key_value_strings() {
        let (rest, tls) = split_tls_params(
            "host=db user=agent sslmode = verify-ca sslrootcert='/a path/ca\\'s.pem' dbname=k",
        )
        .unwrap();
        assert_eq!(rest, "host=db user=agent dbname=k");
        assert_eq!(tls, params(SslMode::VerifyCa, Some("/a path/ca's.pem")));
        let (_, tls) = split_tls_params("host=db sslmode=disable").unwrap();
        assert_eq!(tls.mode, SslMode::Disable);
    }

    #[test]
    fn unknown_modes_and_malformed_strings_are_refused() {
        let error = split_tls_params("postgres://db/k?sslmode=allow").unwrap_err();
        assert!(error.contains("disable, prefer, require"), "{error}");
        assert!(split_tls_params("host=db sslrootcert='/open").is_err());
        assert!(split_tls_params("postgres://db/k?sslrootcert=%zz").is_err());
    }

    #[test]
    fn disabled_tls_needs_no_crypto_provider() {
        let (mode, connector) = connector(&params(SslMode::Disable, None)).unwrap();
        assert_eq!(mode, ClientSslMode::Disable);
        assert!(connector.is_none());
    }

    /// Without a provider feature no test of this binary installs one, so
    /// the process has none: TLS is refused, saying how to get one.
    #[cfg(not(any(feature = "rustls-ring", feature = "rustls-aws-lc-rs")))]
    #[test]
    fn tls_without_an_installed_provider_is_refused_saying_how_to_install_one() {
        assert!(CryptoProvider::get_default().is_none());
        let error = connector(&params(SslMode::Require, None)).err().unwrap();
        assert!(error.contains("none is installed"), "{error}");
        assert!(error.contains("rustls-ring"), "{error}");
        assert!(error.contains("sslmode=disable"), "{error}");
    }

    /// `prefer` (libpq's default) without a provider connects in clear, as
    /// libpq built without TLS does; `require` still refuses.
    #[cfg(not(any(feature = "rustls-ring", feature = "rustls-aws-lc-rs")))]
    #[test]
    fn prefer_without_an_installed_provider_connects_in_clear() {
        assert!(CryptoProvider::get_default().is_none());
        let (mode, connector) = connector(&params(SslMode::Prefer, None)).unwrap();
        assert_eq!(mode, ClientSslMode::Disable);
        assert!(connector.is_none());
        let refused = super::connector(&params(SslMode::Require, None))
            .err()
            .unwrap();
        assert!(refused.contains("none is installed"), "{refused}");
    }

    /// With a provider feature on, the provider is installed on first use.
    #[cfg(any(feature = "rustls-ring", feature = "rustls-aws-lc-rs"))]
    #[test]
    fn a_provider_feature_installs_its_provider() {
        let (mode, connector) = connector(&params(SslMode::Require, None)).unwrap();
        assert_eq!(mode, ClientSslMode::Require);
        assert!(connector.is_some());
        assert!(CryptoProvider::get_default().is_some());
    }

    #[test]
    fn verifying_without_a_root_certificate_is_refused_before_connecting() {
        let missing = params(SslMode::VerifyFull, Some("/nonexistent/ca.pem"));
        let error = connector(&missing).err().unwrap();
        assert!(
            error.contains("/nonexistent/ca.pem cannot be read"),
            "{error}"
        );
    }
}
