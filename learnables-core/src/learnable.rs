//! The `Learnable` trait: a Rust type whose values an agent can be taught.

use crate::lesson_error::LessonError;
use crate::wire::{LearnableDescriptor, Lesson, LessonField, LessonValue};

/// A knowledge type: what `#[derive(Learnable)]` implements.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{Learnable, LessonValue};
///
/// #[derive(Learnable, Debug, PartialEq)]
/// #[learnable(collection = "greetings", entry = "greeting", teaches = "How to greet a client",
///             how = "A fixed phrase per language, chosen by the support team",
///             decided_by = "rules", describes = "In {entry}, say {phrase}")]
/// struct Greeting {
///     /// Phrase
///     phrase: String,
/// }
///
/// assert_eq!(Greeting::descriptor().collection, "greetings");
/// let greeting = Greeting { phrase: "Bonjour".into() };
/// let value: LessonValue = greeting.to_lesson_value();
/// assert_eq!(Greeting::from_lesson_value(&value).unwrap(), greeting);
/// assert_eq!(greeting.describes("fr"), "In fr, say Bonjour");
/// ```
pub trait Learnable: Sized {
    /// The spec's `LearnableDescriptor` for this type, built once.
    fn descriptor() -> &'static LearnableDescriptor;

    /// Parses a lesson's value: every field typed, every bad field reported.
    fn from_lesson_value(value: &LessonValue) -> Result<Self, LessonError>;

    /// Parses a lesson's value, consuming it: as
    /// [`from_lesson_value`](Learnable::from_lesson_value), except that a
    /// `String` field keeps the text sent rather than a copy (as
    /// `serde_json::from_value` consumes its `Value`). For a value read once
    /// and dropped.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{Learnable, LessonValue};
    /// #[derive(Learnable, Debug)]
    /// #[learnable(collection = "greetings", entry = "greeting", teaches = "How to greet a client",
    ///     how = "A fixed phrase per language", decided_by = "rules", describes = "Say {phrase}")]
    /// struct Greeting {
    ///     /// Phrase
    ///     phrase: String,
    /// }
    /// let value = LessonValue::try_from(serde_json::json!({"phrase": "Bonjour"})).unwrap();
    /// assert_eq!(Greeting::from_owned_lesson_value(value).unwrap().phrase, "Bonjour");
    /// ```
    fn from_owned_lesson_value(value: LessonValue) -> Result<Self, LessonError> {
        Self::from_lesson_value(&value)
    }

    /// Parses a lesson's value for `entry`: as
    /// [`from_lesson_value`](Learnable::from_lesson_value), and, for a type
    /// with a field marked `#[learnable(entry_key)]`, the lesson refused when
    /// that field's value is not the entry (compared as the field's type
    /// writes them: "07" and "7" agree for a number). A value that leaves
    /// the field out takes it from the entry: the entry is typed once.
    /// [`Lesson::parse`](crate::Lesson::parse) and
    /// `Knowledge::teach` (in `learnables`) parse this way.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{Learnable, LessonValue};
    /// #[derive(Learnable, Debug)]
    /// #[learnable(collection = "rules", entry = "chapter", teaches = "Which desk handles a chapter",
    ///     how = "A table keyed on the HS chapter", decided_by = "rules",
    ///     describes = "Chapter {chapter} goes to {desk}")]
    /// struct Rule {
    ///     /// HS chapter
    ///     #[learnable(entry_key)]
    ///     chapter: u8,
    ///     /// Desk
    ///     desk: String,
    /// }
    /// let value = LessonValue::try_from(serde_json::json!({"chapter": "85", "desk": "general"})).unwrap();
    /// assert_eq!(Rule::from_lesson_entry("85", &value).unwrap().chapter, 85);
    /// // Left out, the chapter is the entry's.
    /// let desk_only = LessonValue::try_from(serde_json::json!({"desk": "general"})).unwrap();
    /// assert_eq!(Rule::from_lesson_entry("85", &desk_only).unwrap().chapter, 85);
    /// // Without an entry (a stored value, say) it is required as any field.
    /// assert!(Rule::from_lesson_value(&desk_only).is_err());
    /// let contradicting = LessonValue::try_from(serde_json::json!({"chapter": "12", "desk": "general"})).unwrap();
    /// assert_eq!(
    ///     Rule::from_lesson_entry("85", &contradicting).unwrap_err().to_string(),
    ///     "`chapter` (HS chapter): the value says \"12\" but the lesson's entry is \"85\"; \
    ///      teach entry \"12\", or set `chapter` to \"85\""
    /// );
    /// ```
    fn from_lesson_entry(entry: &str, value: &LessonValue) -> Result<Self, LessonError> {
        let _ = entry;
        Self::from_lesson_value(value)
    }

    /// Reads a value the knowledge stored, which an earlier build of the
    /// type may have written: as
    /// [`from_lesson_value`](Learnable::from_lesson_value), except that a
    /// key the type no longer has is ignored (a field removed), a field's
    /// `#[learnable(alias = "...")]` and a variant's
    /// `#[choice(alias = "...")]` read as today's names (in lessons too),
    /// and, for a type with `#[learnable(migrate = path)]`, a value that
    /// still does not read is given to that function and read again as it
    /// returns it. The stored value itself never changes.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{Learnable, LessonValue};
    /// # use serde_json::{Map, Value, json};
    /// /// Stored before `desk` was split from `note`: "desk: general".
    /// fn from_note(mut old: Map<String, Value>) -> Result<Map<String, Value>, String> {
    ///     let note = old.remove("note").and_then(|note| note.as_str().map(str::to_owned));
    ///     let desk = note.as_deref().and_then(|note| note.strip_prefix("desk: "));
    ///     let desk = desk.ok_or("no desk in the note")?;
    ///     old.insert("desk".into(), json!(desk));
    ///     Ok(old)
    /// }
    ///
    /// #[derive(Learnable, Debug, PartialEq)]
    /// #[learnable(collection = "rules", entry = "chapter", teaches = "Which desk handles a chapter",
    ///     how = "A table keyed on the HS chapter", decided_by = "rules",
    ///     describes = "Chapter {entry} goes to {desk}", migrate = from_note)]
    /// struct Rule {
    ///     /// Desk
    ///     #[learnable(alias = "team")]
    ///     desk: String,
    /// }
    ///
    /// let stored = |value: Value| LessonValue::try_from(value).unwrap();
    /// // An earlier name, and a key the type no longer has.
    /// let renamed = stored(json!({"team": "general", "approver": "ana"}));
    /// assert_eq!(Rule::from_stored_value(&renamed).unwrap().desk, "general");
    /// assert!(Rule::from_lesson_value(&renamed).is_err(), "a lesson is read strictly");
    /// // Migrated.
    /// let older = stored(json!({"note": "desk: cold chain"}));
    /// assert_eq!(Rule::from_stored_value(&older).unwrap().desk, "cold chain");
    /// let unreadable = stored(json!({"note": "?"}));
    /// assert!(Rule::from_stored_value(&unreadable).unwrap_err().to_string().contains("no desk in the note"));
    /// ```
    fn from_stored_value(value: &LessonValue) -> Result<Self, LessonError> {
        Self::from_lesson_value(value)
    }

    /// The lesson value that teaches `self`.
    fn to_lesson_value(&self) -> LessonValue;

    /// What `self` means for `entry`, phrased for a person.
    fn describes(&self, entry: &str) -> String;

    /// The lesson fields with `self`'s values as their defaults: how an
    /// agent shows a teacher what it learned (the form that would teach it
    /// again), without anyone but the learnable reading the lesson value.
    /// A field `self` has no value for has no default.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// # use learnables::Learnable;
    /// # #[derive(Learnable)]
    /// # #[learnable(collection = "c", entry = "e", teaches = "What to greet with",
    /// #     how = "A fixed phrase per language", decided_by = "rules", describes = "{phrase}")]
    /// # struct Greeting { #[learnable(label = "Phrase")] phrase: String,
    /// #     #[learnable(label = "Note", default = "none")] note: Option<String> }
    /// let shown = Greeting { phrase: "Bonjour".into(), note: None }.lesson_fields_as_learned();
    /// assert_eq!(shown[0].default.as_deref(), Some("Bonjour"));
    /// assert_eq!(shown[1].default, None);
    /// ```
    fn lesson_fields_as_learned(&self) -> Vec<LessonField> {
        let value = self.to_lesson_value();
        Self::descriptor()
            .lesson_fields
            .iter()
            .map(|field| LessonField {
                default: value.text_of(&field.name),
                ..field.clone()
            })
            .collect()
    }
}

/// Reading a lesson as a learnable lives beside the trait it calls, so
/// that the wire types do not depend on it.
impl Lesson {
    /// Parses the value as `T` for the lesson's entry
    /// ([`Learnable::from_lesson_entry`]), after checking that the lesson is
    /// for `T`'s collection.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// # use learnables::{Learnable, Lesson, LessonValue};
    /// #[derive(Learnable, Debug)]
    /// #[learnable(collection = "desks", entry = "desk", teaches = "Which desks exist",
    ///             how = "A fixed list kept by the operations team", decided_by = "rules",
    ///             describes = "Desk {entry} is called {name}")]
    /// struct Desk {
    ///     /// Name
    ///     name: String,
    /// }
    /// let value = LessonValue::try_from(serde_json::json!({"name": "Perishables"})).unwrap();
    /// let lesson = Lesson::new("desks", "d1", value.clone(), "alice@example.com");
    /// assert_eq!(lesson.parse::<Desk>().unwrap().name, "Perishables");
    /// let wrong = Lesson::new("routing_rules", "d1", value, "alice@example.com");
    /// assert!(wrong.parse::<Desk>().is_err());
    /// ```
    pub fn parse<T: Learnable>(&self) -> Result<T, LessonError> {
        let expected = &T::descriptor().collection;
        if &self.collection != expected {
            return Err(LessonError::wrong_collection(expected, &self.collection));
        }
        T::from_lesson_entry(&self.entry, &self.value)
    }
}
