//! The one admission path of the learnables methods: `a2a_extensions`'
//! admission with Learnables as the extension, for the layer and for a
//! caller that holds a request itself.

use a2a_extensions::{Admission, Extension};
#[cfg(feature = "server")]
use serde_json::Value;

use super::LearnablesService;
use super::methods::Method;

impl LearnablesService {
    /// The one admission path of the learnables methods, `a2a_extensions`'
    /// (the layer's, and this service's `call`): the body's size and
    /// nesting, `A2A-Version`, the method, the extension's activation.
    ///
    /// ```
    /// use learnables::a2a::{LearnablesService, Tokens};
    /// use learnables::{Declaration, EXTENSION_URI, Knowledge, TEACH_METHOD};
    /// let service =
    ///     LearnablesService::new(Knowledge::in_memory(), Declaration::new(), Tokens::new());
    /// let admission = service.admission();
    /// assert_eq!(admission.extension().uri(), EXTENSION_URI);
    /// assert!(!admission.extension().serves(TEACH_METHOD));
    /// ```
    pub fn admission(&self) -> Admission {
        let mut extension = Extension::new(crate::EXTENSION_URI).named("Learnables");
        for method in Method::served(self) {
            extension = extension.method(method);
        }
        Admission::new(extension).with_limits(self.limits())
    }

    /// The Learnables extension on A2A's gRPC binding (feature `grpc`): the
    /// layer for a tonic server (the SDK's `a2a-grpc` over the same request
    /// handler as its JSON-RPC router) that reads activation from the
    /// `a2a-extensions` metadata, echoes it, and keeps teach blocks and the
    /// extension's URI from every answer to a gRPC client that did not
    /// activate. The learnables methods are JSON-RPC methods: the card
    /// says where.
    ///
    /// ```
    /// use learnables::a2a::{LearnablesService, Tokens};
    /// use learnables::{Declaration, EXTENSION_URI, Knowledge};
    /// let service =
    ///     LearnablesService::new(Knowledge::in_memory(), Declaration::new(), Tokens::new());
    /// assert_eq!(service.grpc_layer().extension().uri(), EXTENSION_URI);
    /// ```
    #[cfg(feature = "grpc")]
    pub fn grpc_layer(&self) -> super::GrpcExtensionLayer {
        super::GrpcExtensionLayer::new(self.admission().extension().clone())
    }

    /// [`LearnablesService::call`] for a caller that holds a request's
    /// headers and body (a transport other than the layer's): the very
    /// admission the layer applies (body size and nesting, `A2A-Version`,
    /// method, activation), then the same answer. The bearer token is the
    /// `Authorization` header's.
    ///
    /// ```
    /// use axum::http::HeaderMap;
    /// use learnables::a2a::{LearnablesService, Tokens};
    /// use learnables::{Declaration, Knowledge, TEACH_METHOD};
    /// let service = LearnablesService::new(
    ///     Knowledge::in_memory(),
    ///     Declaration::new().teach_method(TEACH_METHOD),
    ///     Tokens::new(),
    /// );
    /// let body = br#"{"jsonrpc": "2.0", "id": 1, "method": "rsaxb.learnables.Teach"}"#;
    /// let response = service.call_with_headers(&HeaderMap::new(), body).unwrap();
    /// assert_eq!(response["error"]["code"], -32009); // no A2A-Version
    /// ```
    #[cfg(feature = "server")]
    pub fn call_with_headers(&self, headers: &axum::http::HeaderMap, body: &[u8]) -> Option<Value> {
        let admitted = self.admission().admit(headers, body);
        let bearer = admitted
            .as_ref()
            .ok()
            .and_then(|call| call.bearer_token().map(str::to_owned));
        self.answer_blocking(admitted, bearer.as_deref())
    }
}
