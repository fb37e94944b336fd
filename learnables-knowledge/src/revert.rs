//! Undoing lessons: [`Knowledge::revert`](crate::Knowledge::revert) teaches
//! an entry's earlier value again, [`Knowledge::retract`](crate::Knowledge::retract)
//! makes the entry absent. Both make a new
//! version, like any lesson: history stays linear and immutable, and pins
//! taken before still see the entry as it was.

use crate::TeachError;
use crate::registry::Absorbed;
use crate::shared::Shared;
use crate::version::value_json;
use crate::writer::Pending;
use crate::{LessonResult, LessonValue};

/// Teaches `entry` the value it had in its version `version_id` again:
/// see [`Knowledge::revert`](crate::Knowledge::revert).
pub(crate) fn revert(
    shared: &Shared,
    collection: &str,
    entry: &str,
    version_id: &str,
    taught_by: &str,
    reason: Option<&str>,
) -> Result<LessonResult, TeachError> {
    Pending::check_names(collection, entry, taught_by)?;
    let registration = shared.registration(collection)?;
    let state = shared.current();
    let unknown = || TeachError::UnknownVersion {
        collection: collection.to_owned(),
        entry: entry.to_owned(),
        version_id: version_id.to_owned(),
    };
    let target = state
        .by_id(version_id)
        .filter(|version| *version.entry == *entry)
        .ok_or_else(unknown)?;
    let record = target.to_record();
    if record.collection != collection {
        return Err(unknown());
    }
    let (absorbed, retract) = if record.retracted {
        (retraction(&(registration.descriptor)().entry, entry), true)
    } else {
        ((registration.absorb)(&record.value, entry)?.into(), false)
    };
    let absorbed = Absorbed {
        describes: format!(
            "Reverted to version {}: {}",
            record.definition_version, absorbed.describes
        ),
        ..absorbed
    };
    shared.commit_or_propose(Pending::borrowed(
        collection, entry, taught_by, reason, absorbed, retract,
    ))
}

/// Makes `entry` absent: see [`Knowledge::retract`](crate::Knowledge::retract).
pub(crate) fn retract(
    shared: &Shared,
    collection: &str,
    entry: &str,
    taught_by: &str,
    reason: Option<&str>,
) -> Result<LessonResult, TeachError> {
    Pending::check_names(collection, entry, taught_by)?;
    let registration = shared.registration(collection)?;
    let absorbed = retraction(&(registration.descriptor)().entry, entry);
    shared.commit_or_propose(Pending::borrowed(
        collection, entry, taught_by, reason, absorbed, true,
    ))
}

/// What a retraction of `entry` (an entry of the kind `noun`) stores: no
/// value, and a description saying so.
/// The sentence of a version or a proposal as the agent says it: `derived`,
/// the learnable's sentence of its value, unless `stored` says it is a
/// revert of that value (`Reverted to version N: ` before it), which only
/// the agent's revert writes. Any other stored sentence is not read.
pub(crate) fn said_again(stored: &str, derived: String) -> String {
    let revert = stored
        .strip_prefix("Reverted to version ")
        .and_then(|rest| rest.split_once(": "))
        .filter(|(number, sentence)| {
            number.parse::<u64>().is_ok() && !number.starts_with('0') && *sentence == derived
        });
    match revert {
        Some(_) => stored.to_owned(),
        None => derived,
    }
}

pub(crate) fn retraction(noun: &str, entry: &str) -> Absorbed {
    let value = LessonValue::default();
    Absorbed {
        json: value_json(&value),
        value,
        describes: format!("The {noun} {entry} is retracted"),
    }
}
