//! Extension activation, as `a2a_extensions` reads it (the
//! `A2A-Extensions` request header), with the question Learnables asks of
//! it: did the request activate the Learnables extension?

use crate::EXTENSION_URI;

/// The extensions a request activated: `a2a_extensions`' activation (read
/// through it: `includes`, `uris`, `echo`), asked about Learnables.
///
/// The header's value is a comma-separated list of URIs; each is trimmed,
/// empty items are ignored, and several header lines count as one list.
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
pub struct Activation(a2a_extensions::Activation);

impl Activation {
    /// Reads every value of the `A2A-Extensions` header.
    pub fn from_header_values<'a, I>(values: I) -> Activation
    where
        I: IntoIterator<Item = &'a str>,
    {
        Activation(a2a_extensions::Activation::from_header_values(values))
    }

    /// The extensions a request's headers activate.
    #[cfg(feature = "server")]
    pub fn from_headers(headers: &axum::http::HeaderMap) -> Activation {
        Activation(a2a_extensions::Activation::from_headers(headers))
    }

    /// Whether the request activated the Learnables extension.
    pub fn learnables(&self) -> bool {
        self.0.includes(EXTENSION_URI)
    }

    /// The activation as `a2a_extensions` has it.
    pub fn into_inner(self) -> a2a_extensions::Activation {
        self.0
    }
}

impl std::ops::Deref for Activation {
    type Target = a2a_extensions::Activation;

    fn deref(&self) -> &a2a_extensions::Activation {
        &self.0
    }
}

impl From<a2a_extensions::Activation> for Activation {
    fn from(activation: a2a_extensions::Activation) -> Activation {
        Activation(activation)
    }
}

#[cfg(feature = "a2a-server")]
impl Activation {
    /// The extensions a request activated, from the SDK's service params
    /// (the request's headers on JSON-RPC and HTTP+JSON, its metadata on
    /// gRPC), as [`a2a_extensions::Activation::from_service_params`] reads
    /// them.
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
        Activation(a2a_extensions::Activation::from_service_params(params))
    }

    /// The extensions the request an executor is answering activated, on
    /// every binding the SDK serves (JSON-RPC, HTTP+JSON, gRPC): the SDK's
    /// handlers put the request's headers or metadata in the context's
    /// service params. `a2a_extensions::Activation::current` is not set
    /// there (the SDK runs executors on tasks of their own).
    pub fn of(context: &a2a_server::ExecutorContext) -> Activation {
        Activation::from_service_params(&context.service_params)
    }
}
