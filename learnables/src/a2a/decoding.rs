//! The content codings the scrubber decodes (`gzip`, `deflate`, `br`,
//! `zstd`), each a push decoder: compressed bytes in, the bytes they
//! decode to out, chunk by chunk.
//!
//! gzip's framing (RFC 1952) is read here around `miniz_oxide`'s inflater
//! (which also reads zlib's, RFC 1950); zstd's frames (RFC 8878) are cut
//! here into whole blocks that `ruzstd` decodes; brotli is
//! `brotli-decompressor`'s stream decoder over plain heap allocations.
//! Whatever the input, nothing here panics: a body that does not decode
//! gives an `io::Error` saying what is wrong with it.

use std::io;

use brotli_decompressor::{
    Allocator, BrotliDecompressStream, BrotliResult, BrotliState, SliceWrapper, SliceWrapperMut,
};
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::stream::{InflateState, inflate};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};
use ruzstd::decoding::errors::{FrameDecoderError, FrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

/// A content coding, by its HTTP name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Encoding {
    Identity,
    Gzip,
    Deflate,
    Brotli,
    Zstd,
}

impl Encoding {
    /// The coding `name` (case-insensitive) names, if one is decoded here.
    pub(crate) fn named(name: &str) -> Option<Encoding> {
        let name = name.trim().to_ascii_lowercase();
        Some(match name.as_str() {
            "identity" => Encoding::Identity,
            "gzip" | "x-gzip" => Encoding::Gzip,
            "deflate" => Encoding::Deflate,
            "br" => Encoding::Brotli,
            "zstd" => Encoding::Zstd,
            _ => return None,
        })
    }
}

/// A decoder of one coding.
pub(crate) enum Decoder {
    Gzip(Box<Gzip>),
    /// `deflate`: zlib, as RFC 9110 says, or the raw deflate some servers
    /// send; told apart by the first two bytes.
    Deflate(Box<Deflate>),
    Brotli(Box<Brotli>),
    Zstd(Box<Zstd>),
}

impl Decoder {
    pub(crate) fn new(encoding: Encoding) -> io::Result<Option<Decoder>> {
        Ok(Some(match encoding {
            Encoding::Identity => return Ok(None),
            Encoding::Gzip => Decoder::Gzip(Box::new(Gzip::new())),
            Encoding::Deflate => Decoder::Deflate(Box::new(Deflate::Undecided(Vec::new()))),
            Encoding::Brotli => Decoder::Brotli(Box::new(Brotli::new())),
            Encoding::Zstd => Decoder::Zstd(Box::new(Zstd::new())),
        }))
    }

    /// Decodes `input`: what it decodes to.
    pub(crate) fn write(&mut self, input: &[u8]) -> io::Result<Vec<u8>> {
        match self {
            Decoder::Gzip(gzip) => gzip.write(input),
            Decoder::Deflate(deflate) => deflate.write(input),
            Decoder::Brotli(brotli) => brotli.write(input),
            Decoder::Zstd(zstd) => zstd.write(input),
        }
    }

    /// The end of the encoded body: the rest it decodes to, or an error if
    /// the body stops before the end of its stream.
    pub(crate) fn finish(self) -> io::Result<Vec<u8>> {
        match self {
            Decoder::Gzip(gzip) => gzip.finish(),
            Decoder::Deflate(deflate) => deflate.finish(),
            Decoder::Brotli(brotli) => brotli.finish(),
            Decoder::Zstd(zstd) => zstd.finish(),
        }
    }
}

/// An error of a body that does not decode.
fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// How much room the output is given at a time, for the decoders that
/// write into a slice: a buffer each decoder keeps, so that a chunk of a
/// few bytes does not cost a fresh one.
const OUTPUT_STEP: usize = 32 * 1024;

/// A deflate stream (RFC 1951), raw or in zlib's wrapping (RFC 1950,
/// whose Adler-32 `miniz_oxide` checks).
pub(crate) struct Inflater {
    state: Box<InflateState>,
    room: Vec<u8>,
    ended: bool,
}

impl Inflater {
    fn new(format: DataFormat) -> Inflater {
        Inflater {
            state: InflateState::new_boxed(format),
            room: vec![0; OUTPUT_STEP],
            ended: false,
        }
    }

    /// Ready for a new stream.
    fn reset(&mut self, format: DataFormat) {
        self.state.reset(format);
        self.ended = false;
    }

    /// Decodes `input` into `out` up to the end of the stream, taking what
    /// it reads off `input`: whether the stream has ended. Each call
    /// decodes all it is given (deflate decodes to at most about 1000
    /// times its size) and gives out all it decoded.
    fn feed(&mut self, input: &mut &[u8], out: &mut Vec<u8>) -> io::Result<bool> {
        while !self.ended {
            let result = inflate(&mut self.state, input, &mut self.room, MZFlush::None);
            out.extend_from_slice(&self.room[..result.bytes_written]);
            *input = &input[result.bytes_consumed..];
            match result.status {
                Ok(MZStatus::StreamEnd) => self.ended = true,
                // `Buf`: nothing more to do before more input comes.
                Ok(_) | Err(MZError::Buf) => {
                    if result.bytes_consumed == 0 && result.bytes_written == 0 {
                        break;
                    }
                }
                Err(_) => {
                    return Err(invalid(match self.state.last_status() {
                        TINFLStatus::Adler32Mismatch => {
                            "the zlib stream's Adler-32 does not match the data it decodes to"
                                .to_owned()
                        }
                        status => format!("invalid deflate data ({status:?})"),
                    }));
                }
            }
        }
        if !self.ended && !input.is_empty() {
            return Err(invalid(format!(
                "the deflate decoder stopped with {} bytes of its input unread",
                input.len()
            )));
        }
        Ok(self.ended)
    }
}

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
    fn new() -> Gzip {
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

    fn write(&mut self, mut input: &[u8]) -> io::Result<Vec<u8>> {
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

    fn finish(mut self) -> io::Result<Vec<u8>> {
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

/// A `deflate` decoder: zlib or raw deflate.
pub(crate) enum Deflate {
    /// Fewer than two bytes have come.
    Undecided(Vec<u8>),
    Stream(Inflater),
}

impl Deflate {
    /// The decoder for a stream that starts with `start` (two bytes or
    /// more, or all there is).
    fn decide(start: &[u8]) -> Inflater {
        let zlib = match start {
            [cmf, flg, ..] => cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0,
            _ => false,
        };
        Inflater::new(if zlib {
            DataFormat::Zlib
        } else {
            DataFormat::Raw
        })
    }

    fn write(&mut self, input: &[u8]) -> io::Result<Vec<u8>> {
        match self {
            Deflate::Undecided(first) => {
                first.extend_from_slice(input);
                if first.len() < 2 {
                    return Ok(Vec::new());
                }
                let start = std::mem::take(first);
                *self = Deflate::Stream(Deflate::decide(&start));
                self.write(&start)
            }
            Deflate::Stream(inflater) => {
                let mut input = input;
                let mut out = Vec::new();
                inflater.feed(&mut input, &mut out)?;
                Deflate::after_end(input)?;
                Ok(out)
            }
        }
    }

    /// Refuses bytes after the end of the stream.
    fn after_end(rest: &[u8]) -> io::Result<()> {
        if rest.is_empty() {
            return Ok(());
        }
        Err(invalid(format!(
            "{} bytes follow the end of the deflate stream",
            rest.len()
        )))
    }

    fn finish(self) -> io::Result<Vec<u8>> {
        let (mut inflater, start) = match self {
            // An empty body is an empty one, whatever its coding says.
            Deflate::Undecided(start) if start.is_empty() => return Ok(Vec::new()),
            Deflate::Undecided(start) => (Deflate::decide(&start), start),
            Deflate::Stream(inflater) => (inflater, Vec::new()),
        };
        let mut input = &start[..];
        let mut out = Vec::new();
        if !inflater.feed(&mut input, &mut out)? {
            return Err(invalid(
                "truncated deflate stream: the body ends before its last block".to_owned(),
            ));
        }
        Deflate::after_end(input)?;
        Ok(out)
    }
}

/// The brotli decoder's allocations: plain zeroed heap slices (what the
/// crate's `std` feature gives, through one more crate).
#[derive(Default)]
pub(crate) struct Heap;

/// One allocation of [`Heap`].
pub(crate) struct Cells<T>(Box<[T]>);

impl<T> Default for Cells<T> {
    fn default() -> Self {
        Cells(Box::default())
    }
}

impl<T> SliceWrapper<T> for Cells<T> {
    fn slice(&self) -> &[T] {
        &self.0
    }
}

impl<T> SliceWrapperMut<T> for Cells<T> {
    fn slice_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T: Clone + Default> Allocator<T> for Heap {
    type AllocatedMemory = Cells<T>;

    fn alloc_cell(&mut self, len: usize) -> Cells<T> {
        Cells(vec![T::default(); len].into_boxed_slice())
    }

    fn free_cell(&mut self, _cells: Cells<T>) {}
}

/// A brotli decoder (RFC 7932); its window is at most 16 MiB (the large
/// windows of brotli's extension are off).
pub(crate) struct Brotli {
    state: BrotliState<Heap, Heap, Heap>,
    room: Vec<u8>,
    /// The bytes decoded so far, which the decoder counts.
    total: usize,
    ended: bool,
}

impl Brotli {
    fn new() -> Brotli {
        Brotli {
            state: BrotliState::new(Heap, Heap, Heap),
            room: vec![0; OUTPUT_STEP],
            total: 0,
            ended: false,
        }
    }

    fn write(&mut self, input: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut read = 0;
        while !self.ended {
            let mut available_in = input.len() - read;
            let mut written = 0;
            let mut available_out = OUTPUT_STEP;
            let result = BrotliDecompressStream(
                &mut available_in,
                &mut read,
                input,
                &mut available_out,
                &mut written,
                &mut self.room,
                &mut self.total,
                &mut self.state,
            );
            out.extend_from_slice(&self.room[..written]);
            match result {
                BrotliResult::ResultSuccess => self.ended = true,
                BrotliResult::NeedsMoreOutput => {}
                BrotliResult::NeedsMoreInput => return Ok(out),
                BrotliResult::ResultFailure => {
                    return Err(invalid(format!(
                        "invalid brotli data ({:?})",
                        self.state.error_code
                    )));
                }
            }
        }
        if read < input.len() {
            return Err(invalid(format!(
                "{} bytes follow the end of the brotli stream",
                input.len() - read
            )));
        }
        Ok(out)
    }

    fn finish(mut self) -> io::Result<Vec<u8>> {
        let out = self.write(&[])?;
        if !self.ended {
            return Err(invalid(
                "truncated brotli stream: the body ends before its last meta-block".to_owned(),
            ));
        }
        Ok(out)
    }
}

/// The largest zstd window decoded: RFC 9659 (the `zstd` content coding)
/// limits it to 8 MB, so that a decoder's memory is bounded; a frame that
/// asks for more is refused before anything is allocated for it.
const MAX_ZSTD_WINDOW: u64 = 8 * 1024 * 1024;
/// The largest zstd block (RFC 8878, 3.1.1.2.4).
const MAX_ZSTD_BLOCK: usize = 128 * 1024;
const ZSTD_MAGIC: u32 = 0xfd2f_b528;
/// Skippable frames' magic numbers are 0x184D2A50 to 0x184D2A5F.
const SKIPPABLE_MAGIC: u32 = 0x184d_2a50;

/// Where a zstd decoder is in its body.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ZstdPart {
    /// Before a frame's magic number.
    Magic,
    /// In a skippable frame: the bytes of it still to come.
    Skip(u64),
    /// In a frame's header.
    Header,
    /// In a frame's blocks.
    Blocks,
}

/// A zstd decoder (RFC 8878): frames one after another, skippable frames
/// skipped. The frames are cut here into whole blocks (with the checksum
/// after the last), each given to `ruzstd` when all its bytes have come, so
/// it never runs out of input midway.
///
/// `ruzstd` keeps the last window of what it decoded (at most 8 MiB here)
/// until its frame ends, so the bytes of a long frame come out that much
/// behind its blocks: memory stays bounded and a stream goes on flowing,
/// but late by up to a window.
pub(crate) struct Zstd {
    decoder: FrameDecoder,
    /// Input not yet decoded: less than the next block (or header) whole.
    pending: Vec<u8>,
    part: ZstdPart,
    /// The frame's content checksum so far, when it has one.
    checksum: Option<Xxh64>,
    /// The frame's declared size, when it has one, and its size so far.
    declared: Option<u64>,
    size: u64,
    /// The frames read whole.
    frames: u64,
}

impl Zstd {
    fn new() -> Zstd {
        let mut decoder = FrameDecoder::new();
        decoder.set_max_window_size(MAX_ZSTD_WINDOW);
        Zstd {
            decoder,
            pending: Vec::new(),
            part: ZstdPart::Magic,
            checksum: None,
            declared: None,
            size: 0,
            frames: 0,
        }
    }

    fn write(&mut self, input: &[u8]) -> io::Result<Vec<u8>> {
        self.pending.extend_from_slice(input);
        let mut out = Vec::new();
        let mut read = 0;
        let result = loop {
            match self.step(&mut read, &mut out) {
                Ok(true) => {}
                Ok(false) => break Ok(out),
                Err(error) => break Err(error),
            }
        };
        self.pending.drain(..read);
        result
    }

    /// Decodes the next part of `pending` after `read` if all of it has
    /// come: whether it had.
    fn step(&mut self, read: &mut usize, out: &mut Vec<u8>) -> io::Result<bool> {
        let rest = &self.pending[*read..];
        match self.part {
            ZstdPart::Magic => {
                let Some(magic) = rest.first_chunk::<4>() else {
                    return Ok(false);
                };
                let magic = u32::from_le_bytes(*magic);
                if magic == ZSTD_MAGIC {
                    self.part = ZstdPart::Header;
                } else if magic & !0xf == SKIPPABLE_MAGIC {
                    let Some(length) = rest.get(4..8) else {
                        return Ok(false);
                    };
                    let length = u32::from_le_bytes([length[0], length[1], length[2], length[3]]);
                    *read += 8;
                    self.part = ZstdPart::Skip(u64::from(length));
                } else {
                    let what = match self.frames {
                        0 => "the body is not zstd".to_owned(),
                        n => format!("what follows zstd frame {n} is not another frame"),
                    };
                    return Err(invalid(format!(
                        "{what}: bad magic number {magic:08x} (a frame starts with fd2fb528, a \
                         skippable frame with 184d2a5?)"
                    )));
                }
            }
            ZstdPart::Skip(left) => {
                if rest.is_empty() {
                    return Ok(false);
                }
                let take = left.min(rest.len() as u64);
                *read += take as usize;
                self.part = match left - take {
                    0 => ZstdPart::Magic,
                    left => ZstdPart::Skip(left),
                };
            }
            ZstdPart::Header => {
                // Magic, Frame_Header_Descriptor, then the fields it says
                // are there (RFC 8878, 3.1.1.1).
                let Some(&descriptor) = rest.get(4) else {
                    return Ok(false);
                };
                let single_segment = descriptor & 0x20 != 0;
                let content_size_length = match descriptor >> 6 {
                    0 => usize::from(single_segment),
                    1 => 2,
                    2 => 4,
                    _ => 8,
                };
                let length = 5
                    + usize::from(!single_segment)
                    + [0, 1, 2, 4][usize::from(descriptor & 3)]
                    + content_size_length;
                let Some(header) = rest.get(..length) else {
                    return Ok(false);
                };
                self.decoder
                    .reset(header)
                    .map_err(|error| self.frame_error(error))?;
                *read += length;
                self.checksum = (descriptor & 4 != 0).then(Xxh64::new);
                self.declared = (content_size_length > 0).then(|| self.decoder.content_size());
                self.size = 0;
                self.part = ZstdPart::Blocks;
            }
            ZstdPart::Blocks => {
                let Some(header) = rest.first_chunk::<3>() else {
                    return Ok(false);
                };
                // Last_Block, Block_Type, Block_Size (RFC 8878, 3.1.1.2).
                let header = u32::from_le_bytes([header[0], header[1], header[2], 0]);
                let last = header & 1 != 0;
                let size = (header >> 3) as usize;
                if size > MAX_ZSTD_BLOCK {
                    return Err(invalid(format!(
                        "zstd frame {} has a block of {size} bytes, over the 128 KiB maximum",
                        self.frames + 1
                    )));
                }
                let body = match (header >> 1) & 3 {
                    // RLE: one byte, repeated.
                    1 => 1,
                    3 => {
                        return Err(invalid(format!(
                            "zstd frame {} has a block of the reserved type",
                            self.frames + 1
                        )));
                    }
                    _ => size,
                };
                let checksum = if last && self.checksum.is_some() {
                    4
                } else {
                    0
                };
                let Some(block) = rest.get(..3 + body + checksum) else {
                    return Ok(false);
                };
                self.decoder
                    .decode_blocks(block, BlockDecodingStrategy::UptoBlocks(1))
                    .map_err(|error| self.frame_error(error))?;
                *read += block.len();
                if let Some(decoded) = self.decoder.collect() {
                    if let Some(checksum) = &mut self.checksum {
                        checksum.update(&decoded);
                    }
                    self.size += decoded.len() as u64;
                    out.extend_from_slice(&decoded);
                }
                if last {
                    self.end_frame()?;
                }
            }
        }
        Ok(true)
    }

    /// Checks a frame that has ended against its size and checksum.
    fn end_frame(&mut self) -> io::Result<()> {
        let frame = self.frames + 1;
        if let Some(declared) = self.declared
            && declared != self.size
        {
            return Err(invalid(format!(
                "zstd frame {frame} says it decodes to {declared} bytes; it decodes to {}",
                self.size
            )));
        }
        if let Some(checksum) = self.checksum.take() {
            // The checksum is the low 32 bits of the XXH64 of the content.
            let computed = checksum.finish() as u32;
            let stored = self.decoder.get_checksum_from_data();
            if stored != Some(computed) {
                return Err(invalid(format!(
                    "checksum mismatch in zstd frame {frame}: the frame gives {:08x}, its \
                     content makes {computed:08x}",
                    stored.unwrap_or_default()
                )));
            }
        }
        self.frames += 1;
        self.part = ZstdPart::Magic;
        Ok(())
    }

    fn frame_error(&self, error: FrameDecoderError) -> io::Error {
        let frame = self.frames + 1;
        match error {
            // Over our limit, or over the format's own (3.75 TB).
            FrameDecoderError::WindowSizeTooBig { requested, .. }
            | FrameDecoderError::FrameHeaderError(FrameHeaderError::WindowTooBig {
                got: requested,
            }) => invalid(format!(
                "zstd frame {frame} asks for a window of {requested} bytes, over the 8 MiB that \
                 the zstd content coding allows (RFC 9659)"
            )),
            error => invalid(format!("invalid zstd frame {frame}: {error}")),
        }
    }

    fn finish(self) -> io::Result<Vec<u8>> {
        let frame = self.frames + 1;
        match self.part {
            // An empty body, or frames and skippable frames whole.
            ZstdPart::Magic if self.pending.is_empty() => Ok(Vec::new()),
            ZstdPart::Magic => Err(invalid(format!(
                "truncated zstd body: it ends with {} bytes, too few for a frame",
                self.pending.len()
            ))),
            ZstdPart::Skip(left) => Err(invalid(format!(
                "truncated zstd body: it ends {left} bytes before the end of a skippable frame"
            ))),
            ZstdPart::Header => Err(invalid(format!(
                "truncated zstd body: it ends in frame {frame}'s header"
            ))),
            ZstdPart::Blocks => Err(invalid(format!(
                "truncated zstd body: it ends in frame {frame}'s blocks"
            ))),
        }
    }
}

/// XXH64 with seed 0, streamed: the hash of zstd's content checksum
/// (RFC 8878, 3.1.1; the algorithm as xxHash's XXH64 specification gives
/// it). Our own, since `ruzstd`'s needs one more crate.
struct Xxh64 {
    lanes: [u64; 4],
    /// Bytes not yet in a 32-byte stripe.
    tail: Vec<u8>,
    length: u64,
}

const PRIME64_1: u64 = 0x9e37_79b1_85eb_ca87;
const PRIME64_2: u64 = 0xc2b2_ae3d_27d4_eb4f;
const PRIME64_3: u64 = 0x1656_67b1_9e37_79f9;
const PRIME64_4: u64 = 0x85eb_ca77_c2b2_ae63;
const PRIME64_5: u64 = 0x27d4_eb2f_1656_67c5;

fn xxh64_round(lane: u64, input: u64) -> u64 {
    lane.wrapping_add(input.wrapping_mul(PRIME64_2))
        .rotate_left(31)
        .wrapping_mul(PRIME64_1)
}

fn xxh64_merge(hash: u64, lane: u64) -> u64 {
    (hash ^ xxh64_round(0, lane))
        .wrapping_mul(PRIME64_1)
        .wrapping_add(PRIME64_4)
}

/// The little-endian word at the start of `bytes` (8 bytes or more).
fn word64(bytes: &[u8]) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(word)
}

impl Xxh64 {
    fn new() -> Xxh64 {
        Xxh64 {
            lanes: [
                PRIME64_1.wrapping_add(PRIME64_2),
                PRIME64_2,
                0,
                PRIME64_1.wrapping_neg(),
            ],
            tail: Vec::with_capacity(32),
            length: 0,
        }
    }

    fn stripe(lanes: &mut [u64; 4], stripe: &[u8]) {
        for (lane, word) in lanes.iter_mut().zip(stripe.chunks_exact(8)) {
            *lane = xxh64_round(*lane, word64(word));
        }
    }

    fn update(&mut self, mut bytes: &[u8]) {
        self.length += bytes.len() as u64;
        if !self.tail.is_empty() {
            let take = (32 - self.tail.len()).min(bytes.len());
            self.tail.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.tail.len() < 32 {
                return;
            }
            Xxh64::stripe(&mut self.lanes, &self.tail);
            self.tail.clear();
        }
        let mut stripes = bytes.chunks_exact(32);
        for stripe in &mut stripes {
            Xxh64::stripe(&mut self.lanes, stripe);
        }
        self.tail.extend_from_slice(stripes.remainder());
    }

    fn finish(&self) -> u64 {
        let [v1, v2, v3, v4] = self.lanes;
        let mut hash = if self.length >= 32 {
            let hash = v1
                .rotate_left(1)
                .wrapping_add(v2.rotate_left(7))
                .wrapping_add(v3.rotate_left(12))
                .wrapping_add(v4.rotate_left(18));
            self.lanes
                .iter()
                .fold(hash, |hash, &lane| xxh64_merge(hash, lane))
        } else {
            PRIME64_5
        };
        hash = hash.wrapping_add(self.length);
        let mut words = self.tail.chunks_exact(8);
        for word in &mut words {
            hash ^= xxh64_round(0, word64(word));
            hash = hash
                .rotate_left(27)
                .wrapping_mul(PRIME64_1)
                .wrapping_add(PRIME64_4);
        }
        let mut rest = words.remainder();
        if let Some(word) = rest.first_chunk::<4>() {
            hash ^= u64::from(u32::from_le_bytes(*word)).wrapping_mul(PRIME64_1);
            hash = hash
                .rotate_left(23)
                .wrapping_mul(PRIME64_2)
                .wrapping_add(PRIME64_3);
            rest = &rest[4..];
        }
        for &byte in rest {
            hash ^= u64::from(byte).wrapping_mul(PRIME64_5);
            hash = hash.rotate_left(11).wrapping_mul(PRIME64_1);
        }
        hash ^= hash >> 33;
        hash = hash.wrapping_mul(PRIME64_2);
        hash ^= hash >> 29;
        hash = hash.wrapping_mul(PRIME64_3);
        hash ^ (hash >> 32)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use proptest::prelude::*;

    use super::*;

    /// Decodes `body`, given in pieces of `piece` bytes.
    fn decode(encoding: Encoding, body: &[u8], piece: usize) -> io::Result<Vec<u8>> {
        let mut decoder = Decoder::new(encoding)?.expect("a coding decoded here");
        let mut out = Vec::new();
        for chunk in body.chunks(piece.max(1)) {
            out.extend(decoder.write(chunk)?);
        }
        out.extend(decoder.finish()?);
        Ok(out)
    }

    /// Decodes `body` given in two pieces, cut at `cut`.
    fn decode_cut(encoding: Encoding, body: &[u8], cut: usize) -> io::Result<Vec<u8>> {
        let mut decoder = Decoder::new(encoding)?.expect("a coding decoded here");
        let mut out = decoder.write(&body[..cut])?;
        out.extend(decoder.write(&body[cut..])?);
        out.extend(decoder.finish()?);
        Ok(out)
    }

    /// The error of a body that does not decode, whole or a byte at a time
    /// (the same message either way).
    fn refused(encoding: Encoding, body: &[u8]) -> String {
        let whole = decode(encoding, body, body.len()).expect_err("refused");
        let bytes = decode(encoding, body, 1).expect_err("refused byte by byte");
        assert_eq!(whole.to_string(), bytes.to_string());
        assert_eq!(whole.kind(), io::ErrorKind::InvalidData);
        whole.to_string()
    }

    const DATA: &[u8] = br#"{"metadata":{"k":[1.50,2]},"text":"abc abc abc abc abc"}"#;

    /// A gzip member of `data` with every optional header field: FTEXT,
    /// FHCRC, FEXTRA, FNAME, FCOMMENT.
    fn member_with_every_field(data: &[u8]) -> Vec<u8> {
        let mut member = vec![0x1f, 0x8b, 8, 0x1f, 0x78, 0x56, 0x34, 0x12, 2, 3];
        member.extend([5, 0, b'A', b'B', 1, 0, 9]);
        member.extend(b"name.json\0");
        member.extend(b"a comment\0");
        let header_crc = crc32fast::hash(&member) as u16;
        member.extend(header_crc.to_le_bytes());
        member.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
        member.extend(crc32fast::hash(data).to_le_bytes());
        member.extend((data.len() as u32).to_le_bytes());
        member
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn gzip_with_every_header_field_decodes_cut_anywhere() {
        let member = member_with_every_field(DATA);
        for cut in 0..=member.len() {
            assert_eq!(
                decode_cut(Encoding::Gzip, &member, cut).unwrap(),
                DATA,
                "{cut}"
            );
        }
        assert_eq!(decode(Encoding::Gzip, &member, 1).unwrap(), DATA);
        // No optional field but FTEXT, as flate2 writes it.
        assert_eq!(decode(Encoding::Gzip, &gzip(DATA), 1).unwrap(), DATA);
    }

    #[test]
    fn gzip_members_follow_one_another() {
        let mut body = member_with_every_field(&DATA[..10]);
        body.extend(gzip(&DATA[10..]));
        body.extend(gzip(b""));
        for cut in 0..=body.len() {
            assert_eq!(
                decode_cut(Encoding::Gzip, &body, cut).unwrap(),
                DATA,
                "{cut}"
            );
        }
    }

    #[test]
    fn gzip_that_does_not_check_out_is_refused() {
        let member = member_with_every_field(DATA);
        let trailer = member.len() - 8;
        let mut bad_crc = member.clone();
        bad_crc[trailer] ^= 1;
        assert!(refused(Encoding::Gzip, &bad_crc).contains("CRC-32 mismatch in gzip member 1"));
        let mut bad_size = member.clone();
        bad_size[trailer + 4] ^= 1;
        assert!(refused(Encoding::Gzip, &bad_size).contains("length mismatch in gzip member 1"));
        let mut bad_header_crc = member.clone();
        bad_header_crc[10 + 7 + 10 + 10] ^= 1;
        assert!(refused(Encoding::Gzip, &bad_header_crc).contains("bad header CRC"));
        let mut reserved = gzip(DATA);
        reserved[3] |= 0x20;
        assert!(refused(Encoding::Gzip, &reserved).contains("reserved header flags"));
        let mut method = gzip(DATA);
        method[2] = 7;
        assert!(refused(Encoding::Gzip, &method).contains("compression method 7"));
        assert!(refused(Encoding::Gzip, DATA).contains("bad magic 7b 22"));
        let mut corrupt = gzip(DATA);
        corrupt[10] = 0xff;
        assert!(refused(Encoding::Gzip, &corrupt).contains("invalid deflate data"));
    }

    #[test]
    fn gzip_cut_short_or_followed_by_garbage_is_refused() {
        let member = member_with_every_field(DATA);
        for end in 0..member.len() {
            let error = decode(Encoding::Gzip, &member[..end], 7).unwrap_err();
            assert!(
                error.to_string().contains("truncated gzip body")
                    || error.to_string().contains("empty"),
                "{end}: {error}"
            );
        }
        let error = refused(Encoding::Gzip, &member[..member.len() - 3]);
        assert!(error.contains("member 1's trailer"), "{error}");
        let mut garbage = member.clone();
        garbage.extend(b"\0\0\0\0\0\0\0\0\0\0\0\0");
        let error = refused(Encoding::Gzip, &garbage);
        assert!(error.contains("follows gzip member 1"), "{error}");
        let mut short = member;
        short.push(0x1f);
        let error = refused(Encoding::Gzip, &short);
        assert!(error.contains("member 2's header"), "{error}");
    }

    #[test]
    fn deflate_is_zlib_or_raw_and_must_end() {
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(DATA, 6);
        let raw = miniz_oxide::deflate::compress_to_vec(DATA, 6);
        for body in [&zlib, &raw] {
            for cut in 0..=body.len() {
                assert_eq!(decode_cut(Encoding::Deflate, body, cut).unwrap(), DATA);
            }
            for end in 1..body.len() {
                let error = decode(Encoding::Deflate, &body[..end], 3).unwrap_err();
                assert!(error.to_string().contains("truncated deflate"), "{error}");
            }
            let mut after = body.clone();
            after.push(0);
            assert!(refused(Encoding::Deflate, &after).contains("follow the end"));
        }
        assert_eq!(decode(Encoding::Deflate, b"", 1).unwrap(), b"");
        let mut adler = zlib.clone();
        *adler.last_mut().unwrap() ^= 1;
        assert!(refused(Encoding::Deflate, &adler).contains("Adler-32"));
    }

    /// `{"a":"first frame, first frame, first frame"}` by the zstd tool at
    /// level 19: one compressed block, a content checksum, no size.
    const ZSTD_FIRST: &[u8] = &[
        0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x68, 0xdd, 0x00, 0x00, 0xa8, 0x7b, 0x22, 0x61, 0x22, 0x3a,
        0x22, 0x66, 0x69, 0x72, 0x73, 0x74, 0x20, 0x66, 0x72, 0x61, 0x6d, 0x65, 0x2c, 0x20, 0x22,
        0x7d, 0x01, 0x00, 0x01, 0x9c, 0x61, 0x1c, 0x4a, 0xe2, 0xa8,
    ];
    const FIRST: &[u8] = br#"{"a":"first frame, first frame, first frame"}"#;
    /// `{"second":[1,2,3,1,2,3,1,2,3],"ok":true}` by the zstd tool from a
    /// file: a single segment with its size (40) and a checksum.
    const ZSTD_SECOND: &[u8] = &[
        0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x28, 0x1d, 0x01, 0x00, 0xe8, 0x7b, 0x22, 0x73, 0x65, 0x63,
        0x6f, 0x6e, 0x64, 0x22, 0x3a, 0x5b, 0x31, 0x2c, 0x32, 0x2c, 0x33, 0x2c, 0x5d, 0x2c, 0x22,
        0x6f, 0x6b, 0x22, 0x3a, 0x74, 0x72, 0x75, 0x65, 0x7d, 0x01, 0x00, 0x63, 0x94, 0x25, 0x69,
        0x49, 0xe8, 0xdc,
    ];
    const SECOND: &[u8] = br#"{"second":[1,2,3,1,2,3,1,2,3],"ok":true}"#;
    /// `{"b":"second"}` without a checksum: one raw block.
    const ZSTD_THIRD: &[u8] = &[
        0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58, 0x71, 0x00, 0x00, 0x7b, 0x22, 0x62, 0x22, 0x3a, 0x22,
        0x73, 0x65, 0x63, 0x6f, 0x6e, 0x64, 0x22, 0x7d,
    ];
    const THIRD: &[u8] = br#"{"b":"second"}"#;
    /// A skippable frame of 5 bytes.
    const SKIPPABLE: &[u8] = &[0x53, 0x2a, 0x4d, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5];

    /// A frame whose window descriptor is `window` (RFC 8878, 3.1.1.1.2)
    /// with one empty last raw block.
    fn zstd_with_window(window: u8) -> Vec<u8> {
        vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, window, 0x01, 0x00, 0x00]
    }

    #[test]
    fn zstd_frames_and_skippable_frames_follow_one_another() {
        let body = [
            SKIPPABLE,
            ZSTD_FIRST,
            SKIPPABLE,
            ZSTD_SECOND,
            ZSTD_THIRD,
            SKIPPABLE,
        ]
        .concat();
        let data = [FIRST, SECOND, THIRD].concat();
        for cut in 0..=body.len() {
            assert_eq!(
                decode_cut(Encoding::Zstd, &body, cut).unwrap(),
                data,
                "{cut}"
            );
        }
        assert_eq!(decode(Encoding::Zstd, &body, 1).unwrap(), data);
        assert_eq!(decode(Encoding::Zstd, b"", 1).unwrap(), b"");
        assert_eq!(decode(Encoding::Zstd, SKIPPABLE, 1).unwrap(), b"");
    }

    #[test]
    fn zstd_window_over_8_mib_is_refused() {
        // Exponent 13, mantissa 0: 2^23, 8 MiB.
        assert_eq!(
            decode(Encoding::Zstd, &zstd_with_window(13 << 3), 1).unwrap(),
            b""
        );
        // 8 MiB and one eighth; then 16 MiB; then the largest a window can be.
        for window in [13 << 3 | 1, 14 << 3, 0xff] {
            let error = refused(Encoding::Zstd, &zstd_with_window(window));
            assert!(error.contains("over the 8 MiB"), "{error}");
        }
        // A single segment's window is its size: 9 MiB.
        let mut single = vec![0x28, 0xb5, 0x2f, 0xfd, 0xa0];
        single.extend((9u32 << 20).to_le_bytes());
        single.extend([0x01, 0x00, 0x00]);
        assert!(refused(Encoding::Zstd, &single).contains("over the 8 MiB"));
    }

    #[test]
    fn zstd_that_does_not_check_out_is_refused() {
        let mut checksum = ZSTD_FIRST.to_vec();
        *checksum.last_mut().unwrap() ^= 1;
        assert!(refused(Encoding::Zstd, &checksum).contains("checksum mismatch in zstd frame 1"));
        let mut size = ZSTD_SECOND.to_vec();
        size[5] = 41;
        let body = [ZSTD_THIRD, &size].concat();
        assert!(refused(Encoding::Zstd, &body).contains("zstd frame 2 says it decodes to 41"));
        let mut reserved = ZSTD_THIRD.to_vec();
        reserved[6] |= 0b110;
        assert!(refused(Encoding::Zstd, &reserved).contains("reserved type"));
        assert!(refused(Encoding::Zstd, DATA).contains("the body is not zstd"));
        let mut garbage = ZSTD_THIRD.to_vec();
        garbage.extend([0; 4]);
        assert!(refused(Encoding::Zstd, &garbage).contains("follows zstd frame 1"));
        let body = [ZSTD_FIRST, SKIPPABLE].concat();
        for end in 1..body.len() {
            if end == ZSTD_FIRST.len() {
                continue;
            }
            let error = decode(Encoding::Zstd, &body[..end], 5).unwrap_err();
            assert!(
                error.to_string().contains("truncated zstd body"),
                "{end}: {error}"
            );
        }
    }

    /// `{"br":"brotli body, brotli body, brotli body"}` by brotli's encoder.
    const BROTLI: &[u8] = &[
        0x1b, 0x2d, 0x00, 0xf8, 0x9d, 0x07, 0xb6, 0x2d, 0x6a, 0x7d, 0xa3, 0x5b, 0x9c, 0xfe, 0x10,
        0x43, 0xb0, 0x31, 0xb6, 0xbe, 0xbb, 0x7d, 0x82, 0xa0, 0x1d, 0x85, 0x58, 0xca, 0xe9, 0xf4,
        0x25, 0x08, 0x19, 0x5d, 0x12, 0xa2, 0xc8, 0x54, 0xd5, 0x40, 0x48, 0xcb, 0x83, 0xd0, 0x63,
        0x6d, 0xc2, 0x1c, 0x1a,
    ];
    const BROTLI_DATA: &[u8] = br#"{"br":"brotli body, brotli body, brotli body"}"#;

    #[test]
    fn brotli_decodes_cut_anywhere_and_must_end() {
        for cut in 0..=BROTLI.len() {
            assert_eq!(
                decode_cut(Encoding::Brotli, BROTLI, cut).unwrap(),
                BROTLI_DATA
            );
        }
        for end in 0..BROTLI.len() {
            let error = decode(Encoding::Brotli, &BROTLI[..end], 4).unwrap_err();
            assert!(
                error.to_string().contains("truncated brotli")
                    || error.to_string().contains("invalid"),
                "{end}: {error}"
            );
        }
        let mut after = BROTLI.to_vec();
        after.push(0);
        assert!(refused(Encoding::Brotli, &after).contains("follow the end"));
    }

    #[test]
    fn xxh64_matches_the_reference_values() {
        // XXH64 of "" and of "abc" with seed 0, as xxHash gives them.
        assert_eq!(Xxh64::new().finish(), 0xef46_db37_51d8_e999);
        let mut abc = Xxh64::new();
        abc.update(b"abc");
        assert_eq!(abc.finish(), 0x44bc_2cf5_ad77_0999);
    }

    /// Bodies with bytes flipped, cut or repeated decode or are refused;
    /// none panics (a panic fails the test).
    #[test]
    fn damaged_bodies_never_panic() {
        // Text long enough for Huffman-coded literals and repeated matches.
        let text: Vec<u8> = (0..400u32)
            .flat_map(|n| format!("{{\"n\":{},\"k\":\"v{}\"}}", n % 97, n % 13).into_bytes())
            .collect();
        let zstd_text = ruzstd::encoding::compress_to_vec(
            &text[..],
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        let bodies = [
            (Encoding::Gzip, member_with_every_field(DATA)),
            (Encoding::Gzip, gzip(&text)),
            (
                Encoding::Deflate,
                miniz_oxide::deflate::compress_to_vec_zlib(DATA, 9),
            ),
            (Encoding::Brotli, BROTLI.to_vec()),
            (
                Encoding::Zstd,
                [ZSTD_FIRST, ZSTD_SECOND, ZSTD_THIRD].concat(),
            ),
            (Encoding::Zstd, zstd_text),
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (encoding, body) in bodies {
            for _ in 0..400 {
                let mut damaged = body.clone();
                for _ in 0..1 + next() % 4 {
                    let at = (next() % damaged.len() as u64) as usize;
                    damaged[at] = next() as u8;
                }
                let _ = decode(encoding, &damaged, 1 + (next() % 9) as usize);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn random_bytes_round_trip(
            data in proptest::collection::vec(any::<u8>(), 0..20_000),
            repeat in 1usize..4,
            piece in 1usize..5000,
        ) {
            // Random bytes repeated, so that the encoders find matches too.
            let data = data.repeat(repeat);
            let level = flate2::Compression::default();
            let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), level);
            zlib.write_all(&data).unwrap();
            let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), level);
            raw.write_all(&data).unwrap();
            let zstd = ruzstd::encoding::compress_to_vec(
                &data[..],
                ruzstd::encoding::CompressionLevel::Fastest,
            );
            for (encoding, body) in [
                (Encoding::Gzip, gzip(&data)),
                (Encoding::Deflate, zlib.finish().unwrap()),
                (Encoding::Deflate, raw.finish().unwrap()),
                (Encoding::Zstd, zstd),
            ] {
                let decoded = decode(encoding, &body, piece);
                prop_assert!(decoded.as_ref().is_ok_and(|decoded| *decoded == data), "{encoding:?}");
            }
        }
    }
}
