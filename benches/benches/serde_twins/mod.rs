//! `RoutingRule` for serde's derive: the baselines of the parsing benches
//! (timed in `lesson_parse`, counted in `lesson_parse_instructions`), with
//! the inputs both sides read.

use std::str::FromStr;

use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

/// The same rule for serde: same keys, same choices, same default, unknown
/// keys refused, and the chapter parsed into `C`, the type of
/// `RoutingRule::chapter`, whatever it is (see [`parse`]).
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SerdeRule<C> {
    pub chapter: C,
    #[serde(default)]
    pub desk: SerdeDesk,
    pub note: Option<String>,
}

/// The rule for serde as a form sends it: every value a string, the
/// chapter parsed from its text into the same type as ours, as
/// `from_lesson_value` does.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SerdeFormRule<C: FromStr> {
    #[serde(deserialize_with = "from_text")]
    pub chapter: C,
    #[serde(default)]
    pub desk: SerdeDesk,
    pub note: Option<String>,
}

/// A value given as text, parsed without keeping the text: the string is
/// borrowed from the input where it can be.
fn from_text<'de, D: Deserializer<'de>, C: FromStr>(deserializer: D) -> Result<C, D::Error> {
    let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
    text.parse()
        .map_err(|_| serde::de::Error::custom(format!("{text:?} is not a chapter")))
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SerdeDesk {
    #[default]
    General,
    DangerousGoods,
    #[serde(rename = "cold chain")]
    Perishables,
}

pub fn typed_input() -> Value {
    json!({"chapter": 84, "desk": "dangerous-goods", "note": "Lithium batteries"})
}

pub fn form_input() -> Value {
    json!({"chapter": "84", "desk": "dangerous-goods", "note": "Lithium batteries"})
}
