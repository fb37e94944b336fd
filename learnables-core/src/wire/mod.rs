//! The extension's JSON shapes, exactly as `learnables-v1.json` defines them:
//! camelCase keys, absent optional keys left out. Nothing here but data and
//! its serde form; validation lives in [`crate::validation`].

mod declaration_params;
mod field_kind;
mod learnable_descriptor;
mod lesson;
mod lesson_field;
mod lesson_result;
pub(crate) mod lesson_value;
mod review;

pub use declaration_params::DeclarationParams;
pub use field_kind::{FieldKind, Rendering};
pub use learnable_descriptor::LearnableDescriptor;
pub use lesson::Lesson;
pub use lesson_field::{FieldBound, LIST_SEPARATOR, LessonField};
pub use lesson_result::LessonResult;
pub use lesson_value::{LessonValue, NotAnObject};
pub use review::{Decision, Review, ReviewRule};
