//! What a person teaches: the spec's `Lesson`, and its typed reading.

use serde::{Deserialize, Serialize};

use super::LessonValue;

/// A human's answer: the spec's `Lesson`, sent through the teach method.
/// Keys the spec's `Lesson` does not define are allowed (its schema allows
/// them) and ignored: they are not kept, so never stored.
///
/// Its text fields have maximum lengths, in characters, that the teach
/// method enforces before any other work (a longer one is refused with
/// `-32602` naming the field and its limit): `collection`
/// [`Lesson::MAX_COLLECTION_CHARS`] (128), `entry`
/// [`Lesson::MAX_ENTRY_CHARS`] (256), `taughtBy`
/// [`Lesson::MAX_TAUGHT_BY_CHARS`] (320, the longest e-mail address) and
/// `reason` [`Lesson::MAX_REASON_CHARS`] (2,000). [`Lesson::too_long`]
/// checks them.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{Lesson, LessonValue};
/// let lesson: Lesson = serde_json::from_value(serde_json::json!({
///     "collection": "routing_rules", "entry": "85",
///     "value": {"chapter": "85", "desk": "general"},
///     "taughtBy": "alice@example.com"
/// })).unwrap();
/// assert_eq!(lesson.taught_by, "alice@example.com");
/// assert_eq!(lesson.reason, None);
///
/// let with_extra: Lesson = serde_json::from_value(serde_json::json!({
///     "collection": "routing_rules", "entry": "85", "value": {"desk": "general"},
///     "taughtBy": "alice@example.com", "x-client": {"build": 7}
/// })).unwrap();
/// assert!(!serde_json::to_string(&with_extra).unwrap().contains("x-client"));
/// ```
///
/// It is `#[non_exhaustive]`, so that a field the spec adds is not a
/// breaking change: build one with [`Lesson::new`] and its `with_`
/// methods; its fields stay public to read and to set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Lesson {
    /// The collection taught.
    pub collection: String,
    /// The entry's key within the collection.
    pub entry: String,
    /// The answer, readable only by the collection's learnable.
    pub value: LessonValue,
    /// The human who taught it; never a service account standing in for one.
    pub taught_by: String,
    /// Why, in the teacher's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Lesson {
    /// The longest `collection`, in characters.
    pub const MAX_COLLECTION_CHARS: usize = 128;
    /// The longest `entry`, in characters.
    pub const MAX_ENTRY_CHARS: usize = 256;
    /// The longest `taughtBy`, in characters.
    pub const MAX_TAUGHT_BY_CHARS: usize = 320;
    /// The longest `reason`, in characters.
    pub const MAX_REASON_CHARS: usize = 2_000;

    /// The maximum length in characters of the lesson's text field named
    /// `field` as on the wire (`collection`, `entry`, `taughtBy`,
    /// `reason`); `None` for any other name.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::Lesson;
    /// assert_eq!(Lesson::max_chars("taughtBy"), Some(Lesson::MAX_TAUGHT_BY_CHARS));
    /// assert_eq!(Lesson::max_chars("value"), None);
    /// ```
    pub fn max_chars(field: &str) -> Option<usize> {
        match field {
            "collection" => Some(Lesson::MAX_COLLECTION_CHARS),
            "entry" => Some(Lesson::MAX_ENTRY_CHARS),
            "taughtBy" => Some(Lesson::MAX_TAUGHT_BY_CHARS),
            "reason" => Some(Lesson::MAX_REASON_CHARS),
            _ => None,
        }
    }

    /// The first text field longer than its maximum, as its wire name and
    /// its limit; `None` when every one fits.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{Lesson, LessonValue};
    /// let lesson = Lesson::new("c", "e".repeat(257), LessonValue::default(), "alice@example.com");
    /// assert_eq!(lesson.too_long(), Some(("entry", 256)));
    /// ```
    pub fn too_long(&self) -> Option<(&'static str, usize)> {
        [
            ("collection", Some(self.collection.as_str())),
            ("entry", Some(self.entry.as_str())),
            ("taughtBy", Some(self.taught_by.as_str())),
            ("reason", self.reason.as_deref()),
        ]
        .into_iter()
        .find_map(|(field, text)| {
            let limit = Lesson::max_chars(field)?;
            exceeds(text?, limit).then_some((field, limit))
        })
    }

    /// A lesson for `collection`'s `entry`.
    pub fn new(
        collection: impl Into<String>,
        entry: impl Into<String>,
        value: LessonValue,
        taught_by: impl Into<String>,
    ) -> Lesson {
        Lesson {
            collection: collection.into(),
            entry: entry.into(),
            value,
            taught_by: taught_by.into(),
            reason: None,
        }
    }

    /// Sets the reason.
    pub fn with_reason(mut self, reason: impl Into<String>) -> Lesson {
        self.reason = Some(reason.into());
        self
    }
}

/// Whether `text` has more than `limit` characters (counted no further
/// than needed).
fn exceeds(text: &str, limit: usize) -> bool {
    text.len() > limit && text.chars().nth(limit).is_some()
}
