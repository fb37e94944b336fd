//! The content codings the scrubber decodes (`gzip`, `deflate`, `br`,
//! `zstd`), each a push decoder: compressed bytes in, the bytes they
//! decode to out, chunk by chunk.

use std::io::{self, Write};

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
    Gzip(flate2::write::MultiGzDecoder<Vec<u8>>),
    /// `deflate`: zlib, as RFC 9110 says, or the raw deflate some servers
    /// send; told apart by the first two bytes.
    Deflate(Deflate),
    Brotli(Box<brotli_decompressor::DecompressorWriter<Vec<u8>>>),
    Zstd(Box<zstd::stream::write::Decoder<'static, Vec<u8>>>),
}

pub(crate) enum Deflate {
    Undecided(Vec<u8>),
    Zlib(flate2::write::ZlibDecoder<Vec<u8>>),
    Raw(flate2::write::DeflateDecoder<Vec<u8>>),
}

impl Decoder {
    pub(crate) fn new(encoding: Encoding) -> io::Result<Option<Decoder>> {
        Ok(Some(match encoding {
            Encoding::Identity => return Ok(None),
            Encoding::Gzip => Decoder::Gzip(flate2::write::MultiGzDecoder::new(Vec::new())),
            Encoding::Deflate => Decoder::Deflate(Deflate::Undecided(Vec::new())),
            Encoding::Brotli => Decoder::Brotli(Box::new(
                brotli_decompressor::DecompressorWriter::new(Vec::new(), 4096),
            )),
            Encoding::Zstd => {
                Decoder::Zstd(Box::new(zstd::stream::write::Decoder::new(Vec::new())?))
            }
        }))
    }

    /// Decodes `input`: what it decodes to.
    pub(crate) fn write(&mut self, input: &[u8]) -> io::Result<Vec<u8>> {
        match self {
            Decoder::Gzip(decoder) => {
                decoder.write_all(input)?;
                Ok(std::mem::take(decoder.get_mut()))
            }
            Decoder::Deflate(deflate) => deflate.write(input),
            Decoder::Brotli(decoder) => {
                decoder.write_all(input)?;
                Ok(std::mem::take(decoder.get_mut()))
            }
            Decoder::Zstd(decoder) => {
                decoder.write_all(input)?;
                Ok(std::mem::take(decoder.get_mut()))
            }
        }
    }

    /// The end of the encoded body: the rest it decodes to.
    pub(crate) fn finish(self) -> io::Result<Vec<u8>> {
        match self {
            Decoder::Gzip(decoder) => decoder.finish(),
            Decoder::Deflate(Deflate::Undecided(start)) if start.is_empty() => Ok(Vec::new()),
            Decoder::Deflate(Deflate::Undecided(start)) => {
                let mut deflate = Deflate::decide(start)?;
                deflate.finish()
            }
            Decoder::Deflate(mut deflate) => deflate.finish(),
            Decoder::Brotli(mut decoder) => {
                decoder.close()?;
                Ok(std::mem::take(decoder.get_mut()))
            }
            Decoder::Zstd(mut decoder) => {
                decoder.flush()?;
                Ok(std::mem::take(decoder.get_mut()))
            }
        }
    }
}

impl Deflate {
    /// The decoder for a stream that starts with `start` (two bytes or
    /// more, or all there is), fed with them.
    fn decide(start: Vec<u8>) -> io::Result<Deflate> {
        let zlib = match start[..] {
            [cmf, flg, ..] => cmf & 0x0f == 8 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0,
            _ => false,
        };
        let mut deflate = if zlib {
            Deflate::Zlib(flate2::write::ZlibDecoder::new(Vec::new()))
        } else {
            Deflate::Raw(flate2::write::DeflateDecoder::new(Vec::new()))
        };
        deflate.feed(&start)?;
        Ok(deflate)
    }

    fn write(&mut self, input: &[u8]) -> io::Result<Vec<u8>> {
        if let Deflate::Undecided(start) = self {
            start.extend_from_slice(input);
            if start.len() < 2 {
                return Ok(Vec::new());
            }
            *self = Deflate::decide(std::mem::take(start))?;
        } else {
            self.feed(input)?;
        }
        Ok(self.take())
    }

    fn feed(&mut self, input: &[u8]) -> io::Result<()> {
        match self {
            Deflate::Undecided(start) => start.extend_from_slice(input),
            Deflate::Zlib(decoder) => decoder.write_all(input)?,
            Deflate::Raw(decoder) => decoder.write_all(input)?,
        }
        Ok(())
    }

    fn take(&mut self) -> Vec<u8> {
        match self {
            Deflate::Undecided(_) => Vec::new(),
            Deflate::Zlib(decoder) => std::mem::take(decoder.get_mut()),
            Deflate::Raw(decoder) => std::mem::take(decoder.get_mut()),
        }
    }

    fn finish(&mut self) -> io::Result<Vec<u8>> {
        match self {
            Deflate::Undecided(_) => {}
            Deflate::Zlib(decoder) => decoder.try_finish()?,
            Deflate::Raw(decoder) => decoder.try_finish()?,
        }
        Ok(self.take())
    }
}
