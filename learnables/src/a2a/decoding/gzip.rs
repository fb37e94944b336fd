//! gzip's framing (RFC 1952) read around the deflate inflater: the
//! header and its optional fields, the trailer's CRC-32 and length, and
//! members one after another.

use std::io;

use miniz_oxide::DataFormat;

use super::deflate::Inflater;
use super::invalid;

/// gzip's header flags (RFC 1952, 2.3.1). FTEXT (1) is only a hint.
const FHCRC: u8 = 2;
const FEXTRA: u8 = 4;
const FNAME: u8 = 8;
const FCOMMENT: u8 = 16;
/// The flags RFC 1952 reserves: "must give an error indication if any
/// reserved bit is non-zero".
const RESERVED: u8 = 0xe0;

/// Where a gzip decoder is in its member.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Part {
    /// ID1 ID2 CM FLG MTIME XFL OS: 10 bytes.
    Fixed,
    /// XLEN, two bytes.
    ExtraLength,
    /// The extra field: the bytes of it still to come.
    Extra(usize),
    /// The file name, up to its zero byte.
    Name,
    /// The comment, up to its zero byte.
    Comment,
    /// CRC16, two bytes.
    HeaderCrc,
    /// The deflate data.
    Body,
    /// CRC32 and ISIZE, 8 bytes.
    Trailer,
}

impl Part {
    /// The optional parts of the header, in their order, with their flags.
    const OPTIONAL: [(u8, Part); 4] = [
        (FEXTRA, Part::ExtraLength),
        (FNAME, Part::Name),
        (FCOMMENT, Part::Comment),
        (FHCRC, Part::HeaderCrc),
    ];

    /// How many of the optional parts come before or at this one.
    fn rank(self) -> usize {
        match self {
            Part::Fixed => 0,
            Part::ExtraLength | Part::Extra(_) => 1,
            Part::Name => 2,
            Part::Comment => 3,
            Part::HeaderCrc | Part::Body | Part::Trailer => 4,
        }
    }
}

/// A gzip decoder (RFC 1952): one member after another, as many as come
/// (a body of several members decodes to their data one after another).
/// What follows a member is read as the next member's header, so bytes
/// after the last member that are not a member (trailing garbage, even
/// zeros) are an error, as they were for flate2's `MultiGzDecoder`.
pub(crate) struct Gzip {
    part: Part,
    flags: u8,
    /// A fixed-size field (10 bytes at most) read so far.
    field: Vec<u8>,
    /// The CRC-32 of the member's header so far, for FHCRC.
    header_crc: crc32fast::Hasher,
    inflater: Inflater,
    /// The CRC-32 and the length (modulo 2^32) of the member's data so far.
    crc: crc32fast::Hasher,
    size: u32,
    /// The members read whole.
    members: u64,
}

impl Gzip {
    pub(super) fn new() -> Gzip {
        Gzip {
            part: Part::Fixed,
            flags: 0,
            field: Vec::new(),
            header_crc: crc32fast::Hasher::new(),
            inflater: Inflater::new(DataFormat::Raw),
            crc: crc32fast::Hasher::new(),
            size: 0,
            members: 0,
        }
    }

    /// The field of `len` bytes being read, once all of it has come: its
    /// bytes are taken off `input`.
    fn fill(&mut self, input: &mut &[u8], len: usize) -> Option<Vec<u8>> {
        let take = (len - self.field.len()).min(input.len());
        self.field.extend_from_slice(&input[..take]);
        *input = &input[take..];
        (self.field.len() == len).then(|| std::mem::take(&mut self.field))
    }

    /// The part of the member after `part`'s.
    fn after(&self, part: Part) -> Part {
        Part::OPTIONAL
            .into_iter()
            .skip(part.rank())
            .find(|(flag, _)| self.flags & flag != 0)
            .map_or(Part::Body, |(_, next)| next)
    }

    /// The member being read, counted from 1, for errors.
    fn member(&self) -> u64 {
        self.members + 1
    }

    pub(super) fn write(&mut self, mut input: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        loop {
            match self.part {
                Part::Body => {
                    let start = out.len();
                    let ended = self.inflater.feed(&mut input, &mut out)?;
                    self.crc.update(&out[start..]);
                    // ISIZE is the length modulo 2^32: the cut is meant.
                    self.size = self.size.wrapping_add((out.len() - start) as u32);
                    if !ended {
                        return Ok(out);
                    }
                    self.part = Part::Trailer;
                }
                _ if input.is_empty() => return Ok(out),
                Part::Fixed => {
                    let Some(header) = self.fill(&mut input, 10) else {
                        continue;
                    };
                    self.start_member(&header)?;
                }
                Part::ExtraLength => {
                    let Some(length) = self.fill(&mut input, 2) else {
                        continue;
                    };
                    self.header_crc.update(&length);
                    self.part = match usize::from(u16::from_le_bytes([length[0], length[1]])) {
                        0 => self.after(Part::Extra(0)),
                        length => Part::Extra(length),
                    };
                }
                Part::Extra(left) => {
                    let take = left.min(input.len());
                    self.header_crc.update(&input[..take]);
                    input = &input[take..];
                    self.part = match left - take {
                        0 => self.after(Part::Extra(0)),
                        left => Part::Extra(left),
                    };
                }
                Part::Name | Part::Comment => {
                    let end = input.iter().position(|&byte| byte == 0);
                    let take = end.map_or(input.len(), |zero| zero + 1);
                    self.header_crc.update(&input[..take]);
                    input = &input[take..];
                    if end.is_some() {
                        self.part = self.after(self.part);
                    }
                }
                Part::HeaderCrc => {
                    let Some(stored) = self.fill(&mut input, 2) else {
                        continue;
                    };
                    let stored = u16::from_le_bytes([stored[0], stored[1]]);
                    // CRC16 is the low 16 bits of the header's CRC-32.
                    let computed = self.header_crc.clone().finalize() as u16;
                    if stored != computed {
                        return Err(invalid(format!(
                            "bad header CRC in gzip member {}: the header gives {stored:04x}, \
                             its bytes make {computed:04x}",
                            self.member()
                        )));
                    }
                    self.part = Part::Body;
                }
                Part::Trailer => {
                    let Some(trailer) = self.fill(&mut input, 8) else {
                        continue;
                    };
                    self.end_member(&trailer)?;
                }
            }
        }
    }

    /// Reads the 10 bytes that start a member.
    fn start_member(&mut self, header: &[u8]) -> io::Result<()> {
        if header[..2] != [0x1f, 0x8b] {
            let what = match self.members {
                0 => "the body is not gzip".to_owned(),
                n => format!("what follows gzip member {n} is not another member"),
            };
            return Err(invalid(format!(
                "{what}: bad magic {:02x} {:02x} (a member starts with 1f 8b)",
                header[0], header[1]
            )));
        }
        if header[2] != 8 {
            return Err(invalid(format!(
                "gzip member {} has compression method {}; only 8 (deflate) is defined",
                self.member(),
                header[2]
            )));
        }
        self.flags = header[3];
        if self.flags & RESERVED != 0 {
            return Err(invalid(format!(
                "gzip member {} sets reserved header flags ({:#04x})",
                self.member(),
                self.flags & RESERVED
            )));
        }
        self.header_crc = crc32fast::Hasher::new();
        self.header_crc.update(header);
        self.inflater.reset(DataFormat::Raw);
        self.crc = crc32fast::Hasher::new();
        self.size = 0;
        self.part = self.after(Part::Fixed);
        Ok(())
    }

    /// Checks a member's trailer against its data.
    fn end_member(&mut self, trailer: &[u8]) -> io::Result<()> {
        let word = |at: usize| {
            u32::from_le_bytes([
                trailer[at],
                trailer[at + 1],
                trailer[at + 2],
                trailer[at + 3],
            ])
        };
        let computed = self.crc.clone().finalize();
        if word(0) != computed {
            return Err(invalid(format!(
                "CRC-32 mismatch in gzip member {}: the trailer gives {:08x}, the data makes \
                 {computed:08x}",
                self.member(),
                word(0)
            )));
        }
        if word(4) != self.size {
            return Err(invalid(format!(
                "length mismatch in gzip member {}: the trailer gives {} bytes (modulo 2^32), \
                 the data is {}",
                self.member(),
                word(4),
                self.size
            )));
        }
        self.members += 1;
        self.part = Part::Fixed;
        Ok(())
    }

    pub(super) fn finish(mut self) -> io::Result<Vec<u8>> {
        let out = self.write(&[])?;
        let member = self.member();
        let truncated = |what: &str| {
            Err(invalid(format!(
                "truncated gzip body: it ends in member {member}'s {what}"
            )))
        };
        match self.part {
            Part::Fixed if self.field.is_empty() && self.members > 0 => Ok(out),
            Part::Fixed if self.field.is_empty() => Err(invalid(
                "the gzip body is empty: it has no member".to_owned(),
            )),
            Part::Fixed => truncated("header"),
            Part::Body => truncated("compressed data"),
            Part::Trailer => truncated("trailer (CRC-32 and length)"),
            _ => truncated("header"),
        }
    }
}
