//! The text rules of the A2A Learnables spec that are checked in two places:
//! at compile time by `#[derive(Learnable)]` and at run time by
//! `learnables`' validation of descriptors built by hand or read from another
//! agent's card, and the "did you mean" both offer. Keeping them here means there is one list of rules, not two.
//!
//! ```
//! use learnables_rules::{how_problem, HowProblem};
//!
//! assert_eq!(how_problem("TODO", "Which desk handles a declaration"),
//!            Some(HowProblem::Marker("TODO".into())));
//! assert_eq!(how_problem("A table keyed on the HS chapter", "Which desk"), None);
//! ```

mod doc;
mod placeholder;
mod suggest;

pub use doc::{DocText, unindent_doc};
pub use placeholder::{HowProblem, how_problem};
pub use suggest::closest;
