//! JSON-RPC 2.0 as the learnables methods speak it. The envelope, its
//! limits and A2A v1.0's typed error details are `a2a_extensions`'s (the
//! crate any A2A extension uses); the Learnables codes and reasons, and
//! errors whose domain is the Learnables URI, are here.

use std::borrow::Cow;

use serde::Serialize;

pub use a2a_extensions::json_rpc::{Id, Limits, Request, best_effort_id, failure, read_request};
pub use a2a_extensions::{BAD_REQUEST_TYPE, ERROR_INFO_TYPE, FieldViolation};

/// Error codes: JSON-RPC 2.0's own and A2A v1.0's (from `a2a_extensions`),
/// and the Learnables extension's own outside the range JSON-RPC reserves
/// (`-32768..=-32000`, within which A2A takes `-32001..=-32099`), so that no
/// later A2A release can give them another meaning.
pub mod codes {
    pub use a2a_extensions::codes::*;
    /// No valid bearer token was sent.
    pub const UNAUTHENTICATED: i64 = -31040;
    /// The authenticated teacher may not do this.
    pub const FORBIDDEN: i64 = -31041;
    /// No such entry or version.
    pub const NOT_FOUND: i64 = -31042;
}

/// Why a request was refused, as the `reason` of the error's
/// `google.rpc.ErrorInfo` says it: stable identifiers a client may match
/// on (the message is for people and may change).
pub mod reasons {
    pub use a2a_extensions::reasons::*;
    /// The agent has no learnable of the lesson's collection.
    pub const LEARNABLE_UNKNOWN: &str = "LEARNABLE_UNKNOWN";
    /// The lesson's value is not one its learnable accepts.
    pub const LESSON_INVALID: &str = "LESSON_INVALID";
    /// No valid bearer token was sent.
    pub const TEACHER_NOT_AUTHENTICATED: &str = "TEACHER_NOT_AUTHENTICATED";
    /// The authenticated teacher may not teach this lesson (the agent's
    /// policy, or a lesson that names someone else as its teacher).
    pub const TEACHER_NOT_ALLOWED: &str = "TEACHER_NOT_ALLOWED";
    /// The entry has no version yet.
    pub const ENTRY_NOT_FOUND: &str = "ENTRY_NOT_FOUND";
    /// No version has the id asked for.
    pub const VERSION_NOT_FOUND: &str = "VERSION_NOT_FOUND";
    /// The knowledge store failed; the message says whether the lesson may
    /// have been absorbed.
    pub const STORE_FAILED: &str = "STORE_FAILED";

    /// The reason of the Learnables codes; `None` for the others.
    pub(crate) fn of_code(code: i64) -> Option<&'static str> {
        use super::codes;
        match code {
            codes::UNAUTHENTICATED => Some(TEACHER_NOT_AUTHENTICATED),
            codes::FORBIDDEN => Some(TEACHER_NOT_ALLOWED),
            codes::NOT_FOUND => Some(ENTRY_NOT_FOUND),
            _ => None,
        }
    }
}

/// A JSON-RPC error of a learnables method: an `a2a_extensions` error
/// (read through it: `code`, `message`, `reason()`, `violations()`) whose
/// domain is the Learnables URI. It serializes as A2A v1.0's error object,
/// `data` an array of typed details.
///
/// ```
/// use learnables::a2a::json_rpc::{RpcError, codes, reasons};
/// let error = RpcError::invalid_params("value.chapter", "HS chapter: a whole number from 1 to 97")
///     .because(reasons::LESSON_INVALID)
///     .with_metadata("collection", "routing_rules");
/// let json = serde_json::to_value(&error).unwrap();
/// assert_eq!(json["code"], codes::INVALID_PARAMS);
/// assert_eq!(json["data"][0]["@type"], "type.googleapis.com/google.rpc.BadRequest");
/// assert_eq!(json["data"][0]["fieldViolations"][0]["field"], "value.chapter");
/// assert_eq!(json["data"][1]["reason"], "LESSON_INVALID");
/// assert_eq!(json["data"][1]["domain"], learnables::EXTENSION_URI);
/// assert_eq!(json["data"][1]["metadata"]["collection"], "routing_rules");
/// // The first field at fault, for clients that read only the metadata:
/// assert_eq!(json["data"][1]["metadata"]["field"], "value.chapter");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct RpcError(a2a_extensions::RpcError);

impl RpcError {
    /// An error with the reason its code implies, and no field at fault.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        let error = a2a_extensions::RpcError::new(code, message).in_domain(crate::EXTENSION_URI);
        RpcError(match reasons::of_code(code) {
            Some(reason) => error.because(reason),
            None => error,
        })
    }

    /// An invalid-params error naming the field at fault, the message its
    /// description.
    pub fn invalid_params(field: &str, message: impl Into<String>) -> RpcError {
        RpcError(
            a2a_extensions::RpcError::invalid_params(field, message)
                .in_domain(crate::EXTENSION_URI),
        )
    }

    /// Gives the reason (one of [`reasons`]).
    pub fn because(self, reason: impl Into<Cow<'static, str>>) -> RpcError {
        RpcError(self.0.because(reason))
    }

    /// Adds a field at fault.
    pub fn at_field(self, field: &str, description: impl Into<String>) -> RpcError {
        RpcError(self.0.at_field(field, description))
    }

    /// Adds a fact to the `ErrorInfo`'s metadata (a string, as
    /// `google.rpc.ErrorInfo` has them).
    pub fn with_metadata(self, key: &str, value: impl Into<String>) -> RpcError {
        RpcError(self.0.with_metadata(key, value))
    }

    /// The error as `a2a_extensions` writes it.
    pub fn into_inner(self) -> a2a_extensions::RpcError {
        self.0
    }
}

impl std::ops::Deref for RpcError {
    type Target = a2a_extensions::RpcError;

    fn deref(&self) -> &a2a_extensions::RpcError {
        &self.0
    }
}

impl From<RpcError> for a2a_extensions::RpcError {
    fn from(error: RpcError) -> a2a_extensions::RpcError {
        error.0
    }
}

impl From<a2a_extensions::RpcError> for RpcError {
    /// An error of the crate's, in the Learnables domain unless it names
    /// another.
    fn from(error: a2a_extensions::RpcError) -> RpcError {
        RpcError(error.or_domain(crate::EXTENSION_URI))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_without_a_field_carries_its_error_info_alone() {
        let json = serde_json::to_value(RpcError::new(codes::UNAUTHENTICATED, "no token")).unwrap();
        assert_eq!(
            json,
            json!({"code": -31040, "message": "no token", "data": [{
                "@type": ERROR_INFO_TYPE,
                "reason": "TEACHER_NOT_AUTHENTICATED",
                "domain": crate::EXTENSION_URI,
            }]})
        );
    }

    #[test]
    fn our_own_codes_are_outside_the_range_json_rpc_reserves() {
        for code in [codes::UNAUTHENTICATED, codes::FORBIDDEN, codes::NOT_FOUND] {
            assert!(!(-32768..=-32000).contains(&code), "{code}");
        }
    }
}
