//! [`Change`]: one version as the knowledge keeps it in memory. Its text
//! fields share one allocation, its value is kept as compact JSON, and it
//! knows the entry's version before it; the full [`VersionRecord`] and the
//! typed value are made only when a reader asks for them.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::VersionRecord;
use crate::LessonValue;

/// A value as its learnable's type, behind `dyn Any`.
pub(crate) type Typed = Arc<dyn Any + Send + Sync>;

/// How deep a value may nest and still be kept as JSON text: parsing it
/// back must stay within `serde_json`'s recursion limit (128).
const DEEPEST_AS_TEXT: usize = 100;

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

/// A flag: the record has a reason.
const REASON: u8 = 1;
/// A flag: the record is too large or its value too deep to be kept as
/// text: `full` holds it, `text` is empty.
const KEPT: u8 = 2;

/// What a [`Change`] needs from its knowledge to make its full record.
pub(crate) struct Names {
    pub(crate) collection: String,
    pub(crate) taught_by: String,
    /// The id of the collection's version before.
    pub(crate) previous_version_id: Option<String>,
}

/// One version, compact.
#[derive(Clone)]
pub(crate) struct Change {
    /// Version id, entry, reason, description and value (compact JSON), one
    /// after the other.
    text: Box<str>,
    /// Where the first four parts of `text` end.
    ends: [u16; 4],
    flags: u8,
    /// The collection's number in its knowledge.
    pub(crate) collection: u32,
    /// The teacher's number in its knowledge (teachers are few: each name
    /// is kept once).
    pub(crate) teacher: u32,
    pub(crate) position: u64,
    pub(crate) definition_version: u64,
    taught_at_ms: u64,
    /// The entry's chain: see [`EntryLink`].
    previous: u64,
    jump: u64,
    depth: u32,
    /// The full record, once asked for (always, for a `Kept` change).
    full: OnceLock<Box<VersionRecord>>,
    /// The value as its learnable's type, once read or taught.
    pub(crate) typed: OnceLock<Typed>,
}

impl Change {
    /// `record` of the collection numbered `collection`, taught by the
    /// teacher numbered `teacher`, at `link` in its entry's chain. (Its
    /// `previous_version_id` is not kept: it is the id of the collection's
    /// version before, which the knowledge holds.)
    pub(crate) fn new(
        record: VersionRecord,
        collection: u32,
        teacher: u32,
        link: EntryLink,
    ) -> Change {
        let mut change = Change {
            text: Box::default(),
            ends: [0; 4],
            flags: if record.reason.is_some() { REASON } else { 0 },
            collection,
            teacher,
            position: record.position,
            definition_version: record.definition_version,
            taught_at_ms: record.taught_at_ms,
            previous: link.previous,
            jump: link.jump,
            depth: link.depth,
            full: OnceLock::new(),
            typed: OnceLock::new(),
        };
        match compact(&record) {
            Some((text, ends)) => {
                change.text = text;
                change.ends = ends;
            }
            None => {
                change.flags |= KEPT;
                let _ = change.full.set(Box::new(record));
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
        self.text.get(start..end)
    }

    fn kept(&self) -> Option<&VersionRecord> {
        self.full.get().map(|full| &**full)
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
        match self.part(1) {
            Some(entry) => entry,
            None => self.kept().map_or("", |full| &full.entry),
        }
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

    /// The full record, made once, of a version of `names.collection`.
    pub(crate) fn record(&self, names: impl FnOnce() -> Names) -> &VersionRecord {
        self.full.get_or_init(|| Box::new(self.to_record(names())))
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
            entry: part(1),
            value: self.value(),
            taught_by: names.taught_by,
            reason: (self.flags & REASON != 0).then(|| part(2)),
            describes: part(3),
            taught_at_ms: self.taught_at_ms,
        }
    }
}

/// The compact form of `record` (its text and where the parts end), `None`
/// when it is too large or its value too deep to be kept as text.
fn compact(record: &VersionRecord) -> Option<(Box<str>, [u16; 4])> {
    let value = serde_json::to_string(&record.value).ok()?;
    if record
        .value
        .entries()
        .any(|(_, field)| nesting_exceeds(field, DEEPEST_AS_TEXT - 1))
    {
        return None;
    }
    let parts = [
        record.version_id.as_str(),
        &record.entry,
        record.reason.as_deref().unwrap_or_default(),
        &record.describes,
    ];
    let mut text =
        String::with_capacity(parts.iter().map(|part| part.len()).sum::<usize>() + value.len());
    let mut ends = [0u16; 4];
    for (end, part) in ends.iter_mut().zip(parts) {
        text.push_str(part);
        *end = u16::try_from(text.len()).ok()?;
    }
    text.push_str(&value);
    Some((text.into_boxed_str(), ends))
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
