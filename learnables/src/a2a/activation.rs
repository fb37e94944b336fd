//! Extension activation. From A2A v1.0: the client lists the URIs of the
//! extensions it wants in the `A2A-Extensions` request header. From the
//! Learnables spec's activation profile (A2A's normative text has no echo):
//! the agent echoes the URI in the response's `A2A-Extensions` header when
//! the request activated it.

use crate::EXTENSION_URI;

/// The extensions a request activated.
///
/// The header's value is a comma-separated list of URIs; each is trimmed,
/// empty items are ignored, and several header lines count as one list.
/// (Header names are case-insensitive; `http::HeaderMap` already treats
/// them so, and callers pass every value of the header.)
///
/// ```
/// use learnables::a2a::Activation;
/// let activation = Activation::from_header_values([
///     "https://example.com/other/v2 , https://rsaxb.com/a2a/learnables/v1",
///     "",
/// ]);
/// assert!(activation.learnables());
/// assert_eq!(
///     activation.echo(&[learnables::EXTENSION_URI]).as_deref(),
///     Some("https://rsaxb.com/a2a/learnables/v1")
/// );
/// assert!(!Activation::default().learnables());
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

    /// Whether the request activated `uri`.
    pub fn includes(&self, uri: &str) -> bool {
        self.uris.iter().any(|activated| activated == uri)
    }

    /// Whether the request activated the Learnables extension.
    pub fn learnables(&self) -> bool {
        self.includes(EXTENSION_URI)
    }

    /// The URIs activated, in the order the client gave them.
    pub fn uris(&self) -> impl Iterator<Item = &str> {
        self.uris.iter().map(String::as_str)
    }

    /// The value of the response header the Learnables spec's profile
    /// asks for: the activated URIs among `supported`, comma-separated;
    /// `None` when there are none.
    pub fn echo(&self, supported: &[&str]) -> Option<String> {
        let echoed: Vec<&str> = self.uris().filter(|uri| supported.contains(uri)).collect();
        (!echoed.is_empty()).then(|| echoed.join(", "))
    }
}

/// [`ACTIVATION_HEADER`](crate::ACTIVATION_HEADER) as a header name, read
/// once: looked up by it, a header map need not check and lower-case the
/// name on every request.
#[cfg(feature = "server")]
pub(crate) static ACTIVATION_HEADER_NAME: std::sync::LazyLock<axum::http::HeaderName> =
    std::sync::LazyLock::new(|| {
        axum::http::HeaderName::from_bytes(crate::ACTIVATION_HEADER.as_bytes())
            .expect("a valid header name")
    });

#[cfg(feature = "server")]
impl Activation {
    /// The extensions a request's headers activate.
    pub fn from_headers(headers: &axum::http::HeaderMap) -> Activation {
        Activation::from_header_values(
            headers
                .get_all(&*ACTIVATION_HEADER_NAME)
                .iter()
                .filter_map(|value| value.to_str().ok()),
        )
    }
}

#[cfg(feature = "a2a-server")]
impl Activation {
    /// The extensions a request activated, from the SDK's service params
    /// (the request's headers).
    ///
    /// ```
    /// use learnables::a2a::Activation;
    /// let params = a2a_server::ServiceParams::from([(
    ///     "a2a-extensions".to_owned(),
    ///     vec![learnables::EXTENSION_URI.to_owned()],
    /// )]);
    /// assert!(Activation::from_service_params(&params).learnables());
    /// assert!(!Activation::from_service_params(&Default::default()).learnables());
    /// ```
    pub fn from_service_params(params: &a2a_server::ServiceParams) -> Activation {
        Activation::from_header_values(
            params
                .get("a2a-extensions")
                .into_iter()
                .flatten()
                .map(String::as_str),
        )
    }

    /// The extensions the request an executor is answering activated.
    pub fn of(context: &a2a_server::ExecutorContext) -> Activation {
        Activation::from_service_params(&context.service_params)
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
        let activation = Activation::from_header_values(["x, https://rsaxb.com/a2a/learnables/v1"]);
        assert_eq!(
            activation.echo(&["y"]),
            None,
            "nothing supported, nothing echoed"
        );
        assert!(activation.learnables());
    }

    #[test]
    fn a_near_miss_does_not_activate() {
        for value in [
            "https://rsaxb.com/a2a/learnables/v1/",
            "https://rsaxb.com/a2a/learnables/v2",
            "HTTPS://RSAXB.COM/A2A/LEARNABLES/V1",
            "https://rsaxb.com/a2a/learnables/v1;q=1",
        ] {
            assert!(
                !Activation::from_header_values([value]).learnables(),
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
