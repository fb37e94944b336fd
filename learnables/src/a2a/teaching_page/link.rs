//! Links to the teacher's page that open a question: by its task (the page
//! reads the question with `GetTask`) or with the teach block itself in the
//! URL fragment. The fragment never leaves the browser, and never carries a
//! token.

use crate::a2a::TeachBlock;

/// The link that opens the question task `task_id` asks, on the page at
/// `page_url` (such as `http://agent.example/learnables/`). The page shows
/// the question only while the task waits for input, from the agent's
/// message that put it there (the task's status message), never from a
/// message of its history.
///
/// ```
/// use learnables::a2a::teaching_page::task_link;
/// assert_eq!(
///     task_link("http://agent.example/learnables/", "t 1"),
///     "http://agent.example/learnables/#task=t%201"
/// );
/// ```
pub fn task_link(page_url: &str, task_id: &str) -> String {
    format!(
        "{}#task={}",
        without_fragment(page_url),
        percent_encoded(task_id)
    )
}

/// The link that opens `block` on the page at `page_url`: the block as
/// base64url-encoded JSON in the fragment, for a question whose task the
/// page cannot read. Anyone can make such a link, so the page takes from
/// it only what a block may do to the card's form: its entries, and its
/// suggested values where the card's fields take them (it says which it
/// left out); the block's own `lessonFields` are not read.
///
/// ```
/// use learnables::TeachBlock;
/// use learnables::a2a::teaching_page::block_link;
/// let link = block_link("http://agent.example/learnables/", &TeachBlock::new("routing_rules", ["85"]));
/// assert!(link.starts_with("http://agent.example/learnables/#block=eyJ"));
/// ```
pub fn block_link(page_url: &str, block: &TeachBlock) -> String {
    // A teach block is plain data: it always serializes.
    let json = serde_json::to_vec(block).unwrap_or_default();
    format!("{}#block={}", without_fragment(page_url), base64url(&json))
}

fn without_fragment(url: &str) -> &str {
    url.split_once('#').map_or(url, |(before, _)| before)
}

/// `text` with every byte but the unreserved ones written as `%XX`.
fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                char::from(byte).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
}

/// `bytes` in base64url, without padding (RFC 4648, section 5).
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let group = chunk.iter().enumerate().fold(0u32, |group, (at, byte)| {
            group | u32::from(*byte) << (16 - 8 * at)
        });
        for at in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(group >> (18 - 6 * at) & 63) as usize]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{base64url, percent_encoded, task_link};

    #[test]
    fn base64url_follows_rfc_4648() {
        // RFC 4648, section 10, without padding, in the URL alphabet.
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url(plain.as_bytes()), encoded);
        }
        assert_eq!(base64url(&[0xfb, 0xff, 0xbf]), "-_-_");
    }

    #[test]
    fn task_ids_are_percent_encoded() {
        assert_eq!(percent_encoded("a-b_c.d~e"), "a-b_c.d~e");
        assert_eq!(percent_encoded("a&b=c#d é"), "a%26b%3Dc%23d%20%C3%A9");
        assert_eq!(task_link("http://a/p/#old", "x"), "http://a/p/#task=x");
    }
}
