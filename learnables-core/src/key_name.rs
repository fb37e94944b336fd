//! [`KeyName`]: a JSON object member's name read without a copy, for the
//! readers that walk objects by hand (the JSON-RPC body, a stored record's
//! value).

use std::borrow::Cow;

use serde::de::{DeserializeSeed, Deserializer, Visitor};

/// A JSON object member's name, borrowed from the text it is read from
/// unless it has escapes.
#[derive(Debug, Clone, Copy)]
pub struct KeyName;

impl<'de> DeserializeSeed<'de> for KeyName {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Cow<'de, str>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyName {
    type Value = Cow<'de, str>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a member name")
    }

    fn visit_borrowed_str<E>(self, name: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(name))
    }

    fn visit_str<E>(self, name: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(name.to_owned()))
    }

    fn visit_string<E>(self, name: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(name))
    }
}
