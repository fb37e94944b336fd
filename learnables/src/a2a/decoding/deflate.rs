//! Deflate (RFC 1951), raw or in zlib's wrapping (RFC 1950), on
//! `miniz_oxide`'s streaming inflater: the `deflate` coding, and the
//! inflater gzip's members are read with.

use std::io;

use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::stream::{InflateState, inflate};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

use super::{OUTPUT_STEP, invalid};

/// A deflate stream (RFC 1951), raw or in zlib's wrapping (RFC 1950,
/// whose Adler-32 `miniz_oxide` checks).
pub(crate) struct Inflater {
    state: Box<InflateState>,
    room: Vec<u8>,
    ended: bool,
}

impl Inflater {
    pub(super) fn new(format: DataFormat) -> Inflater {
        Inflater {
            state: InflateState::new_boxed(format),
            room: vec![0; OUTPUT_STEP],
            ended: false,
        }
    }

    /// Ready for a new stream.
    pub(super) fn reset(&mut self, format: DataFormat) {
        self.state.reset(format);
        self.ended = false;
    }

    /// Decodes `input` into `out` up to the end of the stream, taking what
    /// it reads off `input`: whether the stream has ended. Each call
    /// decodes all it is given (deflate decodes to at most about 1000
    /// times its size) and gives out all it decoded.
    pub(super) fn feed(&mut self, input: &mut &[u8], out: &mut Vec<u8>) -> io::Result<bool> {
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

    pub(super) fn write(&mut self, input: &[u8]) -> io::Result<Vec<u8>> {
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

    pub(super) fn finish(self) -> io::Result<Vec<u8>> {
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
