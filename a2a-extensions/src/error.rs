//! An extension method's error, as A2A v1.0 writes errors (§3.3.2,
//! §9.5): a code, a message for a person, and `data` as an array of typed
//! details: a `google.rpc.BadRequest` naming every field at fault, and a
//! `google.rpc.ErrorInfo` whose `reason` is a stable identifier and whose
//! `domain` is the extension's URI. The shapes are the A2A SDK's own
//! (`a2a_lf::errordetails`; a test reads them back with its types), written
//! here so that the layer needs no A2A SDK.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeStruct};

/// Error codes: JSON-RPC 2.0's own, and A2A v1.0's where A2A defines the
/// refusal. An extension's own codes belong outside the range JSON-RPC
/// reserves (`-32768..=-32000`, within which A2A takes `-32001..=-32099`),
/// so that no later A2A release can give them another meaning.
pub mod codes {
    /// The body is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a JSON-RPC 2.0 request (or is too large, too deep, or
    /// gives a key twice in one object).
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params are wrong. The error's `BadRequest` names each field at
    /// fault.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The agent failed; nothing was changed.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The method needs its extension activated (A2A's
    /// `ExtensionSupportRequiredError`).
    pub const EXTENSION_NOT_ACTIVATED: i64 = -32008;
    /// The request's `A2A-Version` names a version this agent does not
    /// serve, or is missing, which A2A reads as 0.3 (A2A's
    /// `VersionNotSupportedError`).
    pub const VERSION_NOT_SUPPORTED: i64 = -32009;
}

/// Why a request was refused, as the `reason` of the error's
/// `google.rpc.ErrorInfo` says it: stable identifiers a client may match
/// on (the message is for people and may change). An extension adds its
/// own with [`RpcError::because`](super::RpcError::because).
pub mod reasons {
    /// The body is not JSON.
    pub const PARSE_ERROR: &str = "PARSE_ERROR";
    /// The JSON is not a JSON-RPC 2.0 request, or breaks a limit.
    pub const INVALID_REQUEST: &str = "INVALID_REQUEST";
    /// No such method.
    pub const METHOD_NOT_FOUND: &str = "METHOD_NOT_FOUND";
    /// The params are not the method's shape (a member missing, of the
    /// wrong type or too long).
    pub const PARAMS_INVALID: &str = "PARAMS_INVALID";
    /// The request did not activate the method's extension.
    pub const EXTENSION_NOT_ACTIVATED: &str = "EXTENSION_NOT_ACTIVATED";
    /// The request's A2A version is not one this agent serves.
    pub const VERSION_NOT_SUPPORTED: &str = "VERSION_NOT_SUPPORTED";
    /// The agent failed otherwise; nothing was changed.
    pub const INTERNAL: &str = "INTERNAL";

    /// The reason a refusal with `code` has unless it says another.
    pub(crate) fn of_code(code: i64) -> &'static str {
        use super::codes;
        match code {
            codes::PARSE_ERROR => PARSE_ERROR,
            codes::INVALID_REQUEST => INVALID_REQUEST,
            codes::METHOD_NOT_FOUND => METHOD_NOT_FOUND,
            codes::INVALID_PARAMS => PARAMS_INVALID,
            codes::EXTENSION_NOT_ACTIVATED => EXTENSION_NOT_ACTIVATED,
            codes::VERSION_NOT_SUPPORTED => VERSION_NOT_SUPPORTED,
            _ => INTERNAL,
        }
    }
}

/// The `@type` of a `google.rpc.BadRequest` detail.
pub const BAD_REQUEST_TYPE: &str = "type.googleapis.com/google.rpc.BadRequest";
/// The key of the `ErrorInfo` metadata that names the first field at fault.
const FIELD_KEY: &str = "field";

/// The `@type` of a `google.rpc.ErrorInfo` detail.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

/// A JSON-RPC error of an extension's method. It serializes as A2A v1.0's
/// error object, `data` an array of typed details; its `ErrorInfo`'s
/// `domain` is the extension's URI (the layer gives it to an error that
/// names none).
///
/// ```
/// use a2a_extensions::{RpcError, codes};
/// let error = RpcError::invalid_params("name", "a name is one to 64 letters")
///     .because("NAME_INVALID")
///     .in_domain("https://example.com/a2a/greeting/v1")
///     .with_metadata("given", "");
/// let json = serde_json::to_value(&error).unwrap();
/// assert_eq!(json["code"], codes::INVALID_PARAMS);
/// assert_eq!(json["data"][0]["@type"], "type.googleapis.com/google.rpc.BadRequest");
/// assert_eq!(json["data"][0]["fieldViolations"][0]["field"], "name");
/// assert_eq!(json["data"][1]["reason"], "NAME_INVALID");
/// assert_eq!(json["data"][1]["domain"], "https://example.com/a2a/greeting/v1");
/// assert_eq!(json["data"][1]["metadata"]["given"], "");
/// // The first field at fault, for clients that read only the metadata:
/// assert_eq!(json["data"][1]["metadata"]["field"], "name");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// One of [`codes`].
    pub code: i64,
    /// What went wrong, for a person.
    pub message: String,
    /// The typed details, boxed: an error is passed by value through
    /// `Result`s, and is made only on a refusal.
    details: Box<Typed>,
}

/// What an error's typed details say.
#[derive(Debug, Clone, PartialEq)]
struct Typed {
    reason: Cow<'static, str>,
    domain: Cow<'static, str>,
    violations: Vec<FieldViolation>,
    metadata: BTreeMap<String, String>,
}

/// A field at fault: `google.rpc.BadRequest.FieldViolation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldViolation {
    /// The path of the field in the params (`value.chapter`, `entry`).
    pub field: String,
    /// What is wrong with it, for a person.
    pub description: String,
}

impl RpcError {
    /// An error with the reason its code implies, and no field at fault.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            details: Box::new(Typed {
                reason: Cow::Borrowed(reasons::of_code(code)),
                domain: Cow::Borrowed(""),
                violations: Vec::new(),
                metadata: BTreeMap::new(),
            }),
        }
    }

    /// An invalid-params error naming the field at fault, the message its
    /// description.
    pub fn invalid_params(field: &str, message: impl Into<String>) -> RpcError {
        let message = message.into();
        RpcError::new(codes::INVALID_PARAMS, message.clone()).at_field(field, message)
    }

    /// Gives the reason (one of [`reasons`], or the extension's own).
    pub fn because(mut self, reason: impl Into<Cow<'static, str>>) -> RpcError {
        self.details.reason = reason.into();
        self
    }

    /// Gives the domain: the URI of the extension whose error it is.
    pub fn in_domain(mut self, domain: impl Into<Cow<'static, str>>) -> RpcError {
        self.details.domain = domain.into();
        self
    }

    /// The domain given, or `domain` when none was.
    pub fn or_domain(self, domain: &str) -> RpcError {
        if self.details.domain.is_empty() {
            let domain = domain.to_owned();
            self.in_domain(domain)
        } else {
            self
        }
    }

    /// The domain: the URI of the extension whose error it is (empty when
    /// none was given).
    pub fn domain(&self) -> &str {
        &self.details.domain
    }

    /// Adds a field at fault.
    pub fn at_field(mut self, field: &str, description: impl Into<String>) -> RpcError {
        self.details.violations.push(FieldViolation {
            field: field.to_owned(),
            description: description.into(),
        });
        self
    }

    /// Adds a fact to the `ErrorInfo`'s metadata (a string, as
    /// `google.rpc.ErrorInfo` has them).
    pub fn with_metadata(mut self, key: &str, value: impl Into<String>) -> RpcError {
        self.details.metadata.insert(key.to_owned(), value.into());
        self
    }

    /// The stable reason.
    pub fn reason(&self) -> &str {
        &self.details.reason
    }

    /// The fields at fault, in the order found.
    pub fn violations(&self) -> &[FieldViolation] {
        &self.details.violations
    }
}

impl Serialize for RpcError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut error = serializer.serialize_struct("Error", 3)?;
        error.serialize_field("code", &self.code)?;
        error.serialize_field("message", &self.message)?;
        error.serialize_field("data", &Details(self))?;
        error.end()
    }
}

/// An error's `data`: its `BadRequest` (when a field is at fault) and its
/// `ErrorInfo`.
struct Details<'e>(&'e RpcError);

impl Serialize for Details<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let error = self.0;
        let mut details = serializer.serialize_seq(None)?;
        if !error.details.violations.is_empty() {
            details.serialize_element(&BadRequest(&error.details.violations))?;
        }
        details.serialize_element(&ErrorInfo(error))?;
        details.end()
    }
}

struct BadRequest<'e>(&'e [FieldViolation]);

impl Serialize for BadRequest<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut detail = serializer.serialize_map(Some(2))?;
        detail.serialize_entry("@type", BAD_REQUEST_TYPE)?;
        detail.serialize_entry("fieldViolations", self.0)?;
        detail.end()
    }
}

struct ErrorInfo<'e>(&'e RpcError);

impl Serialize for ErrorInfo<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let error = self.0;
        let mut detail = serializer.serialize_map(None)?;
        detail.serialize_entry("@type", ERROR_INFO_TYPE)?;
        detail.serialize_entry("reason", &error.details.reason)?;
        detail.serialize_entry("domain", &error.details.domain)?;
        // The first field at fault is repeated in the metadata, for clients
        // that keep only the metadata of an error (the official Python SDK
        // makes it its error's `data`).
        let first_field = error
            .details
            .violations
            .first()
            .map(|violation| &violation.field);
        match first_field {
            Some(field) if !error.details.metadata.contains_key(FIELD_KEY) => {
                let mut metadata = error.details.metadata.clone();
                metadata.insert(FIELD_KEY.to_owned(), field.clone());
                detail.serialize_entry("metadata", &metadata)?;
            }
            _ if !error.details.metadata.is_empty() => {
                detail.serialize_entry("metadata", &error.details.metadata)?
            }
            _ => {}
        }
        detail.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_without_a_field_carries_its_error_info_alone() {
        let error = RpcError::new(codes::METHOD_NOT_FOUND, "no such method").in_domain("u");
        let json = serde_json::to_value(error).unwrap();
        assert_eq!(
            json,
            json!({"code": -32601, "message": "no such method", "data": [{
                "@type": ERROR_INFO_TYPE,
                "reason": "METHOD_NOT_FOUND",
                "domain": "u",
            }]})
        );
    }

    #[test]
    fn every_field_at_fault_is_listed_in_order() {
        let error = RpcError::new(codes::INVALID_PARAMS, "two problems")
            .because("GREETING_INVALID")
            .at_field("value.chapter", "HS chapter: a whole number")
            .at_field("value.desk", "Desk: one of the choices");
        let json = serde_json::to_value(&error).unwrap();
        let violations = &json["data"][0]["fieldViolations"];
        assert_eq!(violations[0]["field"], "value.chapter");
        assert_eq!(violations[1]["field"], "value.desk");
        assert_eq!(violations[1]["description"], "Desk: one of the choices");
        assert_eq!(json["data"][1]["reason"], "GREETING_INVALID");
        assert_eq!(
            json["data"][1]["metadata"],
            json!({"field": "value.chapter"})
        );
    }

    #[test]
    fn a_domain_given_is_kept() {
        let error = RpcError::new(codes::INTERNAL_ERROR, "x").in_domain("a");
        assert_eq!(error.or_domain("b").domain(), "a");
        assert_eq!(RpcError::new(0, "x").or_domain("b").domain(), "b");
    }

    /// Our details are the SDK's own: its types read them back as the
    /// `BadRequest` and `ErrorInfo` its constructors make.
    #[test]
    fn the_sdk_reads_our_details_as_its_own() {
        use std::collections::HashMap;
        let error = RpcError::invalid_params("entry", "no entry")
            .because("ENTRY_NOT_FOUND")
            .in_domain(crate::TEST_URI)
            .with_metadata("field", "entry");
        let json = serde_json::to_value(&error).unwrap();
        let details: Vec<a2a::TypedDetail> = serde_json::from_value(json["data"].clone()).unwrap();
        let bad_request = a2a::TypedDetail::bad_request(vec![a2a::FieldViolation {
            field: "entry".into(),
            description: "no entry".into(),
        }]);
        let error_info = a2a::TypedDetail::error_info(
            "ENTRY_NOT_FOUND",
            crate::TEST_URI,
            Some(HashMap::from([("field".to_owned(), "entry".to_owned())])),
        );
        assert_eq!(details, [bad_request, error_info]);
        assert_eq!(a2a::BAD_REQUEST_TYPE, BAD_REQUEST_TYPE);
        assert_eq!(a2a::ERROR_INFO_TYPE, ERROR_INFO_TYPE);
    }
}
