//! Reading a lesson value field by field, every problem collected.

use std::fmt::Display;

use serde_json::Value;

use super::probe::ParseFn;
use super::spec::DescriptorSpec;
use crate::lesson_error::{LessonProblem, shortened};
use crate::{FieldErrors, LessonError, LessonValue};

/// The pairs of a lesson value, for the generated parser.
#[inline]
pub fn entries(value: &LessonValue) -> impl Iterator<Item = (&str, &Value)> {
    value.entries()
}

/// A field's state while a lesson value is read.
#[derive(Debug)]
pub enum Slot<T> {
    /// Not in the value (or `null` for an optional field).
    Absent,
    /// In the value but not accepted; the problem is recorded.
    Rejected,
    /// Read.
    Read(T),
}

/// Collects the problems of one lesson value while its fields are read.
#[derive(Debug)]
pub struct Reader {
    spec: &'static DescriptorSpec,
    problems: Vec<LessonProblem>,
}

impl Reader {
    /// A reader for a value of the learnable `spec` describes.
    #[inline]
    pub fn new(spec: &'static DescriptorSpec) -> Reader {
        Reader {
            spec,
            problems: Vec::new(),
        }
    }

    /// Reads field `index`'s value.
    #[inline]
    pub fn read<T>(&mut self, index: usize, value: &Value, parse: ParseFn<T>) -> Slot<T> {
        match parse(value, &self.spec.fields[index]) {
            Ok(read) => Slot::Read(read),
            Err(problem) => {
                self.reject(problem);
                Slot::Rejected
            }
        }
    }

    /// Reads optional field `index`'s value, where `null` means absent.
    #[inline]
    pub fn read_optional<T>(&mut self, index: usize, value: &Value, parse: ParseFn<T>) -> Slot<T> {
        if value.is_null() {
            Slot::Absent
        } else {
            self.read(index, value, parse)
        }
    }

    #[cold]
    #[inline(never)]
    fn reject(&mut self, problem: LessonProblem) {
        self.problems.push(problem);
    }

    /// Records a key that is no field.
    #[cold]
    #[inline(never)]
    pub fn unknown(&mut self, key: &str) {
        self.problems.push(LessonProblem::UnknownField {
            field: shortened(key),
            known: self
                .spec
                .fields
                .iter()
                .map(|field| field.name.to_owned())
                .collect(),
        });
    }

    /// The value of required field `index`: read, else its default, else a
    /// `Missing` problem.
    #[inline]
    pub fn required<T>(&mut self, index: usize, slot: Slot<T>, parse: ParseFn<T>) -> Option<T> {
        match slot {
            Slot::Read(value) => Some(value),
            Slot::Rejected => None,
            Slot::Absent if self.spec.fields[index].default.is_some() => {
                self.default_of(index, parse)
            }
            Slot::Absent => {
                self.missing(index);
                None
            }
        }
    }

    /// The value of optional field `index`: read, else its default, else none.
    #[inline]
    pub fn optional<T>(&mut self, index: usize, slot: Slot<T>, parse: ParseFn<T>) -> Option<T> {
        match slot {
            Slot::Read(value) => Some(value),
            Slot::Rejected => None,
            Slot::Absent if self.spec.fields[index].default.is_some() => {
                self.default_of(index, parse)
            }
            Slot::Absent => None,
        }
    }

    /// Field `index`'s default, parsed as a value sent would be.
    #[inline(never)]
    fn default_of<T>(&mut self, index: usize, parse: ParseFn<T>) -> Option<T> {
        let field = &self.spec.fields[index];
        let default = Value::String(field.default?.to_owned());
        match parse(&default, field) {
            Ok(value) => Some(value),
            Err(problem) => {
                self.reject(problem);
                None
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn missing(&mut self, index: usize) {
        let field = &self.spec.fields[index];
        self.problems.push(LessonProblem::Missing {
            field: field.name.to_owned(),
            label: field.label(),
        });
    }

    /// The key field `index` for the lesson's `entry`, when there is one:
    /// taken from the entry when the value leaves it out, refused when the
    /// value names another entry (compared in the type's own `Display`
    /// form, so that "085" and "85" agree for a number).
    #[inline(never)]
    pub fn entry_key<T: Display>(
        &mut self,
        index: usize,
        slot: Slot<T>,
        entry: Option<&str>,
        parse: ParseFn<T>,
    ) -> Slot<T> {
        let Some(entry) = entry else {
            return slot;
        };
        let field = &self.spec.fields[index];
        let from_entry = match parse(&Value::String(entry.to_owned()), field) {
            Ok(key) => key,
            Err(problem) => {
                self.reject(LessonProblem::BadEntry {
                    field: field.name.to_owned(),
                    label: field.label(),
                    entry: shortened(entry),
                    reason: problem.reason(),
                });
                return Slot::Rejected;
            }
        };
        match slot {
            Slot::Read(value) => {
                let (value_text, entry_text) = (value.to_string(), from_entry.to_string());
                if value_text != entry_text {
                    self.reject(LessonProblem::EntryMismatch {
                        field: field.name.to_owned(),
                        label: field.label(),
                        entry: shortened(entry),
                        value: shortened(&value_text),
                    });
                    return Slot::Rejected;
                }
                Slot::Read(value)
            }
            Slot::Absent => Slot::Read(from_entry),
            Slot::Rejected => Slot::Rejected,
        }
    }

    /// Whether every field read so far was accepted.
    #[inline]
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// The error of everything recorded.
    #[cold]
    #[inline(never)]
    pub fn into_error(self) -> LessonError {
        let collection = self.spec.collection;
        LessonError::from_problems(self.problems)
            .unwrap_or_else(|| LessonError::wrong_collection(collection, collection))
    }
}

/// The value, if `check` (a `#[learnable(validate = path)]` function)
/// accepts it (an empty [`FieldErrors`] refuses nothing); else its refusals
/// as field problems, each with the field's label and the value sent for it.
pub fn validated<T>(
    value: T,
    check: fn(&T) -> Result<(), FieldErrors>,
    spec: &'static DescriptorSpec,
    lesson_value: &LessonValue,
) -> Result<T, LessonError> {
    match check(&value) {
        Err(errors) if !errors.is_empty() => Err(refused(&errors, spec, lesson_value)),
        _ => Ok(value),
    }
}

#[cold]
#[inline(never)]
fn refused(errors: &FieldErrors, spec: &DescriptorSpec, lesson_value: &LessonValue) -> LessonError {
    let problems = errors
        .iter()
        .map(|(name, reason)| {
            let label = spec
                .fields
                .iter()
                .find(|field| field.name == name)
                .map(|field| field.label())
                .unwrap_or_default();
            match lesson_value.text_of(name) {
                Some(text) => LessonProblem::Invalid {
                    field: name.to_owned(),
                    label,
                    value: shortened(&text),
                    reason: reason.to_owned(),
                },
                None => LessonProblem::Refused {
                    field: name.to_owned(),
                    label,
                    reason: reason.to_owned(),
                },
            }
        })
        .collect();
    LessonError::from_problems(problems).unwrap_or_else(|| LessonError::wrong_collection("", ""))
}
