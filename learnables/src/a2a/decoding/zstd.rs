//! The `zstd` coding (RFC 8878): frames cut into whole blocks that
//! `ruzstd` decodes, skippable frames skipped, windows over 8 MiB refused
//! (RFC 9659), content sizes and checksums checked.

use std::io;

use ruzstd::decoding::errors::{FrameDecoderError, FrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

use super::invalid;
use super::xxh64::Xxh64;

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
    pub(super) fn new() -> Zstd {
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

    pub(super) fn write(&mut self, input: &[u8]) -> io::Result<Vec<u8>> {
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

    pub(super) fn finish(self) -> io::Result<Vec<u8>> {
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
