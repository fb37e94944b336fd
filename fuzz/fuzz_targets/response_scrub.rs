//! Response bodies (and their gzip) -> the scrubber for clients that did
//! not activate: no object keyed by the URI, and no `extensions` array
//! naming it, survives; a body without either is passed byte for byte;
//! any split into two chunks gives the same result.
#![no_main]

use std::io::Write;

use learnables::EXTENSION_URI;
use learnables::a2a::ResponseScrubber;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Whether `value` holds a teach block or lists the extension.
fn dirty(value: &Value) -> bool {
    match value {
        Value::Object(object) => {
            object.contains_key(EXTENSION_URI)
                || matches!(object.get("extensions"), Some(Value::Array(uris))
                    if uris.iter().any(|uri| uri == EXTENSION_URI))
                || object.values().any(dirty)
        }
        Value::Array(items) => items.iter().any(dirty),
        _ => false,
    }
}

/// The JSON values `bytes` starts with, and whether they are all of it.
fn values(bytes: &[u8]) -> (Vec<Value>, bool) {
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    let mut values = Vec::new();
    for value in stream.by_ref() {
        match value {
            Ok(value) => values.push(value),
            Err(_) => return (values, false),
        }
    }
    (values, true)
}

/// `body` through a scrubber for `content_type` and `encoding`, in two
/// chunks split at `split`.
fn scrub(content_type: &str, encoding: Option<&str>, body: &[u8], split: usize) -> Result<Vec<u8>, String> {
    let mut scrubber =
        ResponseScrubber::new(Some(content_type), encoding).map_err(|error| error.to_string())?;
    let mut out = Vec::new();
    let (a, b) = body.split_at(split.min(body.len()));
    scrubber.feed(a, &mut out).map_err(|error| error.to_string())?;
    scrubber.feed(b, &mut out).map_err(|error| error.to_string())?;
    scrubber.finish(&mut out).map_err(|error| error.to_string())?;
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    let split = data.first().map_or(0, |&byte| byte as usize);
    let whole = ResponseScrubber::new(Some("application/json"), None)
        .unwrap()
        .scrub(data)
        .map_err(|error| error.to_string());
    assert_eq!(scrub("application/json", None, data, split), whole, "the same in chunks");
    match &whole {
        Ok(out) => {
            let (scrubbed, _) = values(out);
            assert!(!scrubbed.iter().any(dirty), "a block survived");
            let (sent, all) = values(data);
            if all && !sent.iter().any(dirty) {
                assert_eq!(out, data, "a body without a block is passed byte for byte");
            }
        }
        Err(_) => {}
    }
    // The same body gzipped decodes to the same result.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).unwrap();
    let gzipped = encoder.finish().unwrap();
    let decoded = scrub("application/json", Some("gzip"), &gzipped, split);
    assert_eq!(decoded.is_ok(), whole.is_ok(), "gzip changes nothing");
    if let (Ok(decoded), Ok(whole)) = (&decoded, &whole) {
        assert_eq!(decoded, whole, "gzip changes nothing");
    }
    // Read as text, it passes only without the URI.
    if let Ok(out) = scrub("text/plain", None, data, split) {
        assert_eq!(out, data);
        assert!(memchr_find(data).is_none(), "the URI passed as text");
    }
    // As events: no event's data holds a block.
    if let Ok(out) = scrub("text/event-stream", None, data, split) {
        let text = String::from_utf8_lossy(&out);
        for event in text.split("\n\n").flat_map(|event| event.split("\r\r")) {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|data| data.strip_prefix(' ').unwrap_or(data))
                .collect();
            if let Ok(value) = serde_json::from_str::<Value>(&data.join("\n")) {
                assert!(!dirty(&value), "a block survived in an event");
            }
        }
    }
});

fn memchr_find(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(EXTENSION_URI.len())
        .position(|window| window == EXTENSION_URI.as_bytes())
}
