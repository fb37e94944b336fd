//! Markdown in doc comments (code spans, emphasis, links) is shown as the
//! plain text it formats, in labels, help and choice descriptions; an
//! explicit `label` or `help` is shown as written.

use learnables::{Choice, Learnable};

#[derive(Learnable)]
#[learnable(
    collection = "tickets",
    entry = "ticket",
    teaches = "Which desk answers a ticket",
    how = "Support staff read each ticket and pick a desk",
    decided_by = "human",
    describes = "{entry} goes to {desk}"
)]
pub struct Ticket {
    /// The `desk` that *answers*
    ///
    /// One of the desks of [the support handbook](https://example.com/handbook),
    /// as [`Desk`] lists them; **never** `general` for refunds.
    pub desk: Desk,
    /// Ignored for the label
    #[learnable(label = "Code `as written`", help = "Kept *as written*")]
    pub code: String,
    /// Limit in EUR (2 * 3 * 4 is not emphasis; neither is review_after)
    pub limit: u32,
}

#[derive(Choice, Debug, Clone, Copy)]
pub enum Desk {
    /// Everything *without* a `specialist` desk.
    General,
    /// Refunds, see [the policy][policy].
    Refunds,
}

fn main() {
    let fields = &Ticket::descriptor().lesson_fields;
    assert_eq!(fields[0].label, "The desk that answers");
    assert_eq!(
        fields[0].help.as_deref(),
        Some(
            "One of the desks of the support handbook,\nas Desk lists them; never general for \
             refunds."
        )
    );
    assert_eq!(
        fields[0].choice_descriptions,
        Some(vec![
            Some("Everything without a specialist desk.".to_owned()),
            Some("Refunds, see the policy.".to_owned()),
        ])
    );
    assert_eq!(fields[1].label, "Code `as written`");
    assert_eq!(fields[1].help.as_deref(), Some("Kept *as written*"));
    assert_eq!(
        fields[2].label,
        "Limit in EUR (2 * 3 * 4 is not emphasis; neither is review_after)"
    );
}
