//! A line of an export that carries a checksum, `PREFIX<crc32>,<body>`:
//! its checksum read and checked, for the version lines and the review
//! lines alike.

/// The body of `line` after its `prefix_len` bytes of prefix, once the
/// CRC-32 written before it matches; else why not, in words.
pub(crate) fn checked_body(line: &[u8], prefix_len: usize) -> Result<&[u8], String> {
    let after = &line[prefix_len..];
    let digits = after
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .count();
    let checksum = std::str::from_utf8(&after[..digits])
        .ok()
        .and_then(|digits| digits.parse::<u32>().ok());
    let (Some(checksum), Some(b',')) = (checksum, after.get(digits)) else {
        return Err("its checksum cannot be read".to_owned());
    };
    let body = &after[digits + 1..];
    if crc32fast::hash(body) != checksum {
        return Err("it fails its checksum: it was changed after it was exported".to_owned());
    }
    Ok(body)
}
