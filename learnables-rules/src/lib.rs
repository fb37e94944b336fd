//! The rules of the A2A Learnables spec, and ours, that are checked in two
//! places: at compile time by `#[derive(Learnable)]` and at run time by
//! `learnables`' validation of descriptors built by hand or read from another
//! agent's card (and so by `learnables check`), and the "did you mean" both
//! offer. Keeping them here means there is one list of rules, not two:
//! [`Rule`] lists them, with where each is checked.
//!
//! ```
//! use learnables_rules::{how_problem, HowProblem};
//!
//! assert_eq!(how_problem("TODO", "Which desk handles a declaration"),
//!            Some(HowProblem::Marker("TODO".into())));
//! assert_eq!(how_problem("A table keyed on the HS chapter", "Which desk"), None);
//! assert_eq!(how_problem("按照HS章节查表决定窗口", "Which desk"), None);
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_debug_implementations)]

mod doc;
mod pattern;
mod placeholder;
mod rules;
mod suggest;
mod words;

pub use doc::{DocText, unindent_doc};
pub use pattern::whole_match;
pub use placeholder::{HowProblem, how_problem, teaches_problem};
pub use rules::{
    CORE_A2A_METHODS, Checked, ChoicesProblem, Rule, SkillsProblem, TeachMethodProblem,
    choices_problem, default_problem, is_blank, skills_problem, teach_method_problem,
};
pub use suggest::closest;
pub use words::word_count;

/// The crate README's example, compiled and run as a doc-test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
