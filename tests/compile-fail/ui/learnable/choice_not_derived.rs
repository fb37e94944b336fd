//! An enum used as a field without `#[derive(Choice)]`: one error, at the field's type, naming the enum and the fix, pointing at the enum.

use learnables::Learnable;

#[derive(Learnable)]
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
    #[learnable(default = "normal")]
    pub priority: Priority,
    /// Previous priority
    pub previous: Option<Priority>,
}

pub enum Priority {
    Low,
    Normal,
    High,
}

fn main() {}
