//! [`Knowledge::export`](crate::Knowledge::export): every version of a knowledge as JSON Lines, to
//! back it up or move it to another back end ([`Knowledge::import`](crate::Knowledge::import)).
//!
//! ```text
//! {"format":"learnables-knowledge","version":1}
//! {"crc32":3735928559,"position":1,"collection":"routing_rules","definitionVersion":1,...}
//! ...
//! {"end":"learnables-knowledge","versions":2}
//! ```
//!
//! The first line names the format and its version; then one line per
//! version, in position order: the version's record (`position`,
//! `collection`, `definitionVersion`, `versionId`, `previousVersionId`,
//! `entry`, `value`, `taughtBy`, `reason`, `describes`, `taughtAtMs`,
//! `retracted`, as the embedded store writes them) preceded by `crc32`, the
//! CRC-32 of the line's bytes after the `,` that ends it; the last line
//! says the file ends, and how many versions it holds. A file cut short
//! has no last line; a line edited fails its checksum. The records of
//! proposals follow the versions, each on a line of its own, and the last
//! line counts them (`proposal_lines.rs`).

use std::io::Write;

use crate::proposal::ReviewRecord;
use crate::state::State;
use crate::version::Version;

/// The format's name, in the first and last lines.
pub(crate) const FORMAT: &str = "learnables-knowledge";
/// The format's version, in the first line.
pub(crate) const FORMAT_VERSION: u64 = 1;
/// How a version's line starts, before its checksum.
pub(crate) const VERSION_LINE: &[u8] = b"{\"crc32\":";

/// Writes every version of `state` to `out`: see
/// [`Knowledge::export`](crate::Knowledge::export).
pub(crate) fn export(
    state: &State,
    reviews: &[ReviewRecord],
    out: impl Write,
) -> std::io::Result<u64> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    writeln!(
        out,
        "{{\"format\":\"{FORMAT}\",\"version\":{FORMAT_VERSION}}}"
    )?;
    let mut line = Vec::with_capacity(1024);
    let mut digits = itoa::Buffer::new();
    for version in state.versions() {
        line.clear();
        write_body(&version, &mut line)?;
        out.write_all(VERSION_LINE)?;
        out.write_all(digits.format(crc32fast::hash(&line)).as_bytes())?;
        out.write_all(b",")?;
        out.write_all(&line)?;
        out.write_all(b"\n")?;
    }
    crate::proposal_lines::write_lines(reviews, &mut out)?;
    if reviews.is_empty() {
        writeln!(
            out,
            "{{\"end\":\"{FORMAT}\",\"versions\":{}}}",
            state.position()
        )?;
    } else {
        writeln!(
            out,
            "{{\"end\":\"{FORMAT}\",\"versions\":{},\"reviews\":{}}}",
            state.position(),
            reviews.len()
        )?;
    }
    out.flush()?;
    Ok(state.position())
}

/// The record of `version` as JSON without its opening `{`: its value
/// written as kept, never parsed back.
fn write_body(version: &Version, out: &mut Vec<u8>) -> std::io::Result<()> {
    let mut digits = itoa::Buffer::new();
    let text = |out: &mut Vec<u8>, key: &[u8], value: &str| -> std::io::Result<()> {
        out.extend_from_slice(key);
        serde_json::to_writer(&mut *out, value)?;
        Ok(())
    };
    out.extend_from_slice(b"\"position\":");
    out.extend_from_slice(digits.format(version.position).as_bytes());
    text(out, b",\"collection\":", &version.collection)?;
    out.extend_from_slice(b",\"definitionVersion\":");
    out.extend_from_slice(digits.format(version.definition_version).as_bytes());
    text(out, b",\"versionId\":", &version.version_id)?;
    if let Some(previous) = &version.previous_version_id {
        text(out, b",\"previousVersionId\":", previous)?;
    }
    text(out, b",\"entry\":", &version.entry)?;
    out.extend_from_slice(b",\"value\":");
    out.extend_from_slice(version.value_json().as_bytes());
    text(out, b",\"taughtBy\":", &version.taught_by)?;
    if let Some(reason) = &version.reason {
        text(out, b",\"reason\":", reason)?;
    }
    text(out, b",\"describes\":", &version.describes)?;
    out.extend_from_slice(b",\"taughtAtMs\":");
    out.extend_from_slice(digits.format(version.taught_at_ms).as_bytes());
    if version.retracted {
        out.extend_from_slice(b",\"retracted\":true");
    }
    out.push(b'}');
    Ok(())
}
