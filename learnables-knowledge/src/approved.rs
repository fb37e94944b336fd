//! [`Approved`]: what a proposal's last approval asks of the writer, and
//! the check that the entry has not changed since the proposal was made.

use crate::TeachError;
use crate::version::Version;

/// What a proposal's last approval asks of the writer: the version it
/// makes (named in the approval's record), only while the entry is still
/// at the version the proposal was based on.
pub(crate) struct Approved {
    pub(crate) proposal_id: String,
    pub(crate) version_id: String,
    pub(crate) based_on: Option<String>,
    pub(crate) based_on_version: Option<u64>,
}

impl Approved {
    /// Refuses, saying what changed, when the entry's latest version
    /// (`latest`, a retraction included) is not the one the proposal was
    /// based on.
    pub(crate) fn still_based_on(&self, latest: Option<&Version>) -> Result<(), TeachError> {
        let now = latest.map(|version| &*version.version_id);
        if now == self.based_on.as_deref() {
            return Ok(());
        }
        if now == Some(self.version_id.as_str()) {
            // Another replica finished it first.
            return Err(TeachError::ProposalClosed {
                proposal_id: self.proposal_id.clone(),
                how: format!("it was approved and learned as {}", self.version_id),
            });
        }
        Err(TeachError::StaleProposal {
            proposal_id: self.proposal_id.clone(),
            changed: changed_since(self.based_on_version, latest),
        })
    }
}

/// What changed of an entry since the version `based_on_version` (`None`:
/// it had none), in words.
pub(crate) fn changed_since(based_on_version: Option<u64>, latest: Option<&Version>) -> String {
    let was = match based_on_version {
        Some(number) => format!("version {number}"),
        None => "no version".to_owned(),
    };
    match latest {
        Some(version) => format!(
            "the entry is at version {} now ({}, taught by {}), not at {was} as when it was \
             proposed",
            version.definition_version, version.describes, version.taught_by
        ),
        None => format!("the entry has no version now, not {was} as when it was proposed"),
    }
}
