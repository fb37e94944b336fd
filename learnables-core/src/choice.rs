//! The `Choice` trait: a fieldless enum whose variants are a lesson field's
//! choices.

use std::fmt;

/// A type whose values are a fixed list of choices: what `#[derive(Choice)]`
/// implements, together with `Display` and `FromStr` as the choice string.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::Choice;
///
/// #[derive(Choice, Debug, Clone, Copy, PartialEq)]
/// enum Desk {
///     General,
///     DangerousGoods,
///     #[choice(rename = "cold chain")]
///     Perishables,
/// }
///
/// assert_eq!(Desk::CHOICES, ["general", "dangerous-goods", "cold chain"]);
/// assert_eq!(Desk::DangerousGoods.to_string(), "dangerous-goods");
/// assert_eq!("cold chain".parse::<Desk>(), Ok(Desk::Perishables));
/// assert_eq!(
///     "urgent".parse::<Desk>().unwrap_err().to_string(),
///     "\"urgent\" is not one of the choices: general, dangerous-goods, cold chain"
/// );
/// ```
pub trait Choice: Sized + 'static {
    /// Every choice, in declaration order.
    const CHOICES: &'static [&'static str];

    /// What each choice means, in the order of [`Choice::CHOICES`]: the
    /// first paragraph of each variant's doc comment when derived (`None`
    /// for a variant without one). Empty when the type says nothing.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::Choice;
    /// #[derive(Choice, Debug, Clone, Copy)]
    /// enum Desk {
    ///     /// Everything without a specialist desk.
    ///     General,
    ///     Perishables,
    /// }
    /// assert_eq!(Desk::DESCRIPTIONS, &[Some("Everything without a specialist desk."), None]);
    /// ```
    const DESCRIPTIONS: &'static [Option<&'static str>] = &[];

    /// The other strings [`Choice::from_choice`] reads, each beside the
    /// choice it reads as: a variant's `#[choice(alias = "...")]`s when
    /// derived, `true` and `false` for `bool`. Empty when there are none.
    /// A field's `default` may be one of them, as a lesson may; the
    /// descriptor shows the choice it reads as.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::Choice;
    /// #[derive(Choice, Debug, Clone, Copy)]
    /// enum Desk {
    ///     #[choice(alias = "main")]
    ///     General,
    ///     Perishables,
    /// }
    /// assert_eq!(Desk::ALIASES, &[("main", "general")]);
    /// assert_eq!(bool::ALIASES, &[("true", "yes"), ("false", "no")]);
    /// ```
    const ALIASES: &'static [(&'static str, &'static str)] = &[];

    /// The choice `self` is.
    fn as_choice(&self) -> &'static str;

    /// The value of a choice string, if it is one.
    fn from_choice(choice: &str) -> Option<Self>;
}

/// A `bool` field is a `choice` field of two choices, `yes` and `no`, the
/// words a person answers with; a lesson may also say `true` or `false`
/// (what a JSON boolean, or a stored value of an earlier release, holds).
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::Choice;
/// assert_eq!(bool::CHOICES, ["yes", "no"]);
/// assert_eq!(true.as_choice(), "yes");
/// assert_eq!(bool::from_choice("no"), Some(false));
/// assert_eq!(bool::from_choice("true"), Some(true));
/// assert_eq!(bool::from_choice("maybe"), None);
/// ```
impl Choice for bool {
    const CHOICES: &'static [&'static str] = &["yes", "no"];
    const ALIASES: &'static [(&'static str, &'static str)] = &[("true", "yes"), ("false", "no")];

    fn as_choice(&self) -> &'static str {
        if *self { "yes" } else { "no" }
    }

    fn from_choice(choice: &str) -> Option<bool> {
        match choice {
            "yes" | "true" => Some(true),
            "no" | "false" => Some(false),
            _ => None,
        }
    }
}

/// A string that is not one of a type's choices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceError {
    value: String,
    choices: &'static [&'static str],
}

impl ChoiceError {
    /// The error for `value`, which is none of `choices`.
    pub fn new(value: &str, choices: &'static [&'static str]) -> ChoiceError {
        ChoiceError {
            value: crate::lesson_error::shortened(value),
            choices,
        }
    }

    /// The choices that would have been accepted.
    pub fn choices(&self) -> &'static [&'static str] {
        self.choices
    }
}

impl fmt::Display for ChoiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not one of the choices: {}",
            self.value,
            self.choices.join(", ")
        )
    }
}

impl std::error::Error for ChoiceError {}
