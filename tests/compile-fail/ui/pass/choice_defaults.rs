//! A choice field's `default` is read as its lessons are: a `bool` takes
//! `yes`/`no` and `true`/`false`, an enum its choices and their aliases;
//! the descriptor shows the choice each reads as. A standard type's default
//! is read as a lesson's value for it (spaces trimmed).

use learnables::{Choice, Learnable, LessonValue};

#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "tickets",
    entry = "ticket",
    teaches = "How urgent a ticket is",
    how = "Support staff read each ticket and set a priority",
    decided_by = "human",
    describes = "Priority {priority}"
)]
pub struct Ticket {
    /// Priority
    #[learnable(default = "middle")]
    pub priority: Priority,
    /// Escalated
    #[learnable(default = "true")]
    pub escalated: bool,
    /// Answered
    #[learnable(default = "false")]
    pub answered: bool,
    /// Customer waits
    #[learnable(default = "yes")]
    pub waits: bool,
    /// Paid support
    #[learnable(default = "no")]
    pub paid: Option<bool>,
    /// Hours to answer
    #[learnable(default = " 24 ")]
    pub hours: u16,
}

#[derive(Choice, Debug, Clone, Copy, PartialEq)]
pub enum Priority {
    Low,
    #[choice(alias = "middle")]
    Normal,
    High,
}

fn main() {
    let defaults: Vec<_> = Ticket::descriptor()
        .lesson_fields
        .iter()
        .map(|field| field.default.as_deref())
        .collect();
    assert_eq!(
        defaults,
        [Some("normal"), Some("yes"), Some("no"), Some("yes"), Some("no"), Some(" 24 ")]
    );
    let empty = LessonValue::try_from(serde_json::json!({})).unwrap();
    assert_eq!(
        Ticket::from_lesson_value(&empty).unwrap(),
        Ticket {
            priority: Priority::Normal,
            escalated: true,
            answered: false,
            waits: true,
            paid: Some(false),
            hours: 24,
        }
    );
}
