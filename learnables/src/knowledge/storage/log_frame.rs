//! The layout of the embedded store's file, `knowledge.log`: a header, then
//! frames appended one after another.
//!
//! ```text
//! file   = MAGIC frame*
//! frame  = kind:u32 length:u32 payload_crc:u32 header_crc:u32 payload
//! ```
//!
//! Integers are little-endian; checksums are CRC-32 (IEEE). A *group*
//! frame's payload is the JSON array of the versions one commit stored,
//! all or none. A *seal* frame (no payload; its `payload_crc` repeats the
//! group's) follows a group once the group is synced to disk: it tells a
//! group the disk damaged later from a group a crash cut short. A seal is
//! written with the next group, or when the store closes, so that it costs
//! no write of its own.
//!
//! Reading back ([`scan`]) tells three things apart:
//! - a frame the process was writing when it stopped (a header or payload
//!   running past the end of the file, a last group that is neither sealed
//!   nor intact, or a last seal that is not whole): never acknowledged, so
//!   it is cut off;
//! - anything else that fails its checksum: the file was changed or the
//!   disk lost data, and the store is refused as damaged;
//! - intact frames: read.

use super::StoreError;
use crate::knowledge::VersionRecord;

/// The first bytes of every store file: what it is, and the layout's
/// version.
pub(super) const MAGIC: &[u8; 16] = b"learnables log 1";

/// The size of a frame's header.
pub(super) const HEADER_LEN: usize = 16;

/// A frame holding one commit's versions.
const GROUP: u32 = 0x5052_4731; // "1GRP"
/// A frame saying the group before it was synced.
const SEAL: u32 = 0x4c41_4553; // "SEAL"

/// The bytes of a group frame holding `records`, preceded by the seal of
/// the group before if it is not sealed yet (`unsealed`, that group's
/// payload checksum), and the new group's payload checksum, which its own
/// seal will repeat.
pub(super) fn group(
    unsealed: Option<u32>,
    records: &[VersionRecord],
) -> Result<(Vec<u8>, u32), String> {
    let mut bytes = Vec::with_capacity(2 * HEADER_LEN + 512 * records.len());
    if let Some(payload_crc) = unsealed {
        bytes.extend(seal(payload_crc));
    }
    let start = bytes.len();
    bytes.extend([0; HEADER_LEN]);
    serde_json::to_writer(&mut bytes, records).map_err(|error| error.to_string())?;
    let payload = &bytes[start + HEADER_LEN..];
    let length = u32::try_from(payload.len())
        .map_err(|_| "the versions of one commit exceed 4 GiB".to_owned())?;
    let payload_crc = crc32fast::hash(payload);
    bytes[start..start + HEADER_LEN].copy_from_slice(&header(GROUP, length, payload_crc));
    Ok((bytes, payload_crc))
}

/// The seal of the group whose payload checksum is `payload_crc`.
pub(super) fn seal(payload_crc: u32) -> [u8; HEADER_LEN] {
    header(SEAL, 0, payload_crc)
}

fn header(kind: u32, length: u32, payload_crc: u32) -> [u8; HEADER_LEN] {
    let mut header = [0; HEADER_LEN];
    header[0..4].copy_from_slice(&kind.to_le_bytes());
    header[4..8].copy_from_slice(&length.to_le_bytes());
    header[8..12].copy_from_slice(&payload_crc.to_le_bytes());
    let header_crc = crc32fast::hash(&header[..12]);
    header[12..16].copy_from_slice(&header_crc.to_le_bytes());
    header
}

/// What a store file holds.
#[derive(Debug)]
pub(super) struct Scanned {
    /// Every version, in the order written.
    pub records: Vec<VersionRecord>,
    /// Where the intact frames end: the file is cut here if it is longer
    /// (an unfinished write), and the next frame goes here.
    pub end: u64,
    /// The payload checksum of the last group, if no seal follows it.
    pub unsealed: Option<u32>,
}

/// Reads a store file's bytes; `name` names the file in errors.
pub(super) fn scan(bytes: &[u8], name: &str) -> Result<Scanned, StoreError> {
    let damaged = |offset: usize, what: &str| {
        StoreError::Damaged(format!(
            "{name} {what} at byte {offset} (it was changed outside this program, or the disk \
             lost data); restore it from a backup"
        ))
    };
    if bytes.len() < MAGIC.len() {
        // A file whose creation was cut short holds part of the header.
        if MAGIC.starts_with(bytes) {
            return Ok(Scanned {
                records: Vec::new(),
                end: 0,
                unsealed: None,
            });
        }
        return Err(damaged(0, "is not a learnables store"));
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return Err(damaged(0, "is not a learnables store"));
    }
    let mut records = Vec::new();
    let mut offset = MAGIC.len();
    // The payload checksum of the last group, until its seal is read.
    let mut unsealed: Option<u32> = None;
    while offset < bytes.len() {
        let rest = &bytes[offset..];
        let Some(frame) = Header::read(rest) else {
            // The last frame's header is incomplete, or whole but not
            // intact with nothing after it: a write cut short.
            if rest.len() <= HEADER_LEN {
                break;
            }
            return Err(damaged(
                offset,
                "has a frame header that fails its checksum",
            ));
        };
        let payload_start = offset + HEADER_LEN;
        match frame.kind {
            GROUP if unsealed.is_none() => {
                let Some(payload_end) = payload_start
                    .checked_add(frame.length as usize)
                    .filter(|end| *end <= bytes.len())
                else {
                    break; // The group's payload was not all written.
                };
                let payload = &bytes[payload_start..payload_end];
                if crc32fast::hash(payload) != frame.payload_crc {
                    if payload_end == bytes.len() {
                        break; // The last group, unsealed: not all written.
                    }
                    return Err(damaged(
                        offset,
                        "has a group of versions that fails its checksum",
                    ));
                }
                let group: Vec<VersionRecord> =
                    serde_json::from_slice(payload).map_err(|error| {
                        damaged(
                            offset,
                            &format!("has a group of versions that cannot be read ({error})"),
                        )
                    })?;
                records.extend(group);
                unsealed = Some(frame.payload_crc);
                offset = payload_end;
            }
            SEAL if frame.length == 0 && unsealed == Some(frame.payload_crc) => {
                unsealed = None;
                offset = payload_start;
            }
            _ => return Err(damaged(offset, "has a frame that does not belong there")),
        }
    }
    Ok(Scanned {
        records,
        end: offset as u64,
        unsealed,
    })
}

/// A frame's header, read back intact.
struct Header {
    kind: u32,
    length: u32,
    payload_crc: u32,
}

impl Header {
    /// The header at the start of `bytes`, if it is whole and intact.
    fn read(bytes: &[u8]) -> Option<Header> {
        let header = bytes.get(..HEADER_LEN)?;
        let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
        (crc32fast::hash(&header[..12]) == word(12)).then(|| Header {
            kind: word(0),
            length: word(4),
            payload_crc: word(8),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LessonValue;

    fn record(position: u64) -> VersionRecord {
        VersionRecord {
            position,
            collection: "routing_rules".into(),
            definition_version: position,
            version_id: format!("v{position}"),
            previous_version_id: None,
            entry: "84".into(),
            value: LessonValue::default(),
            taught_by: "ana@example.nl".into(),
            reason: None,
            describes: "Chapter 84".into(),
            taught_at_ms: 1,
        }
    }

    /// A file with a sealed group (position 1) and an unsealed one
    /// (position 2), and the second's payload checksum.
    fn file() -> (Vec<u8>, u32) {
        let (first, crc) = group(None, &[record(1)]).unwrap();
        let (second, crc) = group(Some(crc), &[record(2)]).unwrap();
        let mut bytes = MAGIC.to_vec();
        bytes.extend(first);
        bytes.extend(second);
        (bytes, crc)
    }

    /// `file()` followed by `last`.
    fn file_then(last: &[u8]) -> Vec<u8> {
        let mut bytes = file().0;
        bytes.extend(last);
        bytes
    }

    fn positions(scanned: &Scanned) -> Vec<u64> {
        scanned
            .records
            .iter()
            .map(|record| record.position)
            .collect()
    }

    #[test]
    fn sealed_and_unsealed_groups_are_read() {
        let (bytes, crc) = file();
        let scanned = scan(&bytes, "f").unwrap();
        assert_eq!(positions(&scanned), [1, 2]);
        assert_eq!(
            (scanned.end, scanned.unsealed),
            (bytes.len() as u64, Some(crc))
        );
        let sealed = file_then(&seal(crc));
        let scanned = scan(&sealed, "f").unwrap();
        assert_eq!(positions(&scanned), [1, 2]);
        assert_eq!((scanned.end, scanned.unsealed), (sealed.len() as u64, None));
    }

    #[test]
    fn a_write_cut_short_is_cut_off() {
        let (intact, crc) = file();
        let (next, _) = group(Some(crc), &[record(3)]).unwrap();
        for cut in 1..next.len() {
            let scanned = scan(&file_then(&next[..cut]), "f").unwrap();
            assert_eq!(positions(&scanned), [1, 2], "cut at {cut}");
            // Up to the seal, if the seal is whole.
            let end = if cut < HEADER_LEN { 0 } else { HEADER_LEN };
            assert_eq!(scanned.end, (intact.len() + end) as u64, "cut at {cut}");
        }
        // The last group whole but its bytes not all on disk.
        let mut torn = next.clone();
        let last = torn.len() - 1;
        torn[last] = 0;
        let scanned = scan(&file_then(&torn), "f").unwrap();
        assert_eq!(scanned.end, (intact.len() + HEADER_LEN) as u64);
        assert_eq!(positions(&scanned), [1, 2]);
    }

    #[test]
    fn a_changed_byte_before_the_last_seal_is_damage() {
        let (intact, crc) = file();
        let pristine = file_then(&seal(crc));
        for offset in 0..intact.len() {
            let mut bytes = pristine.clone();
            bytes[offset] ^= 0x01;
            match scan(&bytes, "knowledge.log") {
                Err(StoreError::Damaged(message)) => {
                    assert!(message.starts_with("knowledge.log "), "{message}");
                }
                other => panic!("a byte changed at {offset} was read as {other:?}"),
            }
        }
        // The last seal changed is a seal cut short: the groups stay.
        for offset in intact.len()..pristine.len() {
            let mut bytes = pristine.clone();
            bytes[offset] ^= 0x01;
            let scanned = scan(&bytes, "f").unwrap();
            assert_eq!(positions(&scanned), [1, 2]);
            assert_eq!(scanned.end, intact.len() as u64);
        }
    }

    #[test]
    fn a_group_after_an_unsealed_one_is_damage() {
        let (next, _) = group(None, &[record(3)]).unwrap();
        assert!(matches!(
            scan(&file_then(&next), "f"),
            Err(StoreError::Damaged(_))
        ));
    }

    #[test]
    fn a_file_cut_inside_its_header_is_empty_and_anything_else_is_refused() {
        assert_eq!(scan(&MAGIC[..5], "f").unwrap().end, 0);
        assert!(scan(b"SQLite format 3\0", "f").is_err());
        assert!(scan(b"xyz", "f").is_err());
    }
}
