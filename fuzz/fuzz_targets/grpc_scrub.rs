//! gRPC messages -> the protobuf scrubber for clients that did not
//! activate: what it passes decodes as the method's answer and, read
//! through the SDK's own conversion (`a2a-pb`'s `pbconv`) as JSON, holds no
//! member keyed by the URI and no `extensions` list naming it; scrubbing it
//! again changes nothing; another service's message passes byte for byte
//! and only without the URI. The first byte picks the method.
#![no_main]

use a2a_extensions::grpc::MessageScrubber;
use a2a_pb::{pbconv, proto};
use libfuzzer_sys::fuzz_target;
use prost::Message as _;
use serde_json::Value;

const URI: &str = "https://rsaxb.com/a2a/learnables/v1";

const METHODS: [&str; 7] = [
    "/lf.a2a.v1.A2AService/GetTask",
    "/lf.a2a.v1.A2AService/ListTasks",
    "/lf.a2a.v1.A2AService/SendMessage",
    "/lf.a2a.v1.A2AService/SubscribeToTask",
    "/lf.a2a.v1.A2AService/GetExtendedAgentCard",
    "/lf.a2a.v1.A2AService/GetTaskPushNotificationConfig",
    "/grpc.health.v1.Health/Check",
];

/// Whether a JSON value holds a member keyed by the URI, or an
/// `extensions` array naming it.
fn dirty(value: &Value) -> bool {
    match value {
        Value::Object(members) => members.iter().any(|(key, member)| {
            key == URI
                || (key == "extensions"
                    && member
                        .as_array()
                        .is_some_and(|items| items.iter().any(|item| item == URI)))
                || dirty(member)
        }),
        Value::Array(items) => items.iter().any(dirty),
        _ => false,
    }
}

/// The answer `out` as the SDK's JSON, for the methods that have one.
fn as_json(method: &str, out: &[u8]) -> Option<Value> {
    let json = match method.rsplit('/').next()? {
        "GetTask" => serde_json::to_value(pbconv::from_proto_task(&proto::Task::decode(out).ok()?)),
        "ListTasks" => serde_json::to_value(pbconv::from_proto_list_tasks_response(
            &proto::ListTasksResponse::decode(out).ok()?,
        )),
        "SendMessage" => serde_json::to_value(pbconv::from_proto_send_message_response(
            &proto::SendMessageResponse::decode(out).ok()?,
        )?),
        "SubscribeToTask" => serde_json::to_value(pbconv::from_proto_stream_response(
            &proto::StreamResponse::decode(out).ok()?,
        )?),
        "GetExtendedAgentCard" => serde_json::to_value(pbconv::from_proto_agent_card(
            &proto::AgentCard::decode(out).ok()?,
        )),
        _ => return None,
    };
    json.ok()
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, message)) = data.split_first() else {
        return;
    };
    let method = METHODS[selector as usize % METHODS.len()];
    let scrubber = MessageScrubber::new(URI, method);
    let Ok(out) = scrubber.scrub(message) else {
        return;
    };
    if method.starts_with("/grpc.") {
        assert_eq!(&out[..], message, "another service's message passes as it is");
        assert!(
            !message.windows(URI.len()).any(|window| window == URI.as_bytes()),
            "the URI passed in another service's message"
        );
        return;
    }
    if let Some(json) = as_json(method, &out) {
        assert!(!dirty(&json), "the extension's metadata survived: {json}");
    }
    let again = scrubber.scrub(&out).expect("what it passed reads again");
    assert_eq!(
        as_json(method, &again),
        as_json(method, &out),
        "scrubbing twice changes nothing"
    );
});
