//! The learnables a [`Knowledge`](crate::Knowledge) can be taught, by
//! collection ([`Registry`]), and a lesson's value as the knowledge keeps
//! it once its learnable absorbed it ([`Absorbed`]).

use std::collections::HashMap;

use crate::LessonValue;
use crate::core_shared::{Registration, Taught};
use crate::version::value_json;

/// Collection name to registration.
pub(crate) type Registry = HashMap<String, Registration>;

/// A lesson's value as the learnable absorbed it.
pub(crate) struct Absorbed {
    /// The value as the learnable writes it back: "84" and 84 alike.
    pub(crate) value: LessonValue,
    /// `value` as compact JSON ([`value_json`]): written by the teacher,
    /// before the writer lock, to be compared with the entry's and kept.
    pub(crate) json: Option<String>,
    pub(crate) describes: String,
}

impl From<Taught> for Absorbed {
    fn from(taught: Taught) -> Absorbed {
        Absorbed {
            json: value_json(&taught.value),
            value: taught.value,
            describes: taught.describes,
        }
    }
}
