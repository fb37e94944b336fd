//! Reading a lesson value field by field, every problem collected.

use std::fmt::Display;

use serde_json::{Map as JsonMap, Value};

use super::probe::TakeFn;
use super::spec::ParseFn;
use super::spec::{DescriptorSpec, FieldSpec};
use crate::lesson_error::{FieldErrors, LessonError};
use crate::lesson_error::{LessonProblem, shortened};
use crate::wire::{LearnableDescriptor, LessonValue};

/// The pairs of a lesson value, for the generated parser.
#[inline]
pub fn entries(value: &LessonValue) -> impl Iterator<Item = (&str, &Value)> {
    value.entries()
}

/// The pairs of a lesson value the generated parser owns, taken out of it.
#[inline]
pub fn owned_entries(value: LessonValue) -> impl Iterator<Item = (String, Value)> {
    value.into_entries()
}

/// A field's parsers: of a borrowed value, of an owned one.
pub type Parsers<T> = (ParseFn<T>, TakeFn<T>);

/// A value sent for a field as the generated parser reads it: borrowed
/// from a lesson value, or taken out of one it owns (so that a `String`
/// field keeps the text sent, as serde's `from_value` does).
pub trait Sent {
    /// The value, to look at.
    fn value(&self) -> &Value;

    /// The field's value, read with the first of `parsers` from a
    /// borrowed value, with the second from an owned one.
    fn read<T>(self, parsers: Parsers<T>, field: &FieldSpec) -> Result<T, LessonProblem>;
}

impl Sent for &Value {
    #[inline]
    fn value(&self) -> &Value {
        self
    }

    #[inline]
    fn read<T>(self, (parse, _): Parsers<T>, field: &FieldSpec) -> Result<T, LessonProblem> {
        parse(self, field)
    }
}

impl Sent for Value {
    #[inline]
    fn value(&self) -> &Value {
        self
    }

    #[inline]
    fn read<T>(self, (_, take): Parsers<T>, field: &FieldSpec) -> Result<T, LessonProblem> {
        take(self, field)
    }
}

/// Whether `value` is `null` or a text of nothing but spaces.
#[inline]
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => is_blank(text),
        _ => false,
    }
}

/// Whether `text` is nothing but spaces (`char::is_whitespace`). A text
/// that opens with an ASCII character other than a space is not, and
/// needs no scan: the usual note, which `trim` would scan from both ends
/// (a tenth of a typed parse, against serde's derive that does not check).
#[inline]
fn is_blank(text: &str) -> bool {
    match text.as_bytes().first() {
        None => true,
        Some(&first) if first.is_ascii() && !char::from(first).is_whitespace() => false,
        Some(_) => text.trim().is_empty(),
    }
}

/// The items of a list field's value, each read with `parse`: a JSON
/// array, or a text read as one item a line ([`crate::LIST_SEPARATOR`]).
pub fn parse_list<T>(
    value: &Value,
    field: &FieldSpec,
    parse: ParseFn<T>,
) -> Result<Vec<T>, LessonProblem> {
    match value {
        Value::Array(items) => items.iter().map(|item| parse(item, field)).collect(),
        Value::String(text) => crate::field_check::list_items(text)
            .map(|item| parse(&Value::String(item.to_owned()), field))
            .collect(),
        other => Err(LessonProblem::WrongType {
            field: field.name.to_owned(),
            label: field.label(),
            found: crate::wire::lesson_value::json_type_name(other),
        }),
    }
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
    /// The descriptor, for a learnable with checked fields (`range`,
    /// `length`, `pattern`): what [`crate::field_check`] checks against.
    descriptor: Option<&'static LearnableDescriptor>,
    problems: Vec<LessonProblem>,
}

impl Reader {
    /// A reader for a value of the learnable `spec` describes.
    #[inline]
    pub fn new(spec: &'static DescriptorSpec) -> Reader {
        Reader {
            spec,
            descriptor: None,
            problems: Vec::new(),
        }
    }

    /// A reader for a learnable with checked fields, which it checks
    /// against `descriptor`.
    #[inline]
    pub fn checked(
        spec: &'static DescriptorSpec,
        descriptor: &'static LearnableDescriptor,
    ) -> Reader {
        Reader {
            spec,
            descriptor: Some(descriptor),
            problems: Vec::new(),
        }
    }

    /// The field's own checks on a value sent for it, when it has any.
    #[inline]
    fn check(&self, index: usize, value: &Value) -> Result<(), LessonProblem> {
        match self.descriptor {
            Some(descriptor) if self.spec.fields[index].checked => {
                crate::field_check::check(&descriptor.lesson_fields[index], value)
            }
            _ => Ok(()),
        }
    }

    /// Reads list field `index`'s value (a JSON array, or its text form:
    /// one item a line), each item with `parse`; `null` and a blank text
    /// mean absent.
    pub fn read_list<T>(
        &mut self,
        index: usize,
        value: impl Sent,
        parse: ParseFn<T>,
    ) -> Slot<Vec<T>> {
        if is_empty(value.value()) {
            return Slot::Absent;
        }
        let field = &self.spec.fields[index];
        let read = parse_list(value.value(), field, parse)
            .and_then(|items| self.check(index, value.value()).map(|()| items));
        match read {
            Ok(items) => Slot::Read(items),
            Err(problem) => {
                self.reject(problem);
                Slot::Rejected
            }
        }
    }

    /// A list field's value: read, else none, which for a required field
    /// is a `Missing` problem (a list takes no `default`).
    pub fn take_list<T>(
        &mut self,
        index: usize,
        slot: Slot<Vec<T>>,
        optional: bool,
    ) -> Option<Vec<T>> {
        match slot {
            Slot::Read(items) => Some(items),
            Slot::Absent if !optional => {
                self.missing(index);
                None
            }
            Slot::Absent | Slot::Rejected => None,
        }
    }

    /// Reads field `index`'s value; `null` and an empty (or blank) text
    /// mean absent, whatever the type: what a form sends for a field left
    /// empty (a required one is then missing, or takes its default).
    pub fn read<T>(&mut self, index: usize, value: impl Sent, parsers: Parsers<T>) -> Slot<T> {
        // `null` and a blank text are absent for every field: a required
        // one is then refused as missing, in the same words.
        if is_empty(value.value()) {
            return Slot::Absent;
        }
        let checked = self.check(index, value.value());
        match value.read(parsers, &self.spec.fields[index]) {
            Ok(read) => match checked {
                Ok(()) => Slot::Read(read),
                Err(problem) => {
                    self.reject(problem);
                    Slot::Rejected
                }
            },
            Err(problem) => {
                self.reject(problem);
                Slot::Rejected
            }
        }
    }

    /// Reads field `index`'s value, sent under `key` (its name or an
    /// alias), into `slot`: as [`Reader::read`], and a problem when the
    /// value gave the field already under another key.
    #[inline]
    pub fn read_into<T>(
        &mut self,
        slot: &mut Slot<T>,
        index: usize,
        key: &str,
        value: impl Sent,
        parsers: Parsers<T>,
    ) {
        if !matches!(slot, Slot::Absent) {
            self.twice(index, key);
            *slot = Slot::Rejected;
            return;
        }
        *slot = self.read(index, value, parsers);
    }

    #[cold]
    #[inline(never)]
    fn twice(&mut self, index: usize, key: &str) {
        let field = &self.spec.fields[index];
        self.problems.push(LessonProblem::GivenTwice {
            field: field.name.to_owned(),
            label: field.label(),
            again_as: key.to_owned(),
        });
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

    /// The value of field `index`: read, else its default (parsed as a
    /// value sent would be), else none, which for a required field is a
    /// `Missing` problem.
    pub fn take<T>(
        &mut self,
        index: usize,
        slot: Slot<T>,
        parse: ParseFn<T>,
        optional: bool,
    ) -> Option<T> {
        match slot {
            Slot::Read(value) => Some(value),
            Slot::Rejected => None,
            Slot::Absent => {
                let field = &self.spec.fields[index];
                let Some(default) = field.default else {
                    if !optional {
                        self.missing(index);
                    }
                    return None;
                };
                match parse(&Value::String(default.to_owned()), field) {
                    Ok(value) => Some(value),
                    Err(problem) => {
                        self.reject(problem);
                        None
                    }
                }
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
    /// the entry's own key when the value leaves it out (the entry is
    /// typed once), refused when the
    /// value names another entry (compared in the type's own `Display`
    /// form, so that "085" and "85" agree for a number).
    /// Inline, so that a parse without an entry (`from_lesson_value`, a
    /// stored value) costs no call; the comparison is out of line.
    #[inline]
    pub fn entry_key<T: Display>(
        &mut self,
        index: usize,
        slot: Slot<T>,
        entry: Option<&str>,
        parse: ParseFn<T>,
    ) -> Slot<T> {
        match entry {
            Some(entry) => self.against_entry(index, slot, entry, parse),
            None => slot,
        }
    }

    #[inline(never)]
    fn against_entry<T: Display>(
        &mut self,
        index: usize,
        slot: Slot<T>,
        entry: &str,
        parse: ParseFn<T>,
    ) -> Slot<T> {
        if let Slot::Rejected = slot {
            // The value's own problem is reported; the entry adds nothing.
            return slot;
        }
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

/// What a `#[learnable(migrate = path)]` function is: from a stored value
/// the type does not read to one it does, or why not.
pub type MigrateFn = fn(JsonMap<String, Value>) -> Result<JsonMap<String, Value>, String>;

/// A stored value, read by `parse`; when it does not read, `migrate` makes
/// it into one that does (the stored value itself is never changed), and
/// what `migrate` says when it cannot is the error.
pub fn read_stored<T>(
    value: &LessonValue,
    parse: impl Fn(&LessonValue) -> Result<T, LessonError>,
    migrate: MigrateFn,
) -> Result<T, LessonError> {
    match parse(value) {
        Ok(read) => Ok(read),
        Err(_) => migrated(value, parse, migrate),
    }
}

#[cold]
#[inline(never)]
fn migrated<T>(
    value: &LessonValue,
    parse: impl Fn(&LessonValue) -> Result<T, LessonError>,
    migrate: MigrateFn,
) -> Result<T, LessonError> {
    let map: JsonMap<String, Value> = value
        .entries()
        .map(|(key, value)| (key.to_owned(), value.clone()))
        .collect();
    match migrate(map) {
        Ok(migrated) => parse(&LessonValue::from(migrated)),
        Err(reason) => Err(
            LessonError::from_problems(vec![LessonProblem::NotMigrated { reason }])
                .unwrap_or_else(|| LessonError::wrong_collection("", "")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::is_blank;

    #[test]
    fn blank_is_what_trim_leaves_empty() {
        for text in [
            "",
            " ",
            "\t\n",
            "\u{b}",
            "\u{a0}",
            "\u{3000} ",
            "x",
            " x",
            "x ",
            "é",
            "\u{a0}x",
            "-",
        ] {
            assert_eq!(is_blank(text), text.trim().is_empty(), "{text:?}");
        }
    }
}
