//! A `bool`'s `default` is read as its lessons are: `yes`, `no`, `true` or `false`; anything else is an error at the `default`.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "tickets",
    entry = "ticket",
    teaches = "Which tickets are escalated",
    how = "Support staff escalate a ticket when a customer waits too long",
    decided_by = "human",
    describes = "Escalated: {escalated}"
)]
pub struct Ticket {
    /// Escalated
    #[learnable(default = "maybe")]
    pub escalated: bool,
}

fn main() {}
