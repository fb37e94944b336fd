//! The text of a JSON number, as JSON writes it, without allocating: what
//! a field's parser reads when a lesson sends a number for a text field.

use std::fmt::{self, Write as _};

use crate::lesson_error::LessonProblem;

/// Calls `read` with the text of `number`: an integer through `itoa`, any
/// other number through its `Display`, both into a buffer on the stack.
#[inline]
pub(super) fn with_number_text<R>(
    number: &serde_json::Number,
    read: impl FnOnce(&str) -> Result<R, LessonProblem>,
) -> Result<R, LessonProblem> {
    let mut digits = itoa::Buffer::new();
    if let Some(unsigned) = number.as_u64() {
        return read(digits.format(unsigned));
    }
    if let Some(signed) = number.as_i64() {
        return read(digits.format(signed));
    }
    with_float_text(number, read)
}

/// The text of a number that is no integer, as JSON writes it.
#[cold]
#[inline(never)]
fn with_float_text<R>(
    number: &serde_json::Number,
    read: impl FnOnce(&str) -> Result<R, LessonProblem>,
) -> Result<R, LessonProblem> {
    let mut buffer = StackText::default();
    if write!(buffer, "{number}").is_ok() {
        read(buffer.as_str())
    } else {
        read(&number.to_string())
    }
}

/// A small text buffer on the stack.
#[derive(Default)]
struct StackText {
    bytes: [u8; 32],
    len: usize,
}

impl StackText {
    fn as_str(&self) -> &str {
        // Only whole `&str`s are ever copied in, so the bytes are UTF-8.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl fmt::Write for StackText {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let end = self.len + text.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(number: serde_json::Number) -> String {
        with_number_text(&number, |text| Ok(text.to_owned())).unwrap()
    }

    #[test]
    fn numbers_are_written_as_json_writes_them() {
        for number in [
            serde_json::Number::from(0u64),
            serde_json::Number::from(84u64),
            serde_json::Number::from(u64::MAX),
            serde_json::Number::from(-7i64),
            serde_json::Number::from(i64::MIN),
            serde_json::Number::from_f64(8.5).unwrap(),
            serde_json::Number::from_f64(1e300).unwrap(),
        ] {
            assert_eq!(text(number.clone()), number.to_string());
        }
    }

    #[test]
    fn stack_text_refuses_overflow() {
        let mut full = StackText::default();
        assert!(write!(full, "{}", "x".repeat(33)).is_err());
    }
}
