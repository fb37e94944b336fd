//! Every rule of a learnable's declaration, spec's and ours, as predicates
//! that `#[derive(Learnable)]` calls at compile time and `learnables`'
//! validation (and so `learnables check` and the card lint) calls at run
//! time. [`Rule`] lists them; each says where it can be checked.

use std::fmt;

/// One rule of a declaration, with where it is checked.
///
/// ```
/// use learnables_rules::{Checked, Rule};
/// assert_eq!(Rule::HowIsProse.checked(), Checked::Both);
/// assert!(Rule::ALL.iter().all(|rule| !rule.text().is_empty()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// Spec: `how` is prose, never a placeholder ([`how_problem`](crate::how_problem)).
    HowIsProse,
    /// Ours: `collection`, `entry`, `teaches` and `decidedBy` have a
    /// character other than white space ([`is_blank`]).
    TextsNotBlank,
    /// Spec (`minLength: 1`) and ours (not only white space): a lesson
    /// field's `label` ([`is_blank`]).
    LabelNotBlank,
    /// Ours: a lesson field's `name` and `kind` are not blank ([`is_blank`]).
    NameAndKindNotBlank,
    /// Ours: no two lesson fields share a name.
    FieldNamesUnique,
    /// Spec: a `choice` field lists its choices; ours: at least one, none
    /// blank, none twice ([`choices_problem`]).
    ChoiceFieldHasChoices,
    /// Ours: only a `choice` field lists choices; a text field with
    /// choices shows free text that refuses all but them
    /// ([`choices_problem`]).
    ChoicesOnlyOnChoiceFields,
    /// Ours: a field's `default` is one of its choices ([`default_problem`]).
    DefaultIsAChoice,
    /// Ours: a text field's `default` parses as the field's type. Only the
    /// derive knows the type: at compile time for the standard types it can
    /// see, at the first use of `descriptor()` for others; a descriptor
    /// read at run time has no type to parse with.
    DefaultParses,
    /// Ours: `skills` is absent (every skill) or names at least one skill,
    /// none blank ([`skills_problem`]): an empty list means *no* skill.
    SkillsNotEmpty,
    /// Ours: skills named are skills of the card. Run time only: the derive
    /// does not see the card.
    SkillsOnTheCard,
    /// Ours: no two learnables of a declaration share a collection. Run
    /// time only: each derive sees one learnable.
    CollectionsUnique,
    /// Ours: `teachMethod` is not blank and names no core A2A method
    /// ([`teach_method_problem`]). Run time only: the derive does not name
    /// the method.
    TeachMethodNotCore,
}

/// Where a [`Rule`] is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    /// By the derive and by run-time validation, the same predicate.
    Both,
    /// Only by the derive (with the type in hand).
    DeriveOnly,
    /// Only at run time (it needs more than one learnable, or the card).
    RunTimeOnly,
}

impl Rule {
    /// Every rule.
    pub const ALL: &'static [Rule] = &[
        Rule::HowIsProse,
        Rule::TextsNotBlank,
        Rule::LabelNotBlank,
        Rule::NameAndKindNotBlank,
        Rule::FieldNamesUnique,
        Rule::ChoiceFieldHasChoices,
        Rule::ChoicesOnlyOnChoiceFields,
        Rule::DefaultIsAChoice,
        Rule::DefaultParses,
        Rule::SkillsNotEmpty,
        Rule::SkillsOnTheCard,
        Rule::CollectionsUnique,
        Rule::TeachMethodNotCore,
    ];

    /// Where the rule is checked.
    pub fn checked(self) -> Checked {
        match self {
            Rule::DefaultParses => Checked::DeriveOnly,
            Rule::SkillsOnTheCard | Rule::CollectionsUnique | Rule::TeachMethodNotCore => {
                Checked::RunTimeOnly
            }
            _ => Checked::Both,
        }
    }

    /// The rule, as a sentence.
    pub fn text(self) -> &'static str {
        match self {
            Rule::HowIsProse => "`how` is prose, not a placeholder",
            Rule::TextsNotBlank => "`collection`, `entry`, `teaches` and `decidedBy` are not blank",
            Rule::LabelNotBlank => "every lesson field has a label that is not blank",
            Rule::NameAndKindNotBlank => "every lesson field's name and kind are not blank",
            Rule::FieldNamesUnique => "no two lesson fields share a name",
            Rule::ChoiceFieldHasChoices => {
                "a `choice` field lists at least one choice, none blank, none twice"
            }
            Rule::ChoicesOnlyOnChoiceFields => "only a `choice` field lists choices",
            Rule::DefaultIsAChoice => "a field's default is one of its choices",
            Rule::DefaultParses => "a text field's default parses as the field's type",
            Rule::SkillsNotEmpty => "`skills` is absent or names at least one skill, none blank",
            Rule::SkillsOnTheCard => "every skill named is one of the card's",
            Rule::CollectionsUnique => "no two learnables share a collection",
            Rule::TeachMethodNotCore => "`teachMethod` is not blank and is no core A2A method",
        }
    }
}

/// Whether a text that must say something is empty or only white space.
///
/// ```
/// assert!(learnables_rules::is_blank(" \t"));
/// assert!(!learnables_rules::is_blank("routing rule"));
/// ```
pub fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// What is wrong with a `skills` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillsProblem {
    /// `skills: []`, which means no skill at all.
    Empty,
    /// The skill id at this index is blank.
    Blank(usize),
}

impl fmt::Display for SkillsProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkillsProblem::Empty => f.write_str(
                "an empty `skills` list means the learnable affects no skill: name at least \
                 one skill id, or leave `skills` out for every skill",
            ),
            SkillsProblem::Blank(_) => f.write_str(
                "a skill id must not be empty: name a skill of the agent card, or leave \
                 `skills` out for every skill",
            ),
        }
    }
}

/// Checks a `skills` list (present): at least one id, none blank.
///
/// ```
/// use learnables_rules::{skills_problem, SkillsProblem};
/// assert_eq!(skills_problem::<&str>(&[]), Some(SkillsProblem::Empty));
/// assert_eq!(skills_problem(&["route", " "]), Some(SkillsProblem::Blank(1)));
/// assert_eq!(skills_problem(&["route"]), None);
/// ```
pub fn skills_problem<S: AsRef<str>>(skills: &[S]) -> Option<SkillsProblem> {
    if skills.is_empty() {
        return Some(SkillsProblem::Empty);
    }
    skills
        .iter()
        .position(|skill| is_blank(skill.as_ref()))
        .map(SkillsProblem::Blank)
}

/// What is wrong with a lesson field's choices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChoicesProblem {
    /// A `choice` field without `choices`.
    Missing,
    /// A `choice` field with an empty list.
    Empty,
    /// The choice at this index is blank.
    Blank(usize),
    /// This choice is listed twice.
    Twice(String),
    /// A field of another kind lists choices.
    NotAChoiceField(String),
}

impl fmt::Display for ChoicesProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChoicesProblem::Missing => f.write_str("a `choice` field must list its choices"),
            ChoicesProblem::Empty => f.write_str("a `choice` field needs at least one choice"),
            ChoicesProblem::Blank(_) => f.write_str("a choice must not be blank"),
            ChoicesProblem::Twice(choice) => write!(f, "the choice {choice:?} is listed twice"),
            ChoicesProblem::NotAChoiceField(kind) => write!(
                f,
                "a `{kind}` field lists choices, which only a `choice` field has: a person \
                 would see free text that refuses all but the choices; make the field's kind \
                 `choice`"
            ),
        }
    }
}

/// Checks a lesson field's choices against its kind.
///
/// ```
/// use learnables_rules::{choices_problem, ChoicesProblem};
/// assert_eq!(choices_problem::<&str>("choice", None), Some(ChoicesProblem::Missing));
/// assert_eq!(choices_problem("choice", Some(&["general"])), None);
/// assert_eq!(
///     choices_problem("text", Some(&["general"])),
///     Some(ChoicesProblem::NotAChoiceField("text".into()))
/// );
/// assert_eq!(choices_problem::<&str>("date", None), None);
/// ```
pub fn choices_problem<S: AsRef<str>>(kind: &str, choices: Option<&[S]>) -> Option<ChoicesProblem> {
    let is_choice = kind == "choice";
    let choices = match (choices, is_choice) {
        (None, true) => return Some(ChoicesProblem::Missing),
        (None, false) => return None,
        (Some(_), false) => return Some(ChoicesProblem::NotAChoiceField(kind.to_owned())),
        (Some(choices), true) => choices,
    };
    if choices.is_empty() {
        return Some(ChoicesProblem::Empty);
    }
    for (index, choice) in choices.iter().enumerate() {
        let choice = choice.as_ref();
        if is_blank(choice) {
            return Some(ChoicesProblem::Blank(index));
        }
        if choices[..index]
            .iter()
            .any(|other| other.as_ref() == choice)
        {
            return Some(ChoicesProblem::Twice(choice.to_owned()));
        }
    }
    None
}

/// The problem of a `default` that is none of the field's choices, if it is
/// none of them.
///
/// ```
/// let problem = learnables_rules::default_problem("urgent", Some(&["general", "cold chain"]));
/// assert_eq!(
///     problem.unwrap(),
///     "the default \"urgent\" is not one of the choices: general, cold chain"
/// );
/// assert_eq!(learnables_rules::default_problem("general", Some(&["general"])), None);
/// assert_eq!(learnables_rules::default_problem::<&str>("x", None), None);
/// ```
pub fn default_problem<S: AsRef<str>>(default: &str, choices: Option<&[S]>) -> Option<String> {
    let choices = choices?;
    if choices.iter().any(|choice| choice.as_ref() == default) {
        return None;
    }
    let list: Vec<&str> = choices.iter().map(AsRef::as_ref).collect();
    Some(format!(
        "the default {default:?} is not one of the choices: {}",
        list.join(", ")
    ))
}

/// The JSON-RPC methods of A2A v1.0 itself, which a `teachMethod` must not
/// take over.
pub const CORE_A2A_METHODS: &[&str] = &[
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
];

/// What is wrong with a `teachMethod`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TeachMethodProblem {
    /// Empty or only white space.
    Blank,
    /// One of [`CORE_A2A_METHODS`].
    CoreMethod(&'static str),
}

impl fmt::Display for TeachMethodProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeachMethodProblem::Blank => f.write_str(
                "`teachMethod` is empty: name the method that accepts a lesson, such as \
                 \"rsaxb.learnables.Teach\", or leave it out",
            ),
            TeachMethodProblem::CoreMethod(method) => write!(
                f,
                "`teachMethod` is the core A2A method `{method}`: a lesson would be sent to \
                 the method every A2A client uses for something else; name a method of the \
                 extension's own, such as \"rsaxb.learnables.Teach\""
            ),
        }
    }
}

/// Checks a `teachMethod`.
///
/// ```
/// use learnables_rules::{teach_method_problem, TeachMethodProblem};
/// assert_eq!(
///     teach_method_problem("SendMessage"),
///     Some(TeachMethodProblem::CoreMethod("SendMessage"))
/// );
/// assert_eq!(teach_method_problem("rsaxb.learnables.Teach"), None);
/// ```
pub fn teach_method_problem(method: &str) -> Option<TeachMethodProblem> {
    if is_blank(method) {
        return Some(TeachMethodProblem::Blank);
    }
    CORE_A2A_METHODS
        .iter()
        .find(|core| **core == method.trim())
        .map(|core| TeachMethodProblem::CoreMethod(core))
}
