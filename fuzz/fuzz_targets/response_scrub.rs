//! Response bodies -> the scrubber for clients that did not activate: no
//! object keyed by the URI, and no `extensions` array naming it, survives
//! (every copy of a key given twice looked at); a body without either is
//! passed byte for byte; any split into two chunks gives the same result;
//! an encoded body is refused.
#![no_main]

use learnables::EXTENSION_URI;
use learnables::a2a::ResponseScrubber;
use libfuzzer_sys::fuzz_target;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// Whether a JSON value holds a member keyed by the URI or an
/// `extensions` array naming it, found as the text parses: every copy of a
/// key given twice is visited (a `serde_json::Value` keeps only the last),
/// keys compared once their escapes are decoded.
struct Dirty(bool);

impl<'de> Deserialize<'de> for Dirty {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Dirty, D::Error> {
        DirtyVisitor::default().deserialize(deserializer).map(Dirty)
    }
}

/// Visits one value: an `extensions` member's, or an element of one.
#[derive(Default)]
struct DirtyVisitor {
    extensions: bool,
    in_extensions: bool,
}

impl<'de> DeserializeSeed<'de> for DirtyVisitor {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DirtyVisitor {
    type Value = bool;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut dirty = false;
        while let Some(key) = map.next_key::<String>()? {
            dirty |= key == EXTENSION_URI;
            let value = DirtyVisitor {
                extensions: key == "extensions",
                in_extensions: false,
            };
            dirty |= map.next_value_seed(value)?;
        }
        Ok(dirty)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut dirty = false;
        let element = || DirtyVisitor {
            extensions: false,
            in_extensions: self.extensions,
        };
        while let Some(item) = seq.next_element_seed(element())? {
            dirty |= item;
        }
        Ok(dirty)
    }

    fn visit_str<E>(self, text: &str) -> Result<bool, E> {
        Ok(self.in_extensions && text == EXTENSION_URI)
    }

    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
}

/// Whether any of the JSON values `bytes` starts with is dirty, and
/// whether they are all of it.
fn values(bytes: &[u8]) -> (bool, bool) {
    let mut dirty = false;
    for value in serde_json::Deserializer::from_slice(bytes).into_iter::<Dirty>() {
        match value {
            Ok(Dirty(found)) => dirty |= found,
            Err(_) => return (dirty, false),
        }
    }
    (dirty, true)
}

/// `body` through a scrubber for `content_type` and `encoding`, in two
/// chunks split at `split`.
fn scrub(
    content_type: &str,
    encoding: Option<&str>,
    body: &[u8],
    split: usize,
) -> Result<Vec<u8>, String> {
    let mut scrubber =
        ResponseScrubber::new(Some(content_type), encoding).map_err(|error| error.to_string())?;
    let mut out = Vec::new();
    let (a, b) = body.split_at(split.min(body.len()));
    scrubber
        .feed(a, &mut out)
        .map_err(|error| error.to_string())?;
    scrubber
        .feed(b, &mut out)
        .map_err(|error| error.to_string())?;
    scrubber
        .finish(&mut out)
        .map_err(|error| error.to_string())?;
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    let split = data.first().map_or(0, |&byte| byte as usize);
    let whole = ResponseScrubber::new(Some("application/json"), None)
        .unwrap()
        .scrub(data)
        .map_err(|error| error.to_string());
    assert_eq!(
        scrub("application/json", None, data, split),
        whole,
        "the same in chunks"
    );
    match &whole {
        Ok(out) => {
            let (scrubbed, _) = values(out);
            assert!(!scrubbed, "a block survived");
            let (sent, all) = values(data);
            if all && !sent {
                assert_eq!(out, data, "a body without a block is passed byte for byte");
            }
        }
        Err(_) => {}
    }
    // An encoded body is not decoded: it is refused.
    assert!(scrub("application/json", Some("gzip"), data, split).is_err());
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
            if let Ok(Dirty(dirty)) = serde_json::from_str::<Dirty>(&data.join("\n")) {
                assert!(!dirty, "a block survived in an event");
            }
        }
    }
});

fn memchr_find(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(EXTENSION_URI.len())
        .position(|window| window == EXTENSION_URI.as_bytes())
}
