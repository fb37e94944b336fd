//! The text of a JSON number, as JSON writes it, without allocating: what
//! a field's parser reads when a lesson sends a number for a text field.

use std::fmt::{self, Write as _};

/// Where the text of a JSON number is written: integers through `itoa`,
/// other numbers through their `Display`, on the stack unless (never for a
/// JSON number) the text is longer than the buffer.
#[derive(Default)]
pub(super) struct NumberText {
    integer: itoa::Buffer,
    float: StackText,
    long: String,
}

impl NumberText {
    /// The text of `number`, as JSON writes it.
    #[inline]
    pub(super) fn write(&mut self, number: &serde_json::Number) -> &str {
        if let Some(unsigned) = number.as_u64() {
            return self.integer.format(unsigned);
        }
        if let Some(signed) = number.as_i64() {
            return self.integer.format(signed);
        }
        self.write_float(number)
    }

    #[cold]
    #[inline(never)]
    fn write_float(&mut self, number: &serde_json::Number) -> &str {
        if write!(self.float, "{number}").is_ok() {
            return self.float.as_str();
        }
        self.long = number.to_string();
        &self.long
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
        NumberText::default().write(&number).to_owned()
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
