//! Extension activation. From A2A v1.0: the client lists the URIs of the
//! extensions it wants in the `A2A-Extensions` request header. The agent
//! echoes in the response's `A2A-Extensions` header the URIs it served
//! (as extension specifications such as Learnables' activation profile ask;
//! A2A's normative text has no echo).

use std::collections::HashMap;
use std::hash::BuildHasher;

use http::{HeaderMap, HeaderName};

/// The header that lists the extensions a request activates, and that a
/// response echoes.
pub const ACTIVATION_HEADER: HeaderName = HeaderName::from_static("a2a-extensions");

#[cfg(feature = "layer")]
tokio::task_local! {
    /// The activation of the request the host is answering, while the
    /// layer's host answers it.
    static CURRENT: Activation;
}

/// The extensions a request activated.
///
/// The header's value is a comma-separated list of URIs; each is trimmed,
/// empty items are ignored, and several header lines count as one list.
/// (Header names are case-insensitive; `http::HeaderMap` already treats
/// them so, and callers pass every value of the header.)
///
/// ```
/// use a2a_extensions::Activation;
/// let activation = Activation::from_header_values([
///     "https://example.com/other/v2 , https://example.com/a2a/ext/v1",
///     "",
/// ]);
/// assert!(activation.includes("https://example.com/a2a/ext/v1"));
/// assert_eq!(
///     activation.echo(&["https://example.com/a2a/ext/v1"]).as_deref(),
///     Some("https://example.com/a2a/ext/v1")
/// );
/// assert!(!Activation::default().includes("https://example.com/a2a/ext/v1"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Activation {
    uris: Vec<String>,
}

/// The most URIs one request may activate; the rest are ignored.
const MAX_URIS: usize = 64;

impl Activation {
    /// Reads every value of the `A2A-Extensions` header.
    pub fn from_header_values<'a, I>(values: I) -> Activation
    where
        I: IntoIterator<Item = &'a str>,
    {
        let mut uris: Vec<String> = Vec::new();
        for uri in values
            .into_iter()
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .filter(|uri| !uri.is_empty())
        {
            if uris.len() == MAX_URIS {
                break;
            }
            if !uris.iter().any(|known| known == uri) {
                uris.push(uri.to_owned());
            }
        }
        Activation { uris }
    }

    /// The extensions a request's headers activate.
    ///
    /// ```
    /// use a2a_extensions::{ACTIVATION_HEADER, Activation};
    /// let mut headers = http::HeaderMap::new();
    /// headers.append(ACTIVATION_HEADER, "https://example.com/a2a/ext/v1".parse().unwrap());
    /// assert!(Activation::from_headers(&headers).includes("https://example.com/a2a/ext/v1"));
    /// ```
    pub fn from_headers(headers: &HeaderMap) -> Activation {
        Activation::from_header_values(
            headers
                .get_all(ACTIVATION_HEADER)
                .iter()
                .filter_map(|value| value.to_str().ok()),
        )
    }

    /// The extensions a request activated, from the service params an A2A
    /// SDK's request handler gives its executor (`a2a-server-lf`'s
    /// `ExecutorContext::service_params`: the request's HTTP headers on
    /// JSON-RPC and HTTP+JSON, its metadata on gRPC): the one call an
    /// executor makes, whatever the binding, to decide whether to add an
    /// extension's metadata. Keys are compared without regard to case.
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use a2a_extensions::Activation;
    /// let params = HashMap::from([(
    ///     "a2a-extensions".to_owned(),
    ///     vec!["https://example.com/a2a/ext/v1".to_owned()],
    /// )]);
    /// assert!(Activation::from_service_params(&params).includes("https://example.com/a2a/ext/v1"));
    /// assert!(!Activation::from_service_params(&HashMap::new()).includes("https://example.com/a2a/ext/v1"));
    /// ```
    pub fn from_service_params<S: BuildHasher>(
        params: &HashMap<String, Vec<String>, S>,
    ) -> Activation {
        Activation::from_header_values(
            params
                .iter()
                .filter(|(key, _)| key.eq_ignore_ascii_case(ACTIVATION_HEADER.as_str()))
                .flat_map(|(_, values)| values.iter().map(String::as_str)),
        )
    }

    /// Whether the request activated `uri`.
    pub fn includes(&self, uri: &str) -> bool {
        self.uris.iter().any(|activated| activated == uri)
    }

    /// The URIs activated, in the order the client gave them.
    pub fn uris(&self) -> impl Iterator<Item = &str> {
        self.uris.iter().map(String::as_str)
    }

    /// The value of the echo: the activated URIs among `supported`,
    /// comma-separated; `None` when there are none.
    pub fn echo(&self, supported: &[&str]) -> Option<String> {
        let echoed: Vec<&str> = self.uris().filter(|uri| supported.contains(uri)).collect();
        (!echoed.is_empty()).then(|| echoed.join(", "))
    }
}

#[cfg(feature = "layer")]
impl Activation {
    /// The activation of the request the host behind an
    /// [`ExtensionLayer`](crate::ExtensionLayer) is answering, when called
    /// from code that runs in that request's own task (an axum handler of
    /// the host's, a middleware under the layer); `None` outside it.
    ///
    /// It is `None` in an executor under the A2A SDK's
    /// `DefaultRequestHandler`, which runs the executor on a task of its
    /// own, on every binding: an executor asks
    /// [`Activation::from_service_params`] with its context's
    /// `service_params` instead. The gRPC layer sets none.
    ///
    /// ```
    /// assert_eq!(a2a_extensions::Activation::current(), None);
    /// ```
    pub fn current() -> Option<Activation> {
        CURRENT.try_with(Activation::clone).ok()
    }

    /// Runs `future` with `self` as [`Activation::current`].
    pub(crate) async fn scope<F: Future>(self, future: F) -> F::Output {
        CURRENT.scope(self, future).await
    }
}

/// Adds `uri` to the `A2A-Extensions` header of a response's `headers`,
/// keeping what the host echoed.
#[cfg(any(feature = "layer", feature = "grpc"))]
pub(crate) fn add_echo(headers: &mut HeaderMap, uri: &str) {
    let echoed = Activation::from_headers(headers);
    if echoed.uris().next().is_none() {
        if let Ok(value) = http::HeaderValue::from_str(uri) {
            headers.insert(ACTIVATION_HEADER, value);
        }
    } else if !echoed.includes(uri) {
        let mut uris: Vec<&str> = echoed.uris().collect();
        uris.push(uri);
        if let Ok(value) = http::HeaderValue::from_str(&uris.join(", ")) {
            headers.insert(ACTIVATION_HEADER, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_split_trimmed_and_deduplicated() {
        let activation = Activation::from_header_values([" a ,b,,", "b, c"]);
        assert_eq!(activation.uris().collect::<Vec<_>>(), ["a", "b", "c"]);
    }

    #[test]
    fn only_supported_uris_are_echoed() {
        let activation = Activation::from_header_values(["x, https://example.com/a2a/ext/v1"]);
        assert_eq!(
            activation.echo(&["y"]),
            None,
            "nothing supported, nothing echoed"
        );
        assert!(activation.includes(crate::TEST_URI));
    }

    #[test]
    fn a_near_miss_does_not_activate() {
        for value in [
            "https://example.com/a2a/ext/v1/",
            "https://example.com/a2a/ext/v2",
            "HTTPS://RSAXB.COM/A2A/LEARNABLES/V1",
            "https://example.com/a2a/ext/v1;q=1",
        ] {
            assert!(
                !Activation::from_header_values([value]).includes(crate::TEST_URI),
                "{value}"
            );
        }
    }

    #[test]
    fn a_flood_of_uris_is_capped() {
        let many = (0..1000)
            .map(|i| format!("u{i}"))
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(
            Activation::from_header_values([many.as_str()])
                .uris()
                .count(),
            MAX_URIS
        );
    }
}
