//! [`Registration`]: a [`Learnable`] type as code that does not know it at
//! the call site uses it (a declaration listing its learnables, a
//! knowledge reading lessons and stored values by collection). It sits
//! beside the trait and depends on nothing above it.

use std::any::TypeId;

use crate::learnable::Learnable;
use crate::lesson_error::LessonError;
use crate::wire::{LearnableDescriptor, LessonField, LessonValue};

/// A lesson's value as the learnable read it for its entry: the value as
/// the type writes it back ("84" and 84 alike), and its `describes`.
#[derive(Debug)]
pub struct Taught {
    /// The value as the type writes it back.
    pub value: LessonValue,
    /// The sentence the type's `describes` makes of it.
    pub describes: String,
}

type AbsorbFn = fn(&LessonValue, &str) -> Result<Taught, LessonError>;
type ShowFn = fn(&LessonValue) -> Result<Vec<LessonField>, LessonError>;
type ReadsFn = fn(&LessonValue) -> Result<(), LessonError>;
type FitsFn = fn(&LessonValue, &str) -> Result<(), Unfit>;
type ShownFn = fn(&LessonValue, &str) -> Result<(Vec<LessonField>, String), LessonError>;
type EntryRefusalFn = fn(&str) -> Option<LessonError>;

/// Why a stored value does not fit its entry: see [`Registration::fits`].
#[derive(Debug)]
pub enum Unfit {
    /// It does not read as the type.
    Unreadable(LessonError),
    /// It reads, but the type refuses it for its entry (a key field that
    /// names another entry).
    OtherEntry(LessonError),
}

/// One learnable type, its functions taken from the trait.
#[derive(Clone, Copy)]
pub struct Registration {
    /// The type's id: two registrations of one type are equal.
    pub type_id: TypeId,
    /// The type's name, for messages.
    pub type_name: &'static str,
    /// Reads a lesson's value for its entry, as a lesson.
    pub absorb: AbsorbFn,
    /// The lesson fields a stored value shows as learned.
    pub show: ShowFn,
    /// Whether a stored value reads as the type.
    pub reads: ReadsFn,
    /// Whether a stored value reads as the type and, written back as
    /// today's type writes it, is a value a lesson on its entry could
    /// teach: what an imported version is checked against.
    pub fits: FitsFn,
    /// A stored value of an entry as the type shows it now: its lesson
    /// fields as learned and its `describes` sentence, from one read.
    pub shown: ShownFn,
    /// The type's descriptor.
    pub descriptor: fn() -> &'static LearnableDescriptor,
    /// Why no lesson can teach the entry, whatever its value: the entry
    /// does not read as the type's entry-key field (`None` when it does,
    /// or the type has no such field).
    pub entry_refusal: EntryRefusalFn,
}

/// Two registrations are the same when they are of the same type.
impl PartialEq for Registration {
    fn eq(&self, other: &Registration) -> bool {
        self.type_id == other.type_id
    }
}

impl Eq for Registration {}

/// A registration shows as the name of its type.
impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.type_name)
    }
}

impl Registration {
    /// The registration of the type `T`.
    pub fn of<T: Learnable + Send + Sync + 'static>() -> Registration {
        Registration {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            absorb: absorb::<T>,
            show: show::<T>,
            reads: reads::<T>,
            fits: fits::<T>,
            shown: shown::<T>,
            descriptor: T::descriptor,
            entry_refusal: entry_refusal::<T>,
        }
    }
}

fn absorb<T: Learnable + Send + Sync + 'static>(
    value: &LessonValue,
    entry: &str,
) -> Result<Taught, LessonError> {
    let typed = T::from_lesson_entry(entry, value)?;
    Ok(Taught {
        value: typed.to_lesson_value(),
        describes: typed.describes(entry),
    })
}

fn reads<T: Learnable>(value: &LessonValue) -> Result<(), LessonError> {
    T::from_stored_value(value).map(drop)
}

fn fits<T: Learnable>(value: &LessonValue, entry: &str) -> Result<(), Unfit> {
    // A value today's type wrote reads as a lesson in one pass; only one
    // that does not (an earlier name, a key since removed, another entry)
    // is read as stored, to say which.
    if T::from_lesson_entry(entry, value).is_ok() {
        return Ok(());
    }
    let typed = T::from_stored_value(value).map_err(Unfit::Unreadable)?;
    T::from_lesson_entry(entry, &typed.to_lesson_value())
        .map(drop)
        .map_err(Unfit::OtherEntry)
}

fn shown<T: Learnable>(
    value: &LessonValue,
    entry: &str,
) -> Result<(Vec<LessonField>, String), LessonError> {
    T::from_stored_value(value)
        .map(|typed| (typed.lesson_fields_as_learned(), typed.describes(entry)))
}

fn entry_refusal<T: Learnable>(entry: &str) -> Option<LessonError> {
    // A lesson with no value reads the entry into its key field, and says
    // what else is missing: only what it says of the entry is kept.
    let error = T::from_lesson_entry(entry, &LessonValue::default()).err()?;
    LessonError::from_problems(
        error
            .problems()
            .iter()
            .filter(|problem| matches!(problem, crate::LessonProblem::BadEntry { .. }))
            .cloned()
            .collect(),
    )
}

fn show<T: Learnable>(value: &LessonValue) -> Result<Vec<LessonField>, LessonError> {
    T::from_stored_value(value).map(|typed| typed.lesson_fields_as_learned())
}
