//! [`Change`]: one version as the knowledge keeps it in memory. Its text
//! fields are written one after the other into blocks the knowledge's
//! versions share ([`TextBlocks`]), its value as compact JSON, and it knows
//! the entry's version before it; the full [`VersionRecord`] and the typed
//! value are made only when a reader asks for them.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use once_cell::race::OnceBox;
use serde_json::Value;

use super::VersionRecord;
use super::same_text::same_bytes;
use super::text_blocks::{SharedText, TextBlocks};
use super::version_record::{RecordView, ValueRef};
use crate::wire::LessonValue;

/// A value as its learnable's type, behind `dyn Any`.
pub(crate) type Typed = Arc<dyn Any + Send + Sync>;

/// How deep a value may nest and still be kept as JSON text: parsing it
/// back must stay within `serde_json`'s recursion limit (128).
pub(crate) const DEEPEST_AS_TEXT: usize = 100;

/// Where a version stands in its entry's chain of versions.
#[derive(Clone, Copy, Default)]
pub(crate) struct EntryLink {
    /// The position of the entry's version before this one, 0 for none.
    pub(crate) previous: u64,
    /// The position of an earlier version of the entry to jump to when
    /// looking far back (0 for the start), chosen so that any version of
    /// the entry is reached in a logarithmic number of steps.
    pub(crate) jump: u64,
    /// How many versions of the entry there are up to this one.
    pub(crate) depth: u32,
}

/// The longest entry kept in the change itself.
const KEY_INLINE: usize = 15;
/// `key_len` of an entry kept in the text.
const KEY_IN_TEXT: u8 = u8::MAX;

/// A flag: the record has a reason.
const REASON: u8 = 1;
/// A flag: the record is too large or its value too deep to be kept as
/// text: `full` holds it, `text` is empty.
const KEPT: u8 = 2;
/// A flag: the version retracts its entry.
const RETRACTED: u8 = 4;

/// What a [`Change`] needs from its knowledge to make its full record.
pub(crate) struct Names {
    pub(crate) collection: String,
    pub(crate) taught_by: String,
    /// The id of the collection's version before.
    pub(crate) previous_version_id: Option<String>,
}

/// One version, compact: 120 bytes, so that with its log slot's flag it
/// fills two cache lines ([`AppendLog`](super::append_log::AppendLog)
/// aligns its slots to them). Laid out in order: what a lookup reads (the
/// position, the cache, the entry's key; the slot's flag follows the
/// change) is in the second line; the texts' handle and most of the
/// entry's chain, which a record or a show-back reads, are in the first.
#[derive(Clone)]
#[repr(C)]
pub(crate) struct Change {
    /// Version id, entry, reason, description and value (compact JSON), one
    /// after the other, in the knowledge's [`TextBlocks`].
    text: SharedText,
    /// The entry's chain: see [`EntryLink`].
    previous: u64,
    jump: u64,
    pub(crate) definition_version: u64,
    taught_at_ms: u64,
    // The second cache line.
    pub(crate) position: u64,
    /// What is made of the version when first asked for.
    cache: OnceBox<Cache>,
    /// Where the first four parts of `text` end.
    ends: [u16; 4],
    /// The teacher's number in its knowledge (teachers are few: each name
    /// is kept once).
    pub(crate) teacher: u32,
    depth: u32,
    /// The collection's number in its knowledge.
    pub(crate) collection: u32,
    flags: u8,
    key_len: u8,
    /// The entry, when it is short (most are): compared without reading
    /// `text`. Its first `key_len` bytes; `text` holds it when `key_len`
    /// is [`KEY_IN_TEXT`].
    key: [u8; KEY_INLINE],
}

/// What a [`Change`] makes of itself when first asked for, and keeps: one
/// pointer in the change while nothing is asked, as for most versions.
#[derive(Clone, Default)]
struct Cache {
    /// The value as its learnable's type, once read.
    typed: OnceLock<Typed>,
    /// The full record, once asked for (always, for a kept one).
    record: OnceLock<Box<VersionRecord>>,
}

impl Change {
    /// `record` of the collection numbered `collection`, taught by the
    /// teacher numbered `teacher`, at `link` in its entry's chain, its value
    /// written as `value_json` ([`value_json`] of `record.value`). (Its
    /// `previous_version_id` is not kept: it is the id of the collection's
    /// version before, which the knowledge holds.)
    pub(crate) fn new(
        record: RecordView<'_>,
        collection: u32,
        teacher: u32,
        link: EntryLink,
        value_json: Option<&str>,
        texts: &TextBlocks,
    ) -> Change {
        let inline = (record.entry.len() <= KEY_INLINE).then(|| {
            let mut key = [0; KEY_INLINE];
            key[..record.entry.len()].copy_from_slice(record.entry.as_bytes());
            key
        });
        let mut change = Change {
            text: SharedText::default(),
            key: inline.unwrap_or_default(),
            key_len: match inline {
                Some(_) => u8::try_from(record.entry.len()).unwrap_or(KEY_IN_TEXT),
                None => KEY_IN_TEXT,
            },
            ends: [0; 4],
            flags: if record.reason.is_some() { REASON } else { 0 }
                | if record.retracted { RETRACTED } else { 0 },
            collection,
            teacher,
            position: record.position,
            definition_version: record.definition_version,
            taught_at_ms: record.taught_at_ms,
            previous: link.previous,
            jump: link.jump,
            depth: link.depth,
            cache: OnceBox::new(),
        };
        match compact(record, inline.is_none(), value_json, texts) {
            Some((text, ends)) => {
                change.text = text;
                change.ends = ends;
            }
            None => {
                change.flags |= KEPT;
                let _ = change.cache().record.set(Box::new(record.to_record()));
            }
        }
        change
    }

    /// Where the version stands in its entry's chain.
    pub(crate) fn link(&self) -> EntryLink {
        EntryLink {
            previous: self.previous,
            jump: self.jump,
            depth: self.depth,
        }
    }

    fn part(&self, index: usize) -> Option<&str> {
        if self.flags & KEPT != 0 {
            return None;
        }
        let start = index
            .checked_sub(1)
            .map_or(0, |before| usize::from(self.ends[before]));
        let end = self
            .ends
            .get(index)
            .map_or(self.text.len(), |end| usize::from(*end));
        self.text.get(start, end)
    }

    fn cache(&self) -> &Cache {
        self.cache.get_or_init(Box::default)
    }

    /// Whether the version retracts its entry: from it on, the entry is
    /// absent.
    pub(crate) fn is_retracted(&self) -> bool {
        self.flags & RETRACTED != 0
    }

    /// The value as its learnable's type, once read.
    pub(crate) fn typed(&self) -> &OnceLock<Typed> {
        &self.cache().typed
    }

    /// When the version was taught, in milliseconds since the Unix epoch.
    pub(crate) fn taught_at_ms(&self) -> u64 {
        self.taught_at_ms
    }

    /// The version's parts as kept, borrowed: its reason, description and
    /// value as compact JSON; `None` for a version kept whole (see
    /// [`Change::kept_record`]).
    pub(crate) fn parts(&self) -> Option<(Option<&str>, &str, &str)> {
        let reason = self.part(2)?;
        Some((
            (self.flags & REASON != 0).then_some(reason),
            self.part(3)?,
            self.part(4)?,
        ))
    }

    /// The full record, if it was made already.
    pub(crate) fn kept_record(&self) -> Option<&VersionRecord> {
        self.kept()
    }

    fn kept(&self) -> Option<&VersionRecord> {
        self.cache.get()?.record.get().map(|full| &**full)
    }

    /// The version's id.
    pub(crate) fn version_id(&self) -> &str {
        match self.part(0) {
            Some(id) => id,
            None => self.kept().map_or("", |full| &full.version_id),
        }
    }

    /// The entry the version changed.
    pub(crate) fn entry(&self) -> &str {
        if let Some(key) = self.inline_key() {
            // Copied from a `str` at a length that ends it.
            return std::str::from_utf8(key).unwrap_or_default();
        }
        match self.part(1) {
            Some(entry) => entry,
            None => self.kept().map_or("", |full| &full.entry),
        }
    }

    /// Whether the version changed the entry `key`.
    pub(crate) fn is_entry(&self, key: &str) -> bool {
        match self.inline_key() {
            Some(inline) => same_bytes(inline, key.as_bytes()),
            None => same_bytes(self.entry().as_bytes(), key.as_bytes()),
        }
    }

    fn inline_key(&self) -> Option<&[u8]> {
        self.key.get(..usize::from(self.key_len))
    }

    /// The entry's value from this version on.
    pub(crate) fn value(&self) -> LessonValue {
        if let Some(full) = self.kept() {
            return full.value.clone();
        }
        // The text was written from a `LessonValue` no deeper than the
        // parser's limit: it parses back.
        self.part(4)
            .and_then(|json| serde_json::from_str(json).ok())
            .unwrap_or_default()
    }

    /// Whether the entry's value from this version on is `value`, written
    /// as `value_json` ([`value_json`] of `value`): compared as compact
    /// JSON, so that a number is compared as it was written (0.0 and -0.0
    /// differ), never as parsed back.
    pub(crate) fn value_is(&self, value: &LessonValue, value_json: Option<&str>) -> bool {
        if let Some(full) = self.kept() {
            return full.value == *value;
        }
        let stored = self.part(4).unwrap_or_default();
        value_json == Some(stored)
    }

    /// The full record, made once, of a version of `names.collection`.
    pub(crate) fn record(&self, names: impl FnOnce() -> Names) -> &VersionRecord {
        self.cache()
            .record
            .get_or_init(|| Box::new(self.to_record(names())))
    }

    /// A copy of the full record, made without keeping it.
    pub(crate) fn to_record(&self, names: Names) -> VersionRecord {
        if let Some(full) = self.kept() {
            return full.clone();
        }
        let part = |index| self.part(index).unwrap_or_default().to_owned();
        VersionRecord {
            position: self.position,
            collection: names.collection,
            definition_version: self.definition_version,
            version_id: part(0),
            previous_version_id: names.previous_version_id,
            entry: self.entry().to_owned(),
            value: self.value(),
            taught_by: names.taught_by,
            reason: (self.flags & REASON != 0).then(|| part(2)),
            describes: part(3),
            taught_at_ms: self.taught_at_ms,
            retracted: self.is_retracted(),
        }
    }
}

/// A value as a change keeps it and compares it: compact JSON (`None` if
/// it cannot be written, which a `LessonValue` always can).
pub(crate) fn value_json(value: &LessonValue) -> Option<String> {
    serde_json::to_string(value).ok()
}

/// The compact form of `record` (its text and where the parts end, the
/// entry in the text if `with_entry`), its value written as `value_json`;
/// `None` when it is too large or its value too deep to be kept as text.
fn compact(
    record: RecordView<'_>,
    with_entry: bool,
    value_json: Option<&str>,
    texts: &TextBlocks,
) -> Option<(SharedText, [u16; 4])> {
    let value = value_json?;
    if let ValueRef::Parsed(parsed) = record.value
        && parsed
            .entries()
            .any(|(_, field)| nesting_exceeds(field, DEEPEST_AS_TEXT - 1))
    {
        return None;
    }
    let parts = [
        record.version_id,
        if with_entry { record.entry } else { "" },
        record.reason.unwrap_or_default(),
        record.describes,
    ];
    let mut ends = [0u16; 4];
    let mut length = 0;
    for (end, part) in ends.iter_mut().zip(parts) {
        length += part.len();
        *end = u16::try_from(length).ok()?;
    }
    let [id, entry, reason, describes] = parts;
    Some((texts.keep(&[id, entry, reason, describes, value]), ends))
}

/// Whether `value` nests more than `limit` arrays and objects.
fn nesting_exceeds(value: &Value, limit: usize) -> bool {
    match value {
        Value::Array(items) => {
            limit == 0 || items.iter().any(|item| nesting_exceeds(item, limit - 1))
        }
        Value::Object(fields) => {
            limit == 0
                || fields
                    .values()
                    .any(|field| nesting_exceeds(field, limit - 1))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(entry: &str, value: Value, reason: Option<&str>) -> VersionRecord {
        VersionRecord {
            position: 7,
            collection: "routing_rules".to_owned(),
            definition_version: 3,
            version_id: uuid::Uuid::now_v7().to_string(),
            previous_version_id: Some("before".to_owned()),
            entry: entry.to_owned(),
            value: LessonValue::try_from(value).unwrap(),
            taught_by: "alice@example.com".to_owned(),
            reason: reason.map(str::to_owned),
            describes: "Chapter 85 goes to the général desk".to_owned(),
            taught_at_ms: 1_700_000_000_000,
            retracted: false,
        }
    }

    fn names(record: &VersionRecord) -> Names {
        Names {
            collection: record.collection.clone(),
            taught_by: record.taught_by.clone(),
            previous_version_id: record.previous_version_id.clone(),
        }
    }

    #[test]
    fn a_change_gives_back_the_record_it_was_made_from() {
        let mut deep = serde_json::json!("bottom");
        for _ in 0..DEEPEST_AS_TEXT + 5 {
            deep = serde_json::json!([deep]);
        }
        let records = [
            record(
                "85",
                serde_json::json!({"desk": "general", "note": null}),
                None,
            ),
            record(
                "a key longer than fifteen bytes, ü",
                serde_json::json!({"n": 1.5}),
                Some(""),
            ),
            record("", serde_json::json!({}), Some("because")),
            record("deep", serde_json::json!({ "deep": deep }), Some("deep")),
        ];
        let texts = TextBlocks::default();
        for original in records {
            let json = value_json(&original.value);
            let change = Change::new(
                original.view(),
                0,
                0,
                EntryLink::default(),
                json.as_deref(),
                &texts,
            );
            assert_eq!(change.entry(), original.entry);
            assert!(change.is_entry(&original.entry));
            assert!(!change.is_entry("86"));
            assert_eq!(change.version_id(), original.version_id);
            assert_eq!(change.value(), original.value);
            assert!(change.value_is(&original.value, json.as_deref()));
            let other = LessonValue::try_from(serde_json::json!({"n": 2})).unwrap();
            assert!(!change.value_is(&other, value_json(&other).as_deref()));
            assert_eq!(change.to_record(names(&original)), original);
            assert_eq!(change.record(|| names(&original)), &original);
        }
    }
}
