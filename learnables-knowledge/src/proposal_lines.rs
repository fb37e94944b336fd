//! The records of proposals in an export ([`Knowledge::export`]): after
//! the versions, one line per record, the record as JSON preceded by
//! `reviewCrc32`, the CRC-32 of the line's bytes after the `,` that ends
//! it, as a version's line is; the last line then counts them
//! (`"reviews":N`). An export of a knowledge without proposals has no
//! such line, and its last line no such count.
//!
//! ```text
//! {"reviewCrc32":1234567890,"proposalId":"0193...","seq":0,"collection":"clearance_limits",...}
//! ```

use std::io::Write;

use super::proposal::ReviewRecord;
use super::storage::check_review_follows_on;

/// How a review line starts, before its checksum.
pub(crate) const REVIEW_LINE: &[u8] = b"{\"reviewCrc32\":";

/// Writes one line per record of `records`.
pub(crate) fn write_lines(records: &[ReviewRecord], out: &mut impl Write) -> std::io::Result<()> {
    let mut digits = itoa::Buffer::new();
    for record in records {
        let json = serde_json::to_vec(record)?;
        // The record's JSON without its opening `{`.
        let body = &json[1..];
        out.write_all(REVIEW_LINE)?;
        out.write_all(digits.format(crc32fast::hash(body)).as_bytes())?;
        out.write_all(b",")?;
        out.write_all(body)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The record a review line holds, its checksum checked, and numbered as
/// the next of its proposal among `read` (the records read before it).
pub(crate) fn read_line(line: &[u8], read: &[ReviewRecord]) -> Result<ReviewRecord, String> {
    let body = crate::checked_line::checked_body(line, REVIEW_LINE.len())?;
    let mut json = Vec::with_capacity(body.len() + 1);
    json.push(b'{');
    json.extend_from_slice(body);
    let record: ReviewRecord = serde_json::from_slice(&json)
        .map_err(|error| format!("it does not read as a record of a proposal: {error}"))?;
    check_review_follows_on(read, &record).map_err(|_| {
        format!(
            "the record {} of the proposal `{}` is out of its order",
            record.seq,
            crate::untrusted::Untrusted::new(&record.proposal_id)
        )
    })?;
    Ok(record)
}
