//! The `Learnable` trait: a Rust type whose values an agent can be taught.

use crate::{LearnableDescriptor, LessonError, LessonValue};

/// A knowledge type: what `#[derive(Learnable)]` implements.
///
/// ```
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

    /// The lesson value that teaches `self`.
    fn to_lesson_value(&self) -> LessonValue;

    /// What `self` means for `entry`, phrased for a person.
    fn describes(&self, entry: &str) -> String;
}
