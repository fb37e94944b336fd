//! The layout of the embedded store's file, `knowledge.log`: a header, then
//! frames appended one after another, then, while the store is open, room
//! for the next frames: zeros written ahead of them.
//!
//! ```text
//! file   = MAGIC frame* zero*
//! frame  = kind:u32 length:u32 payload_crc:u32 header_crc:u32 payload
//! ```
//!
//! Integers are little-endian; checksums are CRC-32 (IEEE). A *group*
//! frame's payload is the JSON array of the versions one commit stored,
//! all or none. A *seal* frame (no payload; its `payload_crc` repeats the
//! group's) follows a group once the group is synced to disk: it tells a
//! group the disk damaged later from a group a crash cut short. A seal is
//! written with the next group, when the store opens and when it closes,
//! so that only a crash leaves an acknowledged group unsealed. A *review*
//! frame's payload is one record of a proposal (the proposal, an approval
//! or a rejection) as JSON; it is sealed, and read back, as a group is.
//!
//! Reading back ([`scan_with`]) finds where the log ends, and refuses damage:
//! - the log is the intact frames from the header on, and ends at the
//!   first frame that is not intact;
//! - what follows it (its *tail*: the room's zeros, what a file system
//!   leaves after a power cut, junk, a write cut short, an unsealed last
//!   group that no longer checks out) was never acknowledged, and the
//!   store cuts it off, after keeping a copy beside the log;
//! - unless an intact frame lies anywhere in that tail: then a frame that
//!   is not intact comes before others that are, so it was acknowledged,
//!   and the file is refused as damaged, with the byte where it starts.
//!   The one exception is a write of a seal and the next group cut short
//!   so that the group reached the disk and its seal did not (zeros where
//!   the seal goes): the group's write never completed, so it is tail;
//! - an intact frame where it does not belong (a group after an unsealed
//!   one, a seal of another group, an unknown kind) is damage too.
//!
//! A group is acknowledged only once it is synced, and sealed by the
//! store's next write, so damage to a sealed group is always refused, and
//! only the last group, between its acknowledgment and the next write, can
//! be lost to damage and a crash together: then it is kept aside and
//! logged, never dropped in silence.

use super::StoreError;
use crate::{ReviewRecord, VersionRecord};

/// The first bytes of every store file: what it is, and the layout's
/// version.
pub(super) const MAGIC: &[u8; 16] = b"learnables log 1";

/// The size of a frame's header.
pub(super) const HEADER_LEN: usize = 16;

/// A frame holding one commit's versions.
const GROUP: u32 = 0x5052_4731; // "1GRP"
/// A frame saying the group before it was synced.
const SEAL: u32 = 0x4c41_4553; // "SEAL"
/// A frame holding one record of a proposal.
const REVIEW: u32 = 0x5645_5231; // "1REV"

/// The bytes of a group frame holding `records`, preceded by the seal of
/// the group before if it is not sealed yet (`unsealed`, that group's
/// payload checksum), and the new group's payload checksum, which its own
/// seal will repeat.
pub(super) fn group(
    unsealed: Option<u32>,
    records: &[VersionRecord],
) -> Result<(Vec<u8>, u32), String> {
    frame(GROUP, unsealed, 512 * records.len(), records)
}

/// The bytes of a review frame holding `record`, as [`group`] makes a
/// group's.
pub(super) fn review(
    unsealed: Option<u32>,
    record: &ReviewRecord,
) -> Result<(Vec<u8>, u32), String> {
    frame(REVIEW, unsealed, 512, record)
}

/// A frame of `kind` whose payload is `payload` as JSON, preceded by the
/// seal of the frame before if it is not sealed yet.
fn frame(
    kind: u32,
    unsealed: Option<u32>,
    size: usize,
    payload: &(impl serde::Serialize + ?Sized),
) -> Result<(Vec<u8>, u32), String> {
    let mut bytes = Vec::with_capacity(2 * HEADER_LEN + size);
    if let Some(payload_crc) = unsealed {
        bytes.extend(seal(payload_crc));
    }
    let start = bytes.len();
    bytes.extend([0; HEADER_LEN]);
    serde_json::to_writer(&mut bytes, payload).map_err(|error| error.to_string())?;
    let payload = &bytes[start + HEADER_LEN..];
    let length = u32::try_from(payload.len())
        .map_err(|_| "the versions of one commit exceed 4 GiB".to_owned())?;
    let payload_crc = crc32fast::hash(payload);
    bytes[start..start + HEADER_LEN].copy_from_slice(&header(kind, length, payload_crc));
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

/// Why a group's versions were not taken.
pub(super) enum GroupError {
    /// Its payload does not read as versions.
    Unreadable(serde_json::Error),
    /// They were read, and refused.
    Refused(StoreError),
}

impl From<serde_json::Error> for GroupError {
    fn from(error: serde_json::Error) -> GroupError {
        GroupError::Unreadable(error)
    }
}

/// A reader of groups for [`scan_with`] that keeps every version in
/// `records`.
pub(super) fn collect_into(
    records: &mut Vec<VersionRecord>,
) -> impl FnMut(&[u8]) -> Result<Option<u64>, GroupError> + '_ {
    |payload| {
        let group: Vec<VersionRecord> = serde_json::from_slice(payload)?;
        let last = group.last().map(|record| record.position);
        records.extend(group);
        Ok(last)
    }
}

/// Where a store file's log ends, as [`scan_with`] finds it.
#[derive(Debug)]
pub(super) struct Frames {
    /// Where the log ends: the intact frames stop here. Whatever follows
    /// (zeros, junk, a write a crash cut short) was never acknowledged; the
    /// store keeps it aside and cuts it off, and the next frame goes here.
    pub end: u64,
    /// The payload checksum of the last group, if no seal follows it.
    pub unsealed: Option<u32>,
    /// The position of the last version (0 for none).
    pub last_position: u64,
}

/// Reads a store file's bytes, handing each group's payload (the JSON
/// array of its versions), in order, to `read_group`, which returns the
/// position of the group's last version; `name` names the file in errors.
///
/// The log is the intact frames from the header on. It ends at the first
/// frame that is not intact (or at the end of the file), and what follows
/// is its tail, never acknowledged, unless an intact frame lies somewhere
/// in that tail: then the broken frame sits before later, intact ones, so
/// it held something that was acknowledged, and the file is refused as
/// damaged. The one exception is the write that seals a group and appends
/// the next in one go, cut short so that the new group reached the disk
/// but its seal did not: zeros where the seal goes, then an intact group,
/// then nothing intact. That group was never acknowledged (its write did
/// not complete) and belongs to the tail.
pub(super) fn scan_with(
    bytes: &[u8],
    name: &str,
    read_group: impl FnMut(&[u8]) -> Result<Option<u64>, GroupError>,
) -> Result<Frames, StoreError> {
    scan_all(bytes, name, read_group, drop)
}

/// [`scan_with`], handing each review frame's record, in order, to
/// `read_review`.
pub(super) fn scan_all(
    bytes: &[u8],
    name: &str,
    mut read_group: impl FnMut(&[u8]) -> Result<Option<u64>, GroupError>,
    mut read_review: impl FnMut(ReviewRecord),
) -> Result<Frames, StoreError> {
    let damaged =
        |offset: usize, what: &str| {
            StoreError::Damaged(format!(
            "{name} {what} at byte {offset} (it was changed outside this program, or the disk \
             lost data); restore it from a backup"
        ).into())
        };
    if bytes.len() < MAGIC.len() {
        // A file whose creation was cut short holds part of the header.
        if MAGIC.starts_with(bytes) {
            return Ok(Frames {
                end: 0,
                unsealed: None,
                last_position: 0,
            });
        }
        return Err(damaged(0, "is not a learnables store"));
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return Err(damaged(0, "is not a learnables store"));
    }
    let mut last_position = 0;
    let mut offset = MAGIC.len();
    // The payload checksum of the last group, until its seal is read.
    let mut unsealed: Option<u32> = None;
    while offset < bytes.len() {
        match Frame::at(bytes, offset) {
            Some(Frame::Group { payload_crc, end }) if unsealed.is_none() => {
                let payload = &bytes[offset + HEADER_LEN..end];
                match read_group(payload) {
                    Ok(last) => last_position = last.unwrap_or(last_position),
                    Err(GroupError::Unreadable(error)) => {
                        return Err(damaged(
                            offset,
                            &format!("has a group of versions that cannot be read ({error})"),
                        ));
                    }
                    Err(GroupError::Refused(error)) => return Err(error),
                }
                unsealed = Some(payload_crc);
                offset = end;
            }
            Some(Frame::Review { payload_crc, end }) if unsealed.is_none() => {
                let payload = &bytes[offset + HEADER_LEN..end];
                match serde_json::from_slice(payload) {
                    Ok(record) => read_review(record),
                    Err(error) => {
                        return Err(damaged(
                            offset,
                            &format!("has a record of a proposal that cannot be read ({error})"),
                        ));
                    }
                }
                unsealed = Some(payload_crc);
                offset = end;
            }
            Some(Frame::Seal { payload_crc }) if unsealed == Some(payload_crc) => {
                unsealed = None;
                offset += HEADER_LEN;
            }
            Some(_) => return Err(damaged(offset, "has a frame that does not belong there")),
            None => break,
        }
    }
    if let Some(intact) = intact_frame_from(bytes, offset + 1)
        && !(unsealed.is_some() && is_torn_seal_then_group(bytes, offset, intact))
    {
        let what = if Header::read(&bytes[offset..]).is_some() {
            "has a group of versions that fails its checksum"
        } else {
            "has a frame header that fails its checksum"
        };
        return Err(damaged(
            offset,
            &format!("{what}, before an intact frame at byte {intact},"),
        ));
    }
    Ok(Frames {
        end: offset as u64,
        unsealed,
        last_position,
    })
}

/// Whether the file holds, from `offset`, zeros where a seal goes, then at
/// `intact` (right after them) a group, then nothing intact: one write of
/// a seal and a group, cut short.
fn is_torn_seal_then_group(bytes: &[u8], offset: usize, intact: usize) -> bool {
    intact == offset + HEADER_LEN
        && bytes[offset..intact].iter().all(|byte| *byte == 0)
        && matches!(
            Frame::at(bytes, intact),
            Some(Frame::Group { end, .. } | Frame::Review { end, .. })
                if intact_frame_from(bytes, end).is_none()
        )
}

/// Where the first intact group or seal at or after `from` starts, if any.
fn intact_frame_from(bytes: &[u8], from: usize) -> Option<usize> {
    let last = bytes.len().checked_sub(HEADER_LEN)?;
    let kinds = [
        GROUP.to_le_bytes(),
        SEAL.to_le_bytes(),
        REVIEW.to_le_bytes(),
    ];
    (from..=last).find(|offset| {
        kinds.contains(&[
            bytes[*offset],
            bytes[offset + 1],
            bytes[offset + 2],
            bytes[offset + 3],
        ]) && matches!(
            Frame::at(bytes, *offset),
            Some(Frame::Group { .. } | Frame::Seal { .. } | Frame::Review { .. })
        )
    })
}

/// How many versions the groups in `tail` held, counting every group
/// whose versions still read, intact or not: what the store tells when it
/// cuts `tail` off.
pub(super) fn versions_in(tail: &[u8]) -> usize {
    let mut count = 0;
    let mut offset = 0;
    while offset + HEADER_LEN <= tail.len() {
        let group = Header::read(&tail[offset..])
            .filter(|header| header.kind == GROUP)
            .and_then(|header| {
                let end = (offset + HEADER_LEN).checked_add(header.length as usize)?;
                let payload = tail.get(offset + HEADER_LEN..end)?;
                let versions: Vec<serde::de::IgnoredAny> = serde_json::from_slice(payload).ok()?;
                Some((versions.len(), end))
            });
        match group {
            Some((versions, end)) => {
                count += versions;
                offset = end;
            }
            None => offset += 1,
        }
    }
    count
}

/// A frame read back intact: its header checks out, and so does a group's
/// payload.
enum Frame {
    /// A group of versions, whose payload ends at `end`.
    Group { payload_crc: u32, end: usize },
    /// The seal of the group whose payload checksum is `payload_crc`.
    Seal { payload_crc: u32 },
    /// A record of a proposal, whose payload ends at `end`.
    Review { payload_crc: u32, end: usize },
    /// A frame of a kind this layout does not have.
    Other,
}

impl Frame {
    /// The intact frame at `offset` of `bytes`, if there is one.
    fn at(bytes: &[u8], offset: usize) -> Option<Frame> {
        let header = Header::read(bytes.get(offset..)?)?;
        match header.kind {
            GROUP | REVIEW => {
                let start = offset + HEADER_LEN;
                let end = start
                    .checked_add(header.length as usize)
                    .filter(|end| *end <= bytes.len())?;
                let payload_crc = header.payload_crc;
                (crc32fast::hash(&bytes[start..end]) == payload_crc).then_some(
                    if header.kind == GROUP {
                        Frame::Group { payload_crc, end }
                    } else {
                        Frame::Review { payload_crc, end }
                    },
                )
            }
            SEAL if header.length == 0 => Some(Frame::Seal {
                payload_crc: header.payload_crc,
            }),
            _ => Some(Frame::Other),
        }
    }
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

    /// What a store file holds.
    #[derive(Debug)]
    struct Scanned {
        /// Every version, in the order written.
        records: Vec<VersionRecord>,
        /// Where the log ends: the intact frames stop here. Whatever follows
        /// (zeros, junk, a write a crash cut short) was never acknowledged; the
        /// store keeps it aside and cuts it off, and the next frame goes here.
        end: u64,
        /// The payload checksum of the last group, if no seal follows it.
        unsealed: Option<u32>,
    }

    /// Reads a store file's bytes, keeping every version.
    fn scan(bytes: &[u8], name: &str) -> Result<Scanned, StoreError> {
        let mut records = Vec::new();
        let frames = scan_with(bytes, name, collect_into(&mut records))?;
        Ok(Scanned {
            records,
            end: frames.end,
            unsealed: frames.unsealed,
        })
    }

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
            retracted: false,
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

    /// The tails a crash or a power cut leaves after the last sealed
    /// group, each cut at the log's end with the versions before it kept.
    #[test]
    fn zeros_junk_and_unfinished_writes_after_the_log_are_its_tail() {
        let (intact, crc) = file();
        let sealed = file_then(&seal(crc));
        let (next, _) = group(None, &[record(3)]).unwrap();
        let mut junk = Vec::new();
        let mut state: u32 = 0x9e37_79b9;
        for _ in 0..100 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            junk.push(state as u8);
        }
        let mut half_padded = next[..next.len() / 2].to_vec();
        half_padded.resize(4096, 0);
        let tails: [(&str, &[u8], Vec<u8>); 6] = [
            ("17 zeros", &sealed, vec![0; 17]),
            ("4 KiB of zeros", &sealed, vec![0; 4096]),
            ("64 KiB of zeros", &sealed, vec![0; 65_536]),
            ("100 random bytes", &sealed, junk),
            (
                "half a group padded with zeros to 4 KiB",
                &sealed,
                half_padded,
            ),
            // The unsealed group's successor (its seal and a group) zeroed
            // where it was written.
            ("a zeroed write", &intact, vec![0; HEADER_LEN + next.len()]),
        ];
        for (what, log, tail) in tails {
            let mut bytes = log.to_vec();
            bytes.extend(&tail);
            let scanned = scan(&bytes, "f").unwrap_or_else(|error| panic!("{what}: {error:?}"));
            assert_eq!(positions(&scanned), [1, 2], "{what}");
            assert_eq!(scanned.end, log.len() as u64, "{what}");
        }
    }

    #[test]
    fn a_group_whose_seal_did_not_reach_the_disk_is_tail_unless_more_follows() {
        let (intact, crc) = file();
        let (third, third_crc) = group(Some(crc), &[record(3)]).unwrap();
        // The seal's 16 bytes zero, the group after them intact.
        let mut torn = third.clone();
        torn[..HEADER_LEN].fill(0);
        let bytes = file_then(&torn);
        let scanned = scan(&bytes, "f").unwrap();
        assert_eq!(positions(&scanned), [1, 2]);
        assert_eq!(scanned.end, intact.len() as u64);
        assert_eq!(versions_in(&bytes[intact.len()..]), 1);
        // With its own seal after it, that group was acknowledged: the
        // missing seal before it is damage.
        let mut acknowledged = bytes.clone();
        acknowledged.extend(seal(third_crc));
        let error = scan(&acknowledged, "f").unwrap_err();
        assert!(
            error
                .to_string()
                .contains(&format!("at byte {}", intact.len())),
            "{error}"
        );
    }

    #[test]
    fn a_changed_byte_in_a_sealed_group_is_refused_however_much_follows() {
        let (intact, crc) = file();
        let mut sealed = file_then(&seal(crc));
        sealed.extend(vec![0; 4096]);
        let second_group = intact.len() - 1;
        sealed[second_group] ^= 0x01;
        let error = scan(&sealed, "knowledge.log").unwrap_err();
        assert!(matches!(error, StoreError::Damaged(_)), "{error:?}");
        assert!(
            error
                .to_string()
                .contains("group of versions that fails its checksum"),
            "{error}"
        );
    }

    #[test]
    fn the_versions_in_a_tail_are_counted_when_their_group_reads() {
        let (third, _) = group(None, &[record(3), record(4)]).unwrap();
        assert_eq!(versions_in(&third), 2);
        let mut damaged = third.clone();
        let last = damaged.len() - 1;
        damaged[last] = b'!';
        assert_eq!(versions_in(&damaged), 0);
        assert_eq!(versions_in(&[0; 64]), 0);
        assert_eq!(versions_in(&third[..third.len() - 1]), 0);
    }
}
