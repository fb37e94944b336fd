//! The checks a version read from an export passes before it is imported:
//! the ones a lesson passes before it is taught. A checksum proves only
//! that a line was not changed by accident (anyone can compute it again),
//! so a file edited on purpose must not bring in what no teacher could
//! have taught: a collection this agent does not read, a value its type
//! refuses or one that names another entry, a teacher's name that is no
//! one's, texts past the lengths the teach method allows.

use crate::Lesson;
use crate::untrusted::Untrusted;

use crate::VersionRecord;
use crate::core_shared::Unfit;
use crate::registry::Registry;
use crate::unreadable::UnreadableReport;

/// Why a version read from an export cannot be imported.
pub(super) enum Unfitting {
    /// A field breaks a rule teach applies: the field, as the export
    /// names it, and why.
    Field(&'static str, String),
    /// The value does not read as its collection's registered type: added
    /// to the report, as a store that opens with such versions reports
    /// them.
    Unreadable,
}

/// Checks `record` as a lesson on its collection would be checked; a value
/// that does not read is added to `unreadable`.
pub(super) fn check(
    record: &VersionRecord,
    registry: &Registry,
    unreadable: &mut UnreadableReport,
) -> Result<(), Unfitting> {
    let field = |name: &'static str, reason: String| Err(Unfitting::Field(name, reason));
    let Some(registration) = registry.get(&record.collection) else {
        let mut known: Vec<&str> = registry.keys().map(String::as_str).collect();
        known.sort_unstable();
        let known = match known.as_slice() {
            [] => "none is registered".to_owned(),
            names => format!("registered: {}", names.join(", ")),
        };
        return field(
            "collection",
            format!(
                "`{}` is not a collection this knowledge reads ({known}): register its \
                 learnable before importing",
                shown(&record.collection)
            ),
        );
    };
    if record.entry.is_empty() {
        return field("entry", "the version names no entry".to_owned());
    }
    for (name, text) in [
        ("entry", Some(record.entry.as_str())),
        ("taughtBy", Some(record.taught_by.as_str())),
        ("reason", record.reason.as_deref()),
    ] {
        let limit = Lesson::max_chars(name).unwrap_or(usize::MAX);
        if text.is_some_and(|text| text.chars().nth(limit).is_some()) {
            return field(
                name,
                format!("it is longer than a lesson's limit of {limit} characters"),
            );
        }
    }
    if record.taught_by.trim().is_empty() {
        return field("taughtBy", "the version names no teacher".to_owned());
    }
    // A teacher is named by the identity that authenticated them, one a
    // person reads as written: no control, bidirectional or invisible
    // character (each would reach a terminal or a page as an instruction),
    // no mix of scripts (it could pass for another teacher).
    if let Err(problem) = crate::identity::check(&record.taught_by) {
        return field(
            "taughtBy",
            format!(
                "`{}` {problem}: no teacher is named so",
                shown(&record.taught_by)
            ),
        );
    }
    if record.retracted {
        if !record.value.is_empty() {
            return field(
                "value",
                "a version that retracts its entry holds no value".to_owned(),
            );
        }
        return Ok(());
    }
    match (registration.fits)(&record.value, &record.entry) {
        Ok(()) => Ok(()),
        Err(Unfit::Unreadable(error)) => {
            unreadable.add(&record.collection, &record.entry, &error);
            Err(Unfitting::Unreadable)
        }
        Err(Unfit::OtherEntry(error)) => field(
            "value",
            format!(
                "it does not fit its entry `{}`: {}",
                shown(&record.entry),
                Untrusted::new(&error.to_string()).max_chars(400)
            ),
        ),
    }
}

/// The `describes` sentence of `record` as the agent says it today (what
/// the file says is not read: it is derived), for a version that passed
/// [`check`].
pub(super) fn describes(record: &VersionRecord, registry: &Registry) -> Option<String> {
    let registration = registry.get(&record.collection)?;
    let derived = if record.retracted {
        let noun = &(registration.descriptor)().entry;
        crate::revert::retraction(noun, &record.entry).describes
    } else {
        (registration.absorb)(&record.value, &record.entry)
            .ok()?
            .describes
    };
    Some(crate::revert::said_again(&record.describes, derived))
}

/// Text from the file, as an error may show it.
fn shown(text: &str) -> Untrusted<'_> {
    Untrusted::new(text).max_chars(80)
}
