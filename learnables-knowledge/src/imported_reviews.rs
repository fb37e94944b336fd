//! The checks the records of proposals read from an export pass before
//! they are imported, and the rule they serve: an import is teach and
//! review. A checksum proves only that a line was not changed by accident,
//! so a file written on purpose must not bring in a version of a reviewed
//! learnable that nobody approved, an approval by the proposal's own
//! author, or words the agent never said.
//!
//! Each proposal is checked as a lesson is (its collection registered and
//! declared with review, its entry, its value read by the learnable for
//! that entry, its teacher and reason), each decision as a decision is
//! (another teacher than the author, each approver once, nothing after the
//! proposal was decided, a rejection with a reason). What is derived is
//! computed here, never read from the file: the `describes` sentence, the
//! number of approvals needed (the learnable's, today), and which version
//! the last approval makes (it must be the file's version that the
//! proposal's value would make). Every version of a reviewed learnable must
//! be made by such an approval.

use std::collections::{HashMap, HashSet};

use crate::identity;
use crate::proposal::{ReviewEvent, ReviewRecord};
use crate::registry::Registry;
use crate::untrusted::{HiddenCharacter, Untrusted};
use crate::{ImportError, Lesson, LessonValue, VersionRecord};

/// A proposal read so far: what its approvals are checked against.
struct Read {
    author: String,
    needed: u32,
    approvers: Vec<String>,
    decided: bool,
    collection: String,
    entry: String,
    value: LessonValue,
    retract: bool,
    based_on: Option<String>,
}

/// Checks `reviews` (read from the lines `review_lines`) against the
/// versions of the file (`versions`, read from `version_lines`) and the
/// learnables of `registry`, setting what is derived; refuses the first
/// record or version at fault, naming its line.
pub(crate) fn check(
    versions: &[VersionRecord],
    version_lines: &[u64],
    reviews: &mut [ReviewRecord],
    review_lines: &[u64],
    registry: &Registry,
) -> Result<(), ImportError> {
    let by_id: HashMap<&str, &VersionRecord> = versions
        .iter()
        .map(|version| (version.version_id.as_str(), version))
        .collect();
    // The entry's version before each version.
    let mut before: HashMap<&str, Option<&str>> = HashMap::new();
    let mut last: HashMap<(&str, &str), &str> = HashMap::new();
    for version in versions {
        let key = (version.collection.as_str(), version.entry.as_str());
        before.insert(&version.version_id, last.get(&key).copied());
        last.insert(key, &version.version_id);
    }
    let mut read: HashMap<String, Read> = HashMap::new();
    let mut made: HashSet<String> = HashSet::new();
    for (record, &line) in reviews.iter_mut().zip(review_lines) {
        let refuse = |field: &'static str, reason: String| ImportError::Invalid {
            line,
            field,
            reason,
        };
        let registration = registry.get(&record.collection).ok_or_else(|| {
            refuse(
                "collection",
                format!(
                    "`{}` is not a collection this knowledge reads: register its learnable \
                     before importing",
                    shown(&record.collection)
                ),
            )
        })?;
        let descriptor = (registration.descriptor)();
        let Some(rule) = descriptor.review else {
            return Err(refuse(
                "collection",
                format!(
                    "the learnable of `{}` is not declared with review: its lessons are learned \
                     at once, never proposed",
                    shown(&record.collection)
                ),
            ));
        };
        texts(record).map_err(|(field, reason)| refuse(field, reason))?;
        match &mut record.event {
            ReviewEvent::Proposed {
                value,
                retract,
                describes,
                based_on,
                based_on_version,
                approvals_needed,
            } => {
                if *retract {
                    if !value.is_empty() {
                        return Err(refuse(
                            "event.value",
                            "a proposal to retract its entry holds no value".to_owned(),
                        ));
                    }
                    let derived =
                        crate::revert::retraction(&descriptor.entry, &record.entry).describes;
                    *describes = crate::revert::said_again(describes, derived);
                } else {
                    let taught = (registration.absorb)(value, &record.entry).map_err(|error| {
                        refuse(
                            "event.value",
                            format!(
                                "it is not a value its entry `{}` could be taught: {}",
                                shown(&record.entry),
                                Untrusted::new(&error.to_string()).max_chars(400)
                            ),
                        )
                    })?;
                    *value = taught.value;
                    *describes = crate::revert::said_again(describes, taught.describes);
                }
                let base = based_on.as_deref().map(|id| by_id.get(id));
                let fits = match base {
                    None => based_on_version.is_none(),
                    Some(None) => false,
                    Some(Some(version)) => {
                        version.collection == record.collection
                            && version.entry == record.entry
                            && *based_on_version == Some(version.definition_version)
                    }
                };
                if !fits {
                    return Err(refuse(
                        "event.basedOn",
                        "it is not based on a version of its entry that the file holds".to_owned(),
                    ));
                }
                *approvals_needed = rule.approvals;
                read.insert(
                    record.proposal_id.clone(),
                    Read {
                        author: record.teacher.clone(),
                        needed: rule.approvals,
                        approvers: Vec::new(),
                        decided: false,
                        collection: record.collection.clone(),
                        entry: record.entry.clone(),
                        value: value.clone(),
                        retract: *retract,
                        based_on: based_on.clone(),
                    },
                );
            }
            ReviewEvent::Approved { makes_version } => {
                let proposal = read
                    .get_mut(&record.proposal_id)
                    .ok_or_else(|| refuse("proposalId", "it follows no proposal".to_owned()))?;
                if proposal.decided {
                    return Err(refuse(
                        "event",
                        "it approves a proposal already decided".to_owned(),
                    ));
                }
                if identity::same(&record.teacher, &proposal.author) {
                    return Err(refuse(
                        "teacher",
                        format!(
                            "`{}` approves their own proposal: another teacher approves it",
                            shown(&record.teacher)
                        ),
                    ));
                }
                if proposal
                    .approvers
                    .iter()
                    .any(|by| identity::same(by, &record.teacher))
                {
                    return Err(refuse(
                        "teacher",
                        format!(
                            "`{}` approves the proposal a second time: each approval is another \
                             teacher's",
                            shown(&record.teacher)
                        ),
                    ));
                }
                proposal.approvers.push(record.teacher.clone());
                let complete = proposal.approvers.len() >= proposal.needed as usize;
                match (complete, makes_version.as_deref()) {
                    (false, None) => {}
                    (false, Some(_)) => {
                        return Err(refuse(
                            "event.makesVersion",
                            format!(
                                "it makes a version with {} of the {} approvals its learnable \
                                 needs",
                                proposal.approvers.len(),
                                proposal.needed
                            ),
                        ));
                    }
                    (true, None) => {
                        return Err(refuse(
                            "event.makesVersion",
                            "the last approval the proposal needs names no version".to_owned(),
                        ));
                    }
                    (true, Some(version_id)) => {
                        proposal.decided = true;
                        if let Some(version) = by_id.get(version_id) {
                            let makes = version.collection == proposal.collection
                                && version.entry == proposal.entry
                                && identity::same(&version.taught_by, &proposal.author)
                                && version.retracted == proposal.retract
                                && (proposal.retract || version.value == proposal.value)
                                && before.get(version_id).copied().flatten()
                                    == proposal.based_on.as_deref();
                            if !makes || !made.insert(version_id.to_owned()) {
                                return Err(refuse(
                                    "event.makesVersion",
                                    format!(
                                        "it names the version `{}`, which is not the one the \
                                         proposal's value makes of its entry",
                                        shown(version_id)
                                    ),
                                ));
                            }
                        }
                        // A version the file does not hold: the approval's
                        // version was not made before the export (a crash
                        // came between); the next approval makes it, if the
                        // entry is still where the proposal found it.
                    }
                }
            }
            ReviewEvent::Rejected => {
                let proposal = read
                    .get_mut(&record.proposal_id)
                    .ok_or_else(|| refuse("proposalId", "it follows no proposal".to_owned()))?;
                if proposal.decided {
                    return Err(refuse(
                        "event",
                        "it rejects a proposal already decided".to_owned(),
                    ));
                }
                if record.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
                    return Err(refuse("reason", "a rejection gives its reason".to_owned()));
                }
                proposal.decided = true;
            }
        }
    }
    for (version, &line) in versions.iter().zip(version_lines) {
        let Some(rule) = registry
            .get(&version.collection)
            .and_then(|registration| (registration.descriptor)().review)
        else {
            continue;
        };
        if !made.contains(&version.version_id) {
            return Err(ImportError::Invalid {
                line,
                field: "versionId",
                reason: format!(
                    "the learnable of `{}` learns a lesson only once {} approve{} it, and no \
                     approval in the file made this version",
                    shown(&version.collection),
                    match rule.approvals {
                        1 => "another teacher".to_owned(),
                        n => format!("{n} other teachers"),
                    },
                    if rule.approvals == 1 { "s" } else { "" },
                ),
            });
        }
    }
    Ok(())
}

/// Checks a record's texts as a lesson's are checked: its entry, its
/// teacher (one a person can read as written, [`identity::check`]) and its
/// reason, each within a lesson's length.
fn texts(record: &ReviewRecord) -> Result<(), (&'static str, String)> {
    if record.entry.is_empty() {
        return Err(("entry", "the record names no entry".to_owned()));
    }
    for (field, name, text) in [
        ("entry", "entry", Some(record.entry.as_str())),
        ("teacher", "taughtBy", Some(record.teacher.as_str())),
        ("reason", "reason", record.reason.as_deref()),
    ] {
        let limit = Lesson::max_chars(name).unwrap_or(usize::MAX);
        if text.is_some_and(|text| text.chars().nth(limit).is_some()) {
            return Err((
                field,
                format!("it is longer than a lesson's limit of {limit} characters"),
            ));
        }
    }
    HiddenCharacter::check("entry", &record.entry).map_err(|error| ("entry", error.to_string()))?;
    identity::check(&record.teacher).map_err(|problem| {
        (
            "teacher",
            format!(
                "`{}` {problem}: no teacher is named so",
                shown(&record.teacher)
            ),
        )
    })
}

/// Text from the file, as an error may show it.
fn shown(text: &str) -> Untrusted<'_> {
    Untrusted::new(text).max_chars(80)
}
