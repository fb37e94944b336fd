//! The client library's TLS over rustls: a connector per connection and
//! its stream, which gives SCRAM's `tls-server-end-point` channel binding
//! (RFC 5929): the hash of the server's certificate.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};
use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use sha2::{Digest as _, Sha256, Sha384, Sha512};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_rustls::TlsConnector;

/// Makes the TLS connector of each connection the client library opens.
#[derive(Clone)]
pub(crate) struct MakeRustlsConnect {
    config: Arc<ClientConfig>,
}

impl MakeRustlsConnect {
    pub(crate) fn new(config: ClientConfig) -> MakeRustlsConnect {
        MakeRustlsConnect {
            config: Arc::new(config),
        }
    }
}

impl<S> MakeTlsConnect<S> for MakeRustlsConnect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type TlsConnect = RustlsConnect;
    type Error = std::convert::Infallible;

    /// The host name is checked only when TLS starts: the client library
    /// makes a connector for a Unix socket too (with an empty name), and
    /// never uses it.
    fn make_tls_connect(&mut self, hostname: &str) -> Result<RustlsConnect, Self::Error> {
        Ok(RustlsConnect {
            hostname: hostname.to_owned(),
            connector: TlsConnector::from(Arc::clone(&self.config)),
        })
    }
}

/// The TLS handshake of one connection, with the host it was made for.
pub(crate) struct RustlsConnect {
    hostname: String,
    connector: TlsConnector,
}

impl<S> TlsConnect<S> for RustlsConnect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<RustlsStream<S>>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let name = ServerName::try_from(self.hostname)
                .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
            let stream = self.connector.connect(name, stream).await?;
            Ok(RustlsStream(stream))
        })
    }
}

/// A connection's TLS stream.
pub(crate) struct RustlsStream<S>(tokio_rustls::client::TlsStream<S>);

impl<S> TlsStream for RustlsStream<S>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    fn channel_binding(&self) -> ChannelBinding {
        let (_, session) = self.0.get_ref();
        session
            .peer_certificates()
            .and_then(<[_]>::first)
            .and_then(|certificate| end_point_hash(certificate))
            .map_or_else(ChannelBinding::none, ChannelBinding::tls_server_end_point)
    }
}

impl<S> AsyncRead for RustlsStream<S>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_read(cx, buf)
    }
}

impl<S> AsyncWrite for RustlsStream<S>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().0).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().0).poll_shutdown(cx)
    }
}

/// The digests `tls-server-end-point` hashes a certificate with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EndPointDigest {
    Sha256,
    Sha384,
    Sha512,
}

/// The `tls-server-end-point` value of `certificate` (DER): its hash by
/// the digest of its signature algorithm, SHA-256 for MD5 and SHA-1 (RFC
/// 5929 section 4.1), as the server computes it; `None` for a
/// certificate that cannot be read or is signed without a digest of its
/// own (Ed25519, RSASSA-PSS), for which there is no binding.
fn end_point_hash(certificate: &[u8]) -> Option<Vec<u8>> {
    Some(match end_point_digest(signature_algorithm(certificate)?)? {
        EndPointDigest::Sha256 => Sha256::digest(certificate).to_vec(),
        EndPointDigest::Sha384 => Sha384::digest(certificate).to_vec(),
        EndPointDigest::Sha512 => Sha512::digest(certificate).to_vec(),
    })
}

/// The digest of a signature algorithm, by the content octets of its DER
/// object identifier.
fn end_point_digest(algorithm: &[u8]) -> Option<EndPointDigest> {
    /// 1.2.840.113549.1.1: PKCS #1, whose last arc names the RSA signature.
    const PKCS1: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01];
    /// 1.2.840.10045.4: ECDSA signatures.
    const ECDSA: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04];
    if let Some(last) = algorithm.strip_prefix(PKCS1) {
        return match last {
            // md5-, sha1- and sha256WithRSAEncryption
            [0x04 | 0x05 | 0x0b] => Some(EndPointDigest::Sha256),
            [0x0c] => Some(EndPointDigest::Sha384),
            [0x0d] => Some(EndPointDigest::Sha512),
            _ => None,
        };
    }
    match algorithm.strip_prefix(ECDSA)? {
        // ecdsa-with-SHA1 (4.1), ecdsa-with-SHA256 (4.3.2)
        [0x01] | [0x03, 0x02] => Some(EndPointDigest::Sha256),
        [0x03, 0x03] => Some(EndPointDigest::Sha384),
        [0x03, 0x04] => Some(EndPointDigest::Sha512),
        _ => None,
    }
}

/// The object identifier (its content octets) of the `signatureAlgorithm`
/// of a DER certificate (RFC 5280 section 4.1):
/// `SEQUENCE { tbsCertificate SEQUENCE, signatureAlgorithm SEQUENCE {
/// algorithm OBJECT IDENTIFIER, ... }, signatureValue BIT STRING }`.
fn signature_algorithm(certificate: &[u8]) -> Option<&[u8]> {
    const SEQUENCE: u8 = 0x30;
    const OBJECT_IDENTIFIER: u8 = 0x06;
    let (certificate, _) = der_element(certificate, SEQUENCE)?;
    let (_to_be_signed, rest) = der_element(certificate, SEQUENCE)?;
    let (algorithm, _) = der_element(rest, SEQUENCE)?;
    let (identifier, _) = der_element(algorithm, OBJECT_IDENTIFIER)?;
    Some(identifier)
}

/// The first DER element of `input` if it has the one-byte tag `tag`: its
/// contents and what follows it; `None` for anything else, a length past
/// the end included.
fn der_element(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&found, rest) = input.split_first()?;
    if found != tag {
        return None;
    }
    let (&length, rest) = rest.split_first()?;
    let (length, rest) = if length < 0x80 {
        (usize::from(length), rest)
    } else {
        // The long form: this many bytes of length follow (at most four:
        // no certificate is 4 GiB).
        let count = usize::from(length & 0x7f);
        if count == 0 || count > 4 {
            return None;
        }
        let (bytes, rest) = rest.split_at_checked(count)?;
        let length = bytes
            .iter()
            .fold(0_u64, |length, &byte| length << 8 | u64::from(byte));
        (usize::try_from(length).ok()?, rest)
    };
    rest.split_at_checked(length)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DER element of `tag` around `contents`, in the short or the long
    /// length form.
    fn element(tag: u8, contents: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        match u8::try_from(contents.len()) {
            Ok(length) if length < 0x80 => out.push(length),
            _ => {
                let length = u32::try_from(contents.len()).unwrap().to_be_bytes();
                out.push(0x84);
                out.extend_from_slice(&length);
            }
        }
        out.extend_from_slice(contents);
        out
    }

    /// A certificate's shape around a signature algorithm's identifier,
    /// with a `tbsCertificate` of `filler` bytes.
    fn certificate(algorithm: &[u8], filler: usize) -> Vec<u8> {
        let to_be_signed = element(0x30, &vec![0x02; filler]);
        let mut algorithm = element(0x06, algorithm);
        algorithm.extend_from_slice(&[0x05, 0x00]);
        let mut body = to_be_signed;
        body.extend(element(0x30, &algorithm));
        body.extend(element(0x03, &[0x00, 0xaa, 0xbb]));
        element(0x30, &body)
    }

    const SHA256_WITH_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b];
    const ECDSA_WITH_SHA384: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03];
    const SHA512_WITH_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0d];
    const ED25519: &[u8] = &[0x2b, 0x65, 0x70];

    #[test]
    fn the_certificate_is_hashed_by_the_digest_of_its_signature() {
        // A tbsCertificate of 300 bytes takes the long length form.
        let rsa = certificate(SHA256_WITH_RSA, 300);
        assert_eq!(end_point_hash(&rsa), Some(Sha256::digest(&rsa).to_vec()));
        let ecdsa = certificate(ECDSA_WITH_SHA384, 10);
        assert_eq!(
            end_point_hash(&ecdsa),
            Some(Sha384::digest(&ecdsa).to_vec())
        );
        let rsa512 = certificate(SHA512_WITH_RSA, 10);
        assert_eq!(
            end_point_hash(&rsa512),
            Some(Sha512::digest(&rsa512).to_vec())
        );
        // MD5 and SHA-1 are raised to SHA-256.
        let sha1 = certificate(&[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x05], 10);
        assert_eq!(end_point_hash(&sha1), Some(Sha256::digest(&sha1).to_vec()));
    }

    #[test]
    fn a_signature_without_a_digest_of_its_own_gives_no_binding() {
        assert_eq!(end_point_hash(&certificate(ED25519, 10)), None);
        // RSASSA-PSS names its digest in its parameters, not its identifier.
        let pss = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a];
        assert_eq!(end_point_hash(&certificate(&pss, 10)), None);
    }

    #[test]
    fn malformed_certificates_give_no_binding_and_no_panic() {
        let good = certificate(SHA256_WITH_RSA, 300);
        for end in 0..good.len() {
            assert_eq!(end_point_hash(&good[..end]), None, "cut at {end}");
        }
        for input in [
            &[][..],
            &[0x30],
            &[0x30, 0x80],
            &[0x30, 0x85, 1, 2, 3, 4, 5],
            &[0x30, 0x84, 0xff, 0xff, 0xff, 0xff],
            &[0x31, 0x00],
            &[0x30, 0x02, 0x30, 0x00],
        ] {
            assert_eq!(end_point_hash(input), None, "{input:?}");
        }
    }
}
