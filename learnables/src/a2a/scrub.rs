//! The second line of defence for teach blocks: what goes to a client that
//! did not activate the extension loses every `metadata[URI]` (and the URI
//! from the `extensions` beside it). A body or event without the URI in it
//! is passed on as it is, byte for byte.

use serde_json::Value;

use crate::EXTENSION_URI;

/// Whether `bytes` mention the extension URI at all.
pub(crate) fn mentions_uri(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, EXTENSION_URI.as_bytes()).is_some()
}

/// Removes `metadata[URI]` from every object of `value`, and the URI from
/// the `extensions` of an object whose metadata carried it; whether
/// anything was removed.
pub(crate) fn scrub(value: &mut Value) -> bool {
    match value {
        Value::Object(object) => {
            let mut removed = false;
            if let Some(Value::Object(metadata)) = object.get_mut("metadata")
                && metadata.remove(EXTENSION_URI).is_some()
            {
                removed = true;
                if let Some(Value::Array(extensions)) = object.get_mut("extensions") {
                    extensions.retain(|uri| uri != EXTENSION_URI);
                }
            }
            for child in object.values_mut() {
                removed |= scrub(child);
            }
            removed
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |removed, item| scrub(item) | removed),
        _ => false,
    }
}

/// A JSON body for a client that did not activate: `None` when it needs no
/// change (it is then sent as it came), else the body without the blocks.
pub(crate) fn scrub_json(body: &[u8]) -> Option<Vec<u8>> {
    if !mentions_uri(body) {
        return None;
    }
    let mut value: Value = serde_json::from_slice(body).ok()?;
    if !scrub(&mut value) {
        return None;
    }
    serde_json::to_vec(&value).ok()
}

/// One server-sent event (its lines, without the blank line that ends it)
/// for a client that did not activate: `None` when it needs no change,
/// else the event with its data rewritten without the blocks. Its other
/// fields (`id`, `event`, comments) keep their places.
pub(crate) fn scrub_event(event: &[u8]) -> Option<Vec<u8>> {
    if !mentions_uri(event) {
        return None;
    }
    let text = std::str::from_utf8(event).ok()?;
    let lines: Vec<&str> = text
        .split('\n')
        .map(|line| line.trim_end_matches('\r'))
        .collect();
    let data: Vec<&str> = lines
        .iter()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data))
        .collect();
    let data = scrub_json(data.join("\n").as_bytes())?;
    let data = String::from_utf8(data).ok()?;
    let mut out = String::with_capacity(text.len());
    let mut written = false;
    for line in lines {
        if line.starts_with("data:") {
            if !written {
                out.push_str("data: ");
                out.push_str(&data);
                out.push('\n');
                written = true;
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.pop();
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn task_with_block() -> Value {
        json!({"result": {"task": {"id": "t", "status": {"message": {
            "parts": [{"text": "Which desk?"}],
            "metadata": {EXTENSION_URI: {"teach": {}}, "other": 1},
            "extensions": [EXTENSION_URI, "https://example.com/x"]
        }}, "history": [{"metadata": {EXTENSION_URI: {}}}]}}})
    }

    #[test]
    fn blocks_are_removed_wherever_they_are_and_the_rest_kept() {
        let body = serde_json::to_vec(&task_with_block()).unwrap();
        let scrubbed: Value = serde_json::from_slice(&scrub_json(&body).unwrap()).unwrap();
        let message = &scrubbed["result"]["task"]["status"]["message"];
        assert_eq!(message["metadata"], json!({"other": 1}));
        assert_eq!(message["extensions"], json!(["https://example.com/x"]));
        assert_eq!(
            scrubbed["result"]["task"]["history"][0]["metadata"],
            json!({})
        );
    }

    #[test]
    fn a_body_without_a_block_is_left_alone() {
        assert_eq!(scrub_json(br#"{"result":{"text":"hi"}}"#), None);
        // The URI elsewhere (a card's extensions) is not a block.
        let card = json!({"capabilities": {"extensions": [{"uri": EXTENSION_URI}]}});
        assert_eq!(scrub_json(&serde_json::to_vec(&card).unwrap()), None);
    }

    #[test]
    fn an_event_keeps_its_id_and_loses_its_block() {
        let data = serde_json::to_string(&task_with_block()).unwrap();
        let event = format!("id: 3\ndata: {data}");
        let scrubbed = String::from_utf8(scrub_event(event.as_bytes()).unwrap()).unwrap();
        let (id, data) = scrubbed.split_once('\n').unwrap();
        assert_eq!(id, "id: 3");
        assert!(!data.contains(EXTENSION_URI));
        assert_eq!(scrub_event(b"id: 4\ndata: {}"), None);
    }
}
