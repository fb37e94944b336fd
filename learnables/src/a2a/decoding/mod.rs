//! The content codings the scrubber decodes (`gzip`, `deflate`, `br`,
//! `zstd`), each a push decoder: compressed bytes in, the bytes they
//! decode to out, chunk by chunk.
//!
//! One file a coding: `gzip.rs` reads gzip's framing (RFC 1952) around
//! the inflater of `deflate.rs` (`miniz_oxide`'s, which also reads zlib's,
//! RFC 1950); `zstd.rs` cuts zstd's frames (RFC 8878) into whole blocks
//! that `ruzstd` decodes, checked with `xxh64.rs`; `brotli.rs` is
//! `brotli-decompressor`'s stream decoder over plain heap allocations.
//! Whatever the input, nothing here panics: a body that does not decode
//! gives an `io::Error` saying what is wrong with it.

mod brotli;
mod deflate;
mod gzip;
mod xxh64;
mod zstd;

use std::io;

use self::brotli::Brotli;
use self::deflate::Deflate;
use self::gzip::Gzip;
use self::zstd::Zstd;

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

    /// Asserts that `body` decodes to `data` cut in two anywhere, and fed
    /// a byte at a time.
    fn decodes_cut_anywhere(encoding: Encoding, body: &[u8], data: &[u8]) {
        for cut in 0..=body.len() {
            assert_eq!(decode_cut(encoding, body, cut).unwrap(), data, "{cut}");
        }
        assert_eq!(decode(encoding, body, 1).unwrap(), data);
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
        decodes_cut_anywhere(Encoding::Gzip, &member, DATA);
        // No optional field but FTEXT, as flate2 writes it.
        assert_eq!(decode(Encoding::Gzip, &gzip(DATA), 1).unwrap(), DATA);
    }

    #[test]
    fn gzip_members_follow_one_another() {
        let mut body = member_with_every_field(&DATA[..10]);
        body.extend(gzip(&DATA[10..]));
        body.extend(gzip(b""));
        decodes_cut_anywhere(Encoding::Gzip, &body, DATA);
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
            decodes_cut_anywhere(Encoding::Deflate, body, DATA);
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
        decodes_cut_anywhere(Encoding::Zstd, &body, &data);
        assert_eq!(decode(Encoding::Zstd, b"", 1).unwrap(), b"");
        assert_eq!(decode(Encoding::Zstd, SKIPPABLE, 1).unwrap(), b"");
    }

    /// The messages `testdata/messages.json.zst` holds: 227,392 bytes, which
    /// the zstd tool (level 19, with a checksum) wrote as ten compressed
    /// blocks, each with Huffman-coded literals.
    fn messages() -> Vec<u8> {
        let messages: Vec<String> = (0..4000)
            .map(|at| {
                format!(
                    r#"{{"messageId":"m{at}","text":"chapter {} goes to desk {}"}}"#,
                    at % 97,
                    at % 13
                )
            })
            .collect();
        format!("[{}]", messages.join(",")).into_bytes()
    }

    #[test]
    fn zstd_of_the_zstd_tool_decodes_in_pieces_of_any_size() {
        let body = include_bytes!("testdata/messages.json.zst");
        let data = messages();
        assert_eq!(data.len(), 227_392);
        for piece in [1, 7, 1000, 4096, body.len()] {
            assert!(
                decode(Encoding::Zstd, body, piece).unwrap() == data,
                "{piece}"
            );
        }
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
        decodes_cut_anywhere(Encoding::Brotli, BROTLI, BROTLI_DATA);
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
