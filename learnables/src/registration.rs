//! The learnables a [`Knowledge`](super::Knowledge) can be taught, by
//! collection, with what each needs to absorb a lesson without knowing its
//! type at the call site.

use std::any::TypeId;
use std::collections::HashMap;

use super::version::value_json;
use crate::learnable::Learnable;
use crate::lesson_error::LessonError;
use crate::wire::{LearnableDescriptor, LessonField, LessonValue};

/// A lesson's value as the learnable absorbed it.
pub(crate) struct Absorbed {
    /// The value as the learnable writes it back: "84" and 84 alike.
    pub(crate) value: LessonValue,
    /// `value` as compact JSON ([`value_json`]): written by the teacher,
    /// before the writer lock, to be compared with the entry's and kept.
    pub(crate) json: Option<String>,
    pub(crate) describes: String,
}

type AbsorbFn = fn(&LessonValue, &str) -> Result<Absorbed, LessonError>;
type ShowFn = fn(&LessonValue) -> Result<Vec<LessonField>, LessonError>;
type ReadsFn = fn(&LessonValue) -> Result<(), LessonError>;
type FitsFn = fn(&LessonValue, &str) -> Result<(), Unfit>;

/// Why a stored value does not fit its entry: see [`Registration::fits`].
pub(crate) enum Unfit {
    /// It does not read as the type.
    Unreadable(LessonError),
    /// It reads, but the type refuses it for its entry (a key field that
    /// names another entry).
    OtherEntry(LessonError),
}

/// One registered learnable.
#[derive(Clone, Copy)]
pub(crate) struct Registration {
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
    pub(crate) absorb: AbsorbFn,
    pub(crate) show: ShowFn,
    /// Whether a stored value reads as the type.
    pub(crate) reads: ReadsFn,
    /// Whether a stored value reads as the type and, written back as
    /// today's type writes it, is a value a lesson on its entry could
    /// teach: what an imported version is checked against.
    pub(crate) fits: FitsFn,
    pub(crate) descriptor: fn() -> &'static LearnableDescriptor,
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
    pub(crate) fn of<T: Learnable + Send + Sync + 'static>() -> Registration {
        Registration {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
            absorb: absorb::<T>,
            show: show::<T>,
            reads: reads::<T>,
            fits: fits::<T>,
            descriptor: T::descriptor,
        }
    }
}

fn absorb<T: Learnable + Send + Sync + 'static>(
    value: &LessonValue,
    entry: &str,
) -> Result<Absorbed, LessonError> {
    let typed = T::from_lesson_entry(entry, value)?;
    let value = typed.to_lesson_value();
    Ok(Absorbed {
        json: value_json(&value),
        value,
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

fn show<T: Learnable>(value: &LessonValue) -> Result<Vec<LessonField>, LessonError> {
    T::from_stored_value(value).map(|typed| typed.lesson_fields_as_learned())
}

/// Collection name to registration.
pub(crate) type Registry = HashMap<String, Registration>;
