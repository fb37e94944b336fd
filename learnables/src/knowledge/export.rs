//! [`Knowledge::export`]: every version of a knowledge as JSON Lines, to
//! back it up or move it to another back end ([`Knowledge::import`]).
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

use super::Knowledge;
use super::off_runtime::off_runtime;
use super::version::Version;

/// The format's name, in the first and last lines.
pub(crate) const FORMAT: &str = "learnables-knowledge";
/// The format's version, in the first line.
pub(crate) const FORMAT_VERSION: u64 = 1;
/// How a version's line starts, before its checksum.
pub(crate) const VERSION_LINE: &[u8] = b"{\"crc32\":";

impl Knowledge {
    /// Writes every version of the knowledge as it is now (a pin of it:
    /// lessons taught meanwhile are not in it) to `out` as JSON Lines: a
    /// first line naming the format, one line per version in position order
    /// (ids, positions, teachers, times, reasons, values and retractions,
    /// each with a checksum), and a last line with the count of versions.
    /// Returns that count. [`Knowledge::import`] reads it into an empty
    /// knowledge on any back end, its learnables registered.
    ///
    /// ```
    /// use learnables::{Knowledge, Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>()?;
    /// let value = LessonValue::try_from(serde_json::json!({"desk": "general"}))?;
    /// knowledge.teach(&Lesson::new("routing_rules", "84", value, "alice@example.com"))?;
    /// let mut file = Vec::new();
    /// assert_eq!(knowledge.export(&mut file)?, 1);
    /// let text = String::from_utf8(file.clone())?;
    /// assert_eq!(text.lines().count(), 3);
    /// assert!(text.starts_with(r#"{"format":"learnables-knowledge","version":1}"#));
    ///
    /// let moved = Knowledge::in_memory();
    /// moved.register::<RoutingRule>()?;
    /// assert_eq!(moved.import(&file[..])?, 1);
    /// assert_eq!(moved.history("routing_rules"), knowledge.history("routing_rules"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn export(&self, out: impl Write) -> std::io::Result<u64> {
        let state = self.current();
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
        let reviews = off_runtime(|| self.shared.writer.storage().load_reviews())
            .map_err(std::io::Error::other)?;
        super::proposal_lines::write_lines(&reviews, &mut out)?;
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
