//! The routing rule: which desk handles a declaration, keyed on its HS
//! chapter, with the chapter and desk types it reads.

use std::fmt;
use std::str::FromStr;

use learnables::{Choice, Learnable};

/// Which desk handles declarations of one HS chapter. The chapter is the
/// entry's key: a lesson for entry `85` is refused if it names another
/// chapter.
///
/// ```
/// use learnables::{Learnable, LessonValue};
/// use learnables_examples::{Desk, RoutingRule};
/// let value =
///     LessonValue::try_from(serde_json::json!({"chapter": "85", "desk": "cold chain"})).unwrap();
/// let rule = RoutingRule::from_lesson_entry("85", &value).unwrap();
/// assert_eq!(rule.desk, Desk::Perishables);
/// assert_eq!(rule.chapter.number(), 85);
///
/// let contradicting =
///     LessonValue::try_from(serde_json::json!({"chapter": "12", "desk": "dangerous-goods"}))
///         .unwrap();
/// let error = RoutingRule::from_lesson_entry("85", &contradicting).unwrap_err();
/// assert_eq!(error.field(), Some("chapter"));
/// ```
#[derive(Learnable, Debug, Clone, PartialEq)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter; anything unmatched goes to the general desk",
    decided_by = "rules",
    skills("route-declaration"),
    describes = "Chapter {chapter} declarations now go to the {desk} desk"
)]
pub struct RoutingRule {
    /// HS chapter
    ///
    /// Two-digit chapter of the Harmonized System.
    #[learnable(entry_key)]
    pub chapter: Chapter,
    /// Desk
    #[learnable(default = "general")]
    pub desk: Desk,
    /// Note for the broker
    pub note: Option<String>,
}

/// The customs desks a declaration can go to.
#[derive(Choice, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Desk {
    /// Everything without a specialist desk.
    General,
    /// Hazardous materials.
    DangerousGoods,
    /// Goods that must stay cold.
    #[choice(rename = "cold chain")]
    Perishables,
}

/// A chapter of the Harmonized System: 1 to 97, except 77, which the HS
/// reserves and leaves unused. Written as its number ("85", "7"); read from
/// its digits ("07" too).
///
/// ```
/// use learnables_examples::Chapter;
/// assert_eq!("85".parse::<Chapter>().unwrap().number(), 85);
/// assert_eq!("07".parse::<Chapter>().unwrap().to_string(), "7");
/// assert!("0".parse::<Chapter>().is_err());
/// assert!("77".parse::<Chapter>().is_err());
/// assert!("98".parse::<Chapter>().is_err());
/// // As JSON, a number, checked the same way:
/// assert!(serde_json::from_str::<Chapter>("85").is_ok());
/// assert!(serde_json::from_str::<Chapter>("77").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize)]
#[serde(try_from = "u8")]
pub struct Chapter(u8);

/// Why a text or a number is no HS chapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChapterError {
    /// Not one or two digits.
    NotANumber,
    /// A number outside 1 to 97.
    OutOfRange(u64),
    /// Chapter 77, reserved by the HS.
    Reserved,
}

impl fmt::Display for ChapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChapterError::NotANumber => f.write_str("an HS chapter is a number from 1 to 97"),
            ChapterError::OutOfRange(number) => write!(
                f,
                "there is no HS chapter {number}: the chapters are 1 to 97"
            ),
            ChapterError::Reserved => {
                f.write_str("HS chapter 77 is reserved and unused: no goods are classified in it")
            }
        }
    }
}

impl std::error::Error for ChapterError {}

impl Chapter {
    /// How many chapters exist: 1 to 97 without 77.
    pub const COUNT: usize = 96;

    /// The chapter's number.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// The `index`th chapter in order, counting round: `nth(0)` is chapter
    /// 1, `nth(76)` chapter 78, `nth(96)` chapter 1 again (for examples and
    /// benchmarks that need many rules).
    ///
    /// ```
    /// use learnables_examples::Chapter;
    /// assert_eq!(Chapter::nth(0).number(), 1);
    /// assert_eq!(Chapter::nth(76).number(), 78);
    /// assert_eq!(Chapter::nth(Chapter::COUNT).number(), 1);
    /// ```
    pub const fn nth(index: usize) -> Chapter {
        let number = (index % Chapter::COUNT) as u8 + 1;
        Chapter(if number >= 77 { number + 1 } else { number })
    }
}

impl TryFrom<u8> for Chapter {
    type Error = ChapterError;

    fn try_from(number: u8) -> Result<Chapter, ChapterError> {
        match number {
            77 => Err(ChapterError::Reserved),
            1..=97 => Ok(Chapter(number)),
            other => Err(ChapterError::OutOfRange(other.into())),
        }
    }
}

impl FromStr for Chapter {
    type Err = ChapterError;

    fn from_str(text: &str) -> Result<Chapter, ChapterError> {
        // One pass over the digits (checking them, then `u64::from_str`,
        // read them twice): at most 19 of them, so the number fits a `u64`.
        if text.is_empty() || text.len() > 19 {
            return Err(ChapterError::NotANumber);
        }
        let mut number = 0u64;
        for digit in text.bytes() {
            if !digit.is_ascii_digit() {
                return Err(ChapterError::NotANumber);
            }
            number = number * 10 + u64::from(digit - b'0');
        }
        u8::try_from(number)
            .map_err(|_| ChapterError::OutOfRange(number))
            .and_then(Chapter::try_from)
    }
}

impl fmt::Display for Chapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
