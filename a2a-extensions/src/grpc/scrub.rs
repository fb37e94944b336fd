//! One gRPC message of an A2A answer made fit for a client that did not
//! activate an extension: decoded with the A2A protobuf types (`a2a-pb`),
//! every `Struct` member keyed by the extension's URI removed and its URI
//! removed from every `extensions` list, and encoded again.

use a2a_pb::proto::{
    AgentCard, Artifact, ListTaskPushNotificationConfigsResponse, ListTasksResponse, Message, Part,
    SendMessageResponse, StreamResponse, Task, TaskPushNotificationConfig, TaskStatus, part,
    send_message_response, stream_response,
};
use bytes::Bytes;
use prost_types::value::Kind;
use prost_types::{Struct, Value};

/// The gRPC service the A2A protobuf binding defines (`package lf.a2a.v1`).
pub const A2A_SERVICE: &str = "lf.a2a.v1.A2AService";

/// What an answer's messages are, by the method a request's path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    SendMessage,
    Stream,
    Task,
    ListTasks,
    PushConfig,
    ListPushConfigs,
    Card,
    /// `DeleteTaskPushNotificationConfig`'s `google.protobuf.Empty`, and
    /// any method of another service: read as bytes.
    Opaque,
}

impl Answer {
    fn of(path: &str) -> Answer {
        let Some(method) = path
            .strip_prefix('/')
            .and_then(|path| path.strip_prefix(A2A_SERVICE))
            .and_then(|path| path.strip_prefix('/'))
        else {
            return Answer::Opaque;
        };
        match method {
            "SendMessage" => Answer::SendMessage,
            "SendStreamingMessage" | "SubscribeToTask" => Answer::Stream,
            "GetTask" | "CancelTask" => Answer::Task,
            "ListTasks" => Answer::ListTasks,
            "CreateTaskPushNotificationConfig" | "GetTaskPushNotificationConfig" => {
                Answer::PushConfig
            }
            "ListTaskPushNotificationConfigs" => Answer::ListPushConfigs,
            "GetExtendedAgentCard" => Answer::Card,
            _ => Answer::Opaque,
        }
    }
}

/// The scrubbing of one gRPC method's answers, message by message, for a
/// client that did not activate an extension: what
/// [`GrpcExtensionLayer`](super::GrpcExtensionLayer) does to each message
/// of such a client's answers, for a caller that relays messages its own
/// way.
///
/// - The answers of the A2A service's methods ([`A2A_SERVICE`]) are
///   decoded with the A2A protobuf types; every member keyed by the URI is
///   removed from every `google.protobuf.Struct` at any depth (metadata,
///   a data part's value, a card's params), the URI from every
///   `extensions` list, and a `metadata` left empty by that goes too. The
///   message is encoded again (fields the types do not know are dropped,
///   so nothing unread reaches the client). A message that does not
///   decode, or nests deeper than prost's limit of 100, is refused.
/// - Any other message (another service's, `google.protobuf.Empty`) goes
///   on as it is only while its bytes do not hold the URI; else refused.
///
/// ```
/// use a2a_extensions::grpc::MessageScrubber;
/// use a2a_pb::proto::{Message, Task};
/// use prost::Message as _;
/// const URI: &str = "https://example.com/a2a/ext/v1";
///
/// let task = Task {
///     id: "t1".into(),
///     history: vec![Message { message_id: "m1".into(), extensions: vec![URI.into()], ..Default::default() }],
///     ..Default::default()
/// };
/// let scrubber = MessageScrubber::new(URI, "/lf.a2a.v1.A2AService/GetTask");
/// let scrubbed = Task::decode(scrubber.scrub(&task.encode_to_vec())?)?;
/// assert!(scrubbed.history[0].extensions.is_empty());
/// assert!(scrubber.scrub(b"\xff\xff garbage").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct MessageScrubber {
    uri: String,
    answer: Answer,
}

/// Why a message is not passed to a client that did not activate: it does
/// not decode as its method's answer, or names the URI where it cannot be
/// removed. Its `Display` is a sentence for a log line.
///
/// ```
/// use a2a_extensions::grpc::MessageScrubber;
/// let error = MessageScrubber::new("https://example.com/a2a/ext/v1", "/other.Service/Call")
///     .scrub(b"https://example.com/a2a/ext/v1")
///     .unwrap_err();
/// assert!(error.to_string().contains("cannot be removed"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRefused {
    reason: String,
}

impl std::fmt::Display for MessageRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for MessageRefused {}

impl MessageScrubber {
    /// The scrubber of `uri` for the answers of the method at `path`
    /// (`/package.Service/Method`, a gRPC request's path).
    pub fn new(uri: impl Into<String>, path: &str) -> MessageScrubber {
        MessageScrubber {
            uri: uri.into(),
            answer: Answer::of(path),
        }
    }

    /// One message (its bytes, without the gRPC length prefix), scrubbed.
    pub fn scrub(&self, message: &[u8]) -> Result<Bytes, MessageRefused> {
        let uri = self.uri.as_str();
        match self.answer {
            Answer::SendMessage => again::<SendMessageResponse>(message, uri),
            Answer::Stream => again::<StreamResponse>(message, uri),
            Answer::Task => again::<Task>(message, uri),
            Answer::ListTasks => again::<ListTasksResponse>(message, uri),
            Answer::PushConfig => again::<TaskPushNotificationConfig>(message, uri),
            Answer::ListPushConfigs => {
                again::<ListTaskPushNotificationConfigsResponse>(message, uri)
            }
            Answer::Card => again::<AgentCard>(message, uri),
            Answer::Opaque => {
                if uri.is_empty() || memchr::memmem::find(message, uri.as_bytes()).is_none() {
                    Ok(Bytes::copy_from_slice(message))
                } else {
                    Err(MessageRefused {
                        reason: "the message names the extension's URI where it cannot be removed \
                                 (not an answer of the A2A service)"
                            .into(),
                    })
                }
            }
        }
    }
}

/// Decodes `message` as `M`, scrubs it and encodes it again.
fn again<M: prost::Message + Default + Scrub>(
    message: &[u8],
    uri: &str,
) -> Result<Bytes, MessageRefused> {
    let mut decoded = M::decode(message).map_err(|error| MessageRefused {
        // prost's words end with the reason, after the path of fields to
        // it (as long as the nesting).
        reason: format!(
            "the message does not decode as the method's answer: {}",
            crate::text::shown(error.to_string().rsplit(": ").next().unwrap_or_default())
        ),
    })?;
    decoded.scrub(uri);
    Ok(Bytes::from(decoded.encode_to_vec()))
}

/// Removes an extension's metadata from a protobuf message in place.
trait Scrub {
    fn scrub(&mut self, uri: &str);
}

impl<T: Scrub> Scrub for Option<T> {
    fn scrub(&mut self, uri: &str) {
        if let Some(inner) = self {
            inner.scrub(uri);
        }
    }
}

impl<T: Scrub> Scrub for Vec<T> {
    fn scrub(&mut self, uri: &str) {
        self.iter_mut().for_each(|item| item.scrub(uri));
    }
}

impl Scrub for Struct {
    fn scrub(&mut self, uri: &str) {
        self.fields.remove(uri);
        self.fields.values_mut().for_each(|value| value.scrub(uri));
    }
}

impl Scrub for Value {
    fn scrub(&mut self, uri: &str) {
        match &mut self.kind {
            Some(Kind::StructValue(inner)) => inner.scrub(uri),
            Some(Kind::ListValue(list)) => list.values.scrub(uri),
            _ => {}
        }
    }
}

/// A `metadata` Struct: scrubbed, and gone when that left it empty.
fn metadata(metadata: &mut Option<Struct>, uri: &str) {
    if let Some(inner) = metadata {
        let had = !inner.fields.is_empty();
        inner.scrub(uri);
        if had && inner.fields.is_empty() {
            *metadata = None;
        }
    }
}

fn extensions(extensions: &mut Vec<String>, uri: &str) {
    extensions.retain(|extension| extension != uri);
}

impl Scrub for Part {
    fn scrub(&mut self, uri: &str) {
        metadata(&mut self.metadata, uri);
        if let Some(part::Content::Data(data)) = &mut self.content {
            data.scrub(uri);
        }
    }
}

impl Scrub for Message {
    fn scrub(&mut self, uri: &str) {
        self.parts.scrub(uri);
        metadata(&mut self.metadata, uri);
        extensions(&mut self.extensions, uri);
    }
}

impl Scrub for Artifact {
    fn scrub(&mut self, uri: &str) {
        self.parts.scrub(uri);
        metadata(&mut self.metadata, uri);
        extensions(&mut self.extensions, uri);
    }
}

impl Scrub for TaskStatus {
    fn scrub(&mut self, uri: &str) {
        self.message.scrub(uri);
    }
}

impl Scrub for Task {
    fn scrub(&mut self, uri: &str) {
        self.status.scrub(uri);
        self.artifacts.scrub(uri);
        self.history.scrub(uri);
        metadata(&mut self.metadata, uri);
    }
}

impl Scrub for SendMessageResponse {
    fn scrub(&mut self, uri: &str) {
        match &mut self.payload {
            Some(send_message_response::Payload::Task(task)) => task.scrub(uri),
            Some(send_message_response::Payload::Message(message)) => message.scrub(uri),
            None => {}
        }
    }
}

impl Scrub for StreamResponse {
    fn scrub(&mut self, uri: &str) {
        use stream_response::Payload;
        match &mut self.payload {
            Some(Payload::Task(task)) => task.scrub(uri),
            Some(Payload::Message(message)) => message.scrub(uri),
            Some(Payload::StatusUpdate(update)) => {
                update.status.scrub(uri);
                metadata(&mut update.metadata, uri);
            }
            Some(Payload::ArtifactUpdate(update)) => {
                update.artifact.scrub(uri);
                metadata(&mut update.metadata, uri);
            }
            None => {}
        }
    }
}

impl Scrub for ListTasksResponse {
    fn scrub(&mut self, uri: &str) {
        self.tasks.scrub(uri);
    }
}

/// A push config carries no metadata: decoded and encoded again only so
/// that nothing unread passes.
impl Scrub for TaskPushNotificationConfig {
    fn scrub(&mut self, _: &str) {}
}

impl Scrub for ListTaskPushNotificationConfigsResponse {
    fn scrub(&mut self, _: &str) {}
}

impl Scrub for AgentCard {
    fn scrub(&mut self, uri: &str) {
        if let Some(capabilities) = &mut self.capabilities {
            for extension in &mut capabilities.extensions {
                extension.params.scrub(uri);
            }
        }
        for signature in &mut self.signatures {
            signature.header.scrub(uri);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TEST_URI;
    use prost::Message as _;

    fn block() -> Struct {
        Struct {
            fields: [
                (
                    TEST_URI.to_owned(),
                    Value {
                        kind: Some(Kind::StringValue("teach".into())),
                    },
                ),
                (
                    "other".to_owned(),
                    Value {
                        kind: Some(Kind::BoolValue(true)),
                    },
                ),
            ]
            .into(),
        }
    }

    #[test]
    fn every_place_of_a_stream_event_is_scrubbed() {
        let message = Message {
            message_id: "m".into(),
            metadata: Some(block()),
            extensions: vec![TEST_URI.into(), "https://example.com/other".into()],
            parts: vec![Part {
                metadata: Some(block()),
                content: Some(part::Content::Data(Value {
                    kind: Some(Kind::StructValue(block())),
                })),
                ..Default::default()
            }],
            ..Default::default()
        };
        let event = StreamResponse {
            payload: Some(stream_response::Payload::Task(Task {
                status: Some(TaskStatus {
                    message: Some(message.clone()),
                    ..Default::default()
                }),
                history: vec![message],
                metadata: Some(block()),
                ..Default::default()
            })),
        };
        let scrubber = MessageScrubber::new(TEST_URI, "/lf.a2a.v1.A2AService/SubscribeToTask");
        let out = scrubber.scrub(&event.encode_to_vec()).unwrap();
        assert!(memchr::memmem::find(&out, TEST_URI.as_bytes()).is_none());
        let Some(stream_response::Payload::Task(task)) =
            StreamResponse::decode(out).unwrap().payload
        else {
            panic!("not a task");
        };
        assert_eq!(task.history[0].extensions, ["https://example.com/other"]);
        assert!(task.metadata.unwrap().fields.contains_key("other"));
    }

    #[test]
    fn metadata_left_empty_goes_and_metadata_sent_empty_stays() {
        let only = Struct {
            fields: [(TEST_URI.to_owned(), Value::default())].into(),
        };
        let mut task = Task {
            metadata: Some(only),
            ..Default::default()
        };
        task.scrub(TEST_URI);
        assert_eq!(task.metadata, None);
        let mut task = Task {
            metadata: Some(Struct::default()),
            ..Default::default()
        };
        task.scrub(TEST_URI);
        assert_eq!(task.metadata, Some(Struct::default()));
    }

    #[test]
    fn nesting_past_prosts_limit_is_refused() {
        let mut value = Value {
            kind: Some(Kind::StructValue(block())),
        };
        for _ in 0..120 {
            value = Value {
                kind: Some(Kind::StructValue(Struct {
                    fields: [("x".to_owned(), value)].into(),
                })),
            };
        }
        let Some(Kind::StructValue(deep)) = value.kind else {
            unreachable!()
        };
        let task = Task {
            metadata: Some(deep),
            ..Default::default()
        };
        let scrubber = MessageScrubber::new(TEST_URI, "/lf.a2a.v1.A2AService/GetTask");
        let error = scrubber.scrub(&task.encode_to_vec()).unwrap_err();
        assert!(error.to_string().contains("recursion limit"), "{error}");
    }

    #[test]
    fn paths_name_their_answers() {
        assert_eq!(
            Answer::of("/lf.a2a.v1.A2AService/ListTasks"),
            Answer::ListTasks
        );
        assert_eq!(
            Answer::of("/lf.a2a.v1.A2AServiceX/ListTasks"),
            Answer::Opaque
        );
        assert_eq!(Answer::of("/grpc.health.v1.Health/Check"), Answer::Opaque);
        assert_eq!(
            Answer::of("/lf.a2a.v1.A2AService/DeleteTaskPushNotificationConfig"),
            Answer::Opaque
        );
    }
}
