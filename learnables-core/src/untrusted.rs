//! Text from outside (an agent card, a lesson, a JSON-RPC error, a URL a
//! server redirected to), made safe to show to a person on a terminal and
//! to write to a log.
//!
//! [`Untrusted`] wraps a `&str` and implements [`Display`](fmt::Display):
//! every character that could act on a terminal or a log instead of being
//! read is written as a visible escape, and the text is cut at a bound.
//!
//! - **Escaped**: every control character (C0 `U+0000`–`U+001F`, DEL
//!   `U+007F`, C1 `U+0080`–`U+009F`), which disarms every escape sequence
//!   (CSI, OSC — title `OSC 0`, clipboard `OSC 52`, links `OSC 8` —, DCS,
//!   and the one-character C1 forms such as `U+009B`) since none can start
//!   without one; the bidirectional controls (`U+061C`, `U+200E`,
//!   `U+200F`, `U+202A`–`U+202E`, `U+2066`–`U+2069`); and the invisible
//!   characters (zero-width space, joiners, word joiner, BOM, soft hyphen,
//!   line and paragraph separators, the invisible operators, Hangul
//!   fillers, interlinear annotations, tag characters and the like: see
//!   [`is_hazard`], defined by Unicode's general categories).
//! - **How**: `\n`, `\r` and `\t` as those two characters; anything else
//!   as Rust writes a char escape, `\u{1b}`, `\u{202e}`. The escapes are
//!   for reading, not for reversing: a text that already holds the
//!   characters `\u{1b}` shows the same (and is as harmless).
//! - **One line or several**: by default the result is one line (a `\n`
//!   in the text shows as `\n`), so one log event stays one line;
//!   [`Untrusted::multi_line`] keeps `\n` for a paragraph on a terminal
//!   (a `\r` is still escaped, so no line can be overwritten).
//! - **Bounded**: at most [`Untrusted::max_chars`] characters of the
//!   result ([`DEFAULT_MAX_CHARS`] unless set), escapes counted as their
//!   width and never split, then a marker `…[+N chars]` saying how many
//!   characters of the text were left out (at most [`MARKER_MAX_CHARS`]
//!   more). The cut falls between characters, never inside one.
//!
//! ```
//! # extern crate learnables_core as learnables;
//! use learnables::untrusted::Untrusted;
//!
//! let from_an_agent = "Desk\x1b]52;c;ZWNobyBoaQ==\x07 \u{202e}lanigiro\nnext";
//! assert_eq!(
//!     Untrusted::new(from_an_agent).to_string(),
//!     r"Desk\u{1b}]52;c;ZWNobyBoaQ==\u{7} \u{202e}lanigiro\nnext"
//! );
//! assert_eq!(
//!     Untrusted::new("line one\r\nline two").multi_line().to_string(),
//!     "line one\\r\nline two"
//! );
//! assert_eq!(Untrusted::new("a long description").max_chars(6).to_string(), "a long…[+12 chars]");
//! // In a log event, as a `tracing` field or in `format!`:
//! let line = format!("the agent refused: {}", Untrusted::new("bad\nforged line"));
//! assert_eq!(line, r"the agent refused: bad\nforged line");
//! ```

use std::fmt::{self, Write as _};

/// How many characters of escaped text [`Untrusted`] shows unless told
/// otherwise.
pub const DEFAULT_MAX_CHARS: usize = 4096;

/// The longest truncation marker, `…[+18446744073709551615 chars]`: a cut
/// text is at most `max_chars` plus this many characters.
pub const MARKER_MAX_CHARS: usize = 30;

/// Text from outside, shown safely: see the [module](self) for what is
/// escaped and how.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::untrusted::Untrusted;
/// let title = "\x1b]0;pwned\x07Customs agent";
/// assert_eq!(format!("{}", Untrusted::new(title)), r"\u{1b}]0;pwned\u{7}Customs agent");
/// // Width and precision pad and cut the escaped text, as for a `str`:
/// assert_eq!(format!("[{:<8}]", Untrusted::new("a\tb")), r"[a\tb    ]");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Untrusted<'a> {
    text: &'a str,
    max_chars: usize,
    multi_line: bool,
}

impl<'a> Untrusted<'a> {
    /// `text`, shown on one line and cut after [`DEFAULT_MAX_CHARS`].
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::untrusted::Untrusted;
    /// assert_eq!(Untrusted::new("two\nlines").to_string(), r"two\nlines");
    /// ```
    pub fn new(text: &'a str) -> Untrusted<'a> {
        Untrusted {
            text,
            max_chars: DEFAULT_MAX_CHARS,
            multi_line: false,
        }
    }

    /// Shows at most `max_chars` characters of escaped text, then the
    /// truncation marker if anything was left out.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::untrusted::Untrusted;
    /// // An escape is never split: it fits whole, or the cut comes before it.
    /// assert_eq!(Untrusted::new("ab\x1bcd").max_chars(4).to_string(), "ab…[+3 chars]");
    /// assert_eq!(Untrusted::new("ab\x1bcd").max_chars(9).to_string(), r"ab\u{1b}c…[+1 chars]");
    /// ```
    #[must_use]
    pub fn max_chars(self, max_chars: usize) -> Untrusted<'a> {
        Untrusted { max_chars, ..self }
    }

    /// Keeps line feeds (`\n`), for a paragraph on a terminal; every other
    /// control, `\r` included, is still escaped.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::untrusted::Untrusted;
    /// assert_eq!(Untrusted::new("a\nb\rc").multi_line().to_string(), "a\nb\\rc");
    /// ```
    #[must_use]
    pub fn multi_line(self) -> Untrusted<'a> {
        Untrusted {
            multi_line: true,
            ..self
        }
    }

    /// Writes the escaped, bounded text to `out`: runs of characters shown
    /// as they are in one write, each escape in its own.
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let text = self.text;
        let mut used = 0usize;
        let mut run_start = 0;
        let mut at = 0;
        while at < text.len() {
            // Printable ASCII, the common case, is shown as it is, a run at
            // a time.
            let ascii = text.as_bytes()[at..]
                .iter()
                .position(|byte| !(0x20..0x7f).contains(byte))
                .unwrap_or(text.len() - at);
            if ascii > 0 {
                let room = self.max_chars.saturating_sub(used);
                if ascii > room {
                    return self.cut(out, run_start, at + room);
                }
                used += ascii;
                at += ascii;
                continue;
            }
            let Some(c) = text[at..].chars().next() else {
                break;
            };
            let piece = Piece::of(c, self.multi_line);
            let width = piece.width();
            if width > self.max_chars.saturating_sub(used) {
                return self.cut(out, run_start, at);
            }
            used += width;
            if !matches!(piece, Piece::Raw) {
                out.write_str(&text[run_start..at])?;
                piece.write_to(out)?;
                run_start = at + c.len_utf8();
            }
            at += c.len_utf8();
        }
        out.write_str(&text[run_start..])
    }

    /// Writes the run before `at`, then the marker for what is left.
    fn cut(&self, out: &mut impl fmt::Write, run_start: usize, at: usize) -> fmt::Result {
        out.write_str(&self.text[run_start..at])?;
        let left = self.text[at..].chars().count();
        write!(out, "…[+{left} chars]")
    }
}

impl fmt::Display for Untrusted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.width().is_none() && f.precision().is_none() {
            return self.write_to(f);
        }
        let mut shown = String::new();
        self.write_to(&mut shown)?;
        f.pad(&shown)
    }
}

/// The escaped text in quotes: a `Debug` of untrusted text is as safe as
/// its `Display`.
impl fmt::Debug for Untrusted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        self.write_to(f)?;
        f.write_char('"')
    }
}

/// How one character is shown.
enum Piece {
    /// As it is.
    Raw,
    /// As a short escape: `\n`, `\r`, `\t`.
    Short(&'static str),
    /// As `\u{...}`.
    Unicode(char),
}

impl Piece {
    fn of(c: char, multi_line: bool) -> Piece {
        match c {
            '\n' if multi_line => Piece::Raw,
            '\n' => Piece::Short("\\n"),
            '\r' => Piece::Short("\\r"),
            '\t' => Piece::Short("\\t"),
            c if is_hazard(c) => Piece::Unicode(c),
            _ => Piece::Raw,
        }
    }

    fn width(&self) -> usize {
        match self {
            Piece::Raw => 1,
            Piece::Short(text) => text.len(),
            Piece::Unicode(c) => c.escape_unicode().len(),
        }
    }

    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Piece::Raw => Ok(()),
            Piece::Short(text) => out.write_str(text),
            Piece::Unicode(c) => write!(out, "{}", c.escape_unicode()),
        }
    }
}

/// Whether `c` is never shown as it is: a character that does not show as
/// itself. By Unicode's general categories: every control (`Cc`: C0, DEL,
/// C1; `\n` included, which only [`Untrusted::multi_line`] keeps), every
/// format character (`Cf`: the bidirectional controls, zero-width spaces
/// and joiners, the BOM, the soft hyphen, the invisible operators, tag
/// characters, ...), the line and paragraph separators (`Zl`, `Zp`); and
/// beside them the default-ignorable characters of other categories, which
/// draw as nothing (the combining grapheme joiner, Hangul fillers, Khmer
/// inherent vowels, Mongolian selectors), and the noncharacters `U+FFFE`,
/// `U+FFFF`. Variation selectors are left alone: they only choose how the
/// character before them is drawn (an emoji's colour presentation), and
/// can neither hide nor reorder text.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::untrusted::is_hazard;
/// assert!(is_hazard('\x1b') && is_hazard('\u{9b}') && is_hazard('\u{202e}'));
/// assert!(is_hazard('\u{200b}') && is_hazard('\u{feff}') && is_hazard('\u{e0041}'));
/// // Format characters beyond the usual suspects: an Arabic number sign, a
/// // Kaithi number sign, an Egyptian hieroglyph format control.
/// assert!(is_hazard('\u{600}') && is_hazard('\u{110bd}') && is_hazard('\u{13430}'));
/// assert!(!is_hazard('é') && !is_hazard('→') && !is_hazard('中') && !is_hazard(' '));
/// assert!(!is_hazard('\u{fe0f}'));
/// ```
pub fn is_hazard(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory as _};
    // Printable ASCII, the common case, is decided without a table.
    if (' '..='~').contains(&c) {
        return false;
    }
    c.is_control()
        || matches!(
            c.general_category(),
            GeneralCategory::Format
                | GeneralCategory::LineSeparator
                | GeneralCategory::ParagraphSeparator
        )
        || matches!(
            c,
            '\u{00AD}'                      // soft hyphen
            | '\u{034F}'                    // combining grapheme joiner
            | '\u{061C}'                    // Arabic letter mark (bidi)
            | '\u{115F}' | '\u{1160}'       // Hangul fillers
            | '\u{17B4}' | '\u{17B5}'       // Khmer inherent vowels (invisible)
            | '\u{180B}'..='\u{180F}'       // Mongolian selectors and vowel separator
            | '\u{200B}'..='\u{200F}'       // zero-width space, ZWNJ, ZWJ, LRM, RLM
            | '\u{2028}'..='\u{202E}'       // line, paragraph separators; bidi embeddings, overrides
            | '\u{2060}'..='\u{206F}'       // word joiner, invisible operators, bidi isolates, ...
            | '\u{3164}'                    // Hangul filler
            | '\u{FEFF}'                    // BOM, zero-width no-break space
            | '\u{FFA0}'                    // halfwidth Hangul filler
            | '\u{FFF9}'..='\u{FFFB}'       // interlinear annotation
            | '\u{FFFE}' | '\u{FFFF}'       // noncharacters
            | '\u{1BCA0}'..='\u{1BCA3}'     // shorthand format controls
            | '\u{1D173}'..='\u{1D17A}'     // musical format controls
            | '\u{E0000}'..='\u{E007F}' // tag characters
        )
}

/// `text` with every character [`Untrusted`] escapes written as its
/// escape, whole (no bound): for text that is stored or sent on rather than
/// shown at once, such as a `describes` sentence built from a teacher's
/// values. Text with nothing to escape is borrowed as it is.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::untrusted::escaped;
/// assert_eq!(escaped("Chapter 85 goes to the \u{202e}kseD desk"), r"Chapter 85 goes to the \u{202e}kseD desk");
/// assert!(matches!(escaped("Größe ≤ 5 kg"), std::borrow::Cow::Borrowed(_)));
/// ```
pub fn escaped(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_hazard) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(Untrusted::new(text).max_chars(usize::MAX).to_string())
}

/// A name (a lesson's `entry` or `collection`) that holds a character
/// which does not show as itself ([`is_hazard`]): refused wherever a name
/// comes in, since two names that read the same to a person must be the
/// same name, and a name is repeated to people (in a `describes` sentence,
/// a show-back, a log). Its message names the field, the name and the
/// character, each escaped as [`Untrusted`] escapes them.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::untrusted::HiddenCharacter;
/// assert_eq!(HiddenCharacter::check("entry", "85"), Ok(()));
/// let refused = HiddenCharacter::check("entry", "\u{202e}gnp.exe").unwrap_err();
/// assert_eq!(refused.field, "entry");
/// assert_eq!(refused.character, '\u{202e}');
/// assert_eq!(
///     refused.to_string(),
///     "the entry `\\u{202e}gnp.exe` holds the character \\u{202e} (U+202E), which does not \
///      show as itself (a control, direction-changing or invisible character): the same \
///      entry would read differently to different people; write it without that character"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {field} `{}` holds the character {} (U+{:04X}), which does not show as itself (a \
     control, direction-changing or invisible character): the same {field} would read \
     differently to different people; write it without that character",
    Untrusted::new(name).max_chars(NAME_SHOWN_CHARS),
    character.escape_unicode(),
    u32::from(*character)
)]
#[non_exhaustive]
pub struct HiddenCharacter {
    /// The field the name was given in: `entry` or `collection`.
    pub field: &'static str,
    /// The name as it was given.
    pub name: String,
    /// Its first character that does not show as itself.
    pub character: char,
}

/// How many characters of a refused name its message repeats.
const NAME_SHOWN_CHARS: usize = 80;

impl HiddenCharacter {
    /// `Ok` when no character of `name` is a [hazard](is_hazard), else
    /// the refusal naming `field`, the name and its first such character.
    pub fn check(field: &'static str, name: &str) -> Result<(), HiddenCharacter> {
        // Printable ASCII, what names almost always are, needs no table.
        if name.bytes().all(|byte| (0x20..0x7f).contains(&byte)) {
            return Ok(());
        }
        match name.chars().find(|c| is_hazard(*c)) {
            None => Ok(()),
            Some(character) => Err(HiddenCharacter {
                field,
                name: name.to_owned(),
                character,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn terminal_escape_sequences_are_shown_not_run() {
        for (hostile, shown) in [
            (
                "\x1b]52;c;cm0gLXJmIH4=\x07",
                r"\u{1b}]52;c;cm0gLXJmIH4=\u{7}",
            ),
            ("\x1b]0;title\x1b\\", r"\u{1b}]0;title\u{1b}\"),
            (
                "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\",
                r"\u{1b}]8;;http://evil.example/\u{1b}\click\u{1b}]8;;\u{1b}\",
            ),
            ("\x1b[2J\x1b[1A\x1b[31m", r"\u{1b}[2J\u{1b}[1A\u{1b}[31m"),
            ("\u{9b}2J\u{90}q\u{9c}", r"\u{9b}2J\u{90}q\u{9c}"),
            ("\x1bP1$r\x1b\\", r"\u{1b}P1$r\u{1b}\"),
            ("a\0b\x7fc\x08", r"a\u{0}b\u{7f}c\u{8}"),
        ] {
            assert_eq!(Untrusted::new(hostile).to_string(), shown, "{hostile:?}");
        }
    }

    #[test]
    fn bidi_and_invisible_characters_are_named() {
        assert_eq!(
            Untrusted::new("txt.\u{202e}exe\u{202c}\u{2066}\u{200b}\u{feff}\u{61c}\u{200e}")
                .to_string(),
            r"txt.\u{202e}exe\u{202c}\u{2066}\u{200b}\u{feff}\u{61c}\u{200e}"
        );
        assert_eq!(
            Untrusted::new("ok\u{e0069}\u{e0067}").to_string(),
            r"ok\u{e0069}\u{e0067}"
        );
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        let text = "Chapter 85 → cold chain desk, Zoll: Größe ≤ 5 kg, 中文, emoji 🚚";
        assert_eq!(Untrusted::new(text).to_string(), text);
        assert_eq!(
            Untrusted::new("a\nb").multi_line().to_string(),
            "a\nb",
            "a paragraph keeps its lines"
        );
        assert_eq!(Untrusted::new("C:\\path").to_string(), "C:\\path");
    }

    #[test]
    fn the_cut_falls_between_characters_and_says_how_much_is_left() {
        assert_eq!(
            Untrusted::new("äöüß").max_chars(2).to_string(),
            "äö…[+2 chars]"
        );
        assert_eq!(
            Untrusted::new("🚚🚚").max_chars(1).to_string(),
            "🚚…[+1 chars]"
        );
        assert_eq!(
            Untrusted::new("abc").max_chars(0).to_string(),
            "…[+3 chars]"
        );
        assert_eq!(Untrusted::new("abc").max_chars(3).to_string(), "abc");
        assert_eq!(Untrusted::new("").max_chars(0).to_string(), "");
        assert_eq!(
            Untrusted::new("\n\n\n").max_chars(4).to_string(),
            r"\n\n…[+1 chars]"
        );
    }

    #[test]
    fn debug_and_padding_are_escaped_too() {
        assert_eq!(format!("{:?}", Untrusted::new("a\x1bb")), r#""a\u{1b}b""#);
        assert_eq!(format!("{:>7}|", Untrusted::new("\x07")), r"  \u{7}|");
        assert_eq!(format!("{:.3}", Untrusted::new("\x07")), r"\u{");
    }

    /// Characters that attack terminals and logs, mixed into arbitrary
    /// text by the properties below.
    const HOSTILE: &[char] = &[
        '\x1b',
        '\x07',
        '\r',
        '\n',
        '\t',
        '\0',
        '\x7f',
        '\u{85}',
        '\u{9b}',
        '\u{9d}',
        '\u{90}',
        '\u{9c}',
        '\u{202a}',
        '\u{202b}',
        '\u{202c}',
        '\u{202d}',
        '\u{202e}',
        '\u{2066}',
        '\u{2067}',
        '\u{2068}',
        '\u{2069}',
        '\u{200e}',
        '\u{200f}',
        '\u{61c}',
        '\u{200b}',
        '\u{200c}',
        '\u{200d}',
        '\u{2060}',
        '\u{feff}',
        '\u{2028}',
        '\u{2029}',
        '\u{ad}',
        '\u{e0041}',
        '[',
        ']',
        ';',
        '\\',
        'é',
        '🚚',
    ];

    fn hostile_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![any::<char>(), proptest::sample::select(HOSTILE)],
            0..300,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    fn no_raw_hazard(shown: &str, multi_line: bool) -> Result<(), TestCaseError> {
        for c in shown.chars() {
            let allowed = multi_line && c == '\n';
            prop_assert!(allowed || !is_hazard(c), "{c:?} survived in {shown:?}");
        }
        for byte in shown.bytes() {
            let allowed = multi_line && byte == b'\n';
            prop_assert!(allowed || (byte >= 0x20 && byte != 0x7f), "byte {byte:#x}");
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn no_hazard_survives_and_the_length_is_bounded(
            text in hostile_text(),
            max in 0usize..400,
        ) {
            for multi_line in [false, true] {
                let untrusted = Untrusted::new(&text).max_chars(max);
                let untrusted = if multi_line { untrusted.multi_line() } else { untrusted };
                let shown = untrusted.to_string();
                no_raw_hazard(&shown, multi_line)?;
                prop_assert!(shown.chars().count() <= max + MARKER_MAX_CHARS, "{shown:?}");
                let cut = shown.contains("…[+");
                if !cut {
                    prop_assert!(shown.chars().count() <= max);
                }
                if multi_line && !cut {
                    prop_assert_eq!(shown.matches('\n').count(), text.matches('\n').count());
                }
            }
        }

        #[test]
        fn safe_text_within_the_bound_is_unchanged(text in "[^\\p{C}]{0,200}") {
            let safe: String = text.chars().filter(|c| !is_hazard(*c)).collect();
            prop_assert_eq!(Untrusted::new(&safe).max_chars(200).to_string(), safe.clone());
        }

        #[test]
        fn the_shown_text_begins_with_the_text_up_to_its_first_escape(
            text in hostile_text(),
            max in 0usize..400,
        ) {
            let shown = Untrusted::new(&text).max_chars(max).to_string();
            let safe_prefix: String = text
                .chars()
                .take_while(|c| *c != '\t' && *c != '\r' && *c != '\n' && !is_hazard(*c))
                .take(max)
                .collect();
            prop_assert!(shown.starts_with(&safe_prefix), "{shown:?} / {safe_prefix:?}");
        }
    }
}
