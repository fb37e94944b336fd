//! `entry_key` and `validate` together: a value that agrees with its entry
//! accepted, a contradiction refused, a rule across fields reported as a
//! field error.

use learnables::{FieldErrors, Learnable, Lesson};

#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "weights",
    entry = "desk",
    teaches = "Which weights a desk takes",
    how = "A range of weights per desk, kept by the operations team",
    decided_by = "rules",
    describes = "{desk}: {min} to {max} kg",
    validate = ordered
)]
pub struct Range {
    /// Desk
    #[learnable(entry_key)]
    pub desk: String,
    /// Lightest
    pub min: u32,
    /// Heaviest
    pub max: u32,
}

fn ordered(range: &Range) -> Result<(), FieldErrors> {
    if range.max < range.min {
        return Err(FieldErrors::new().field(Range::FIELDS.max, "is less than the lightest"));
    }
    Ok(())
}

fn main() {
    let bulk = Range { desk: "bulk".into(), min: 1, max: 5 };
    let lesson = Lesson::new("weights", "bulk", bulk.to_lesson_value(), "alice@example.com");
    assert_eq!(lesson.parse::<Range>().unwrap(), bulk);
    let contradicting = Lesson::new("weights", "general", bulk.to_lesson_value(), "alice@example.com");
    assert_eq!(contradicting.parse::<Range>().unwrap_err().field(), Some("desk"));
    let reversed = Range { desk: "bulk".into(), min: 9, max: 5 }.to_lesson_value();
    assert_eq!(Range::from_lesson_entry("bulk", &reversed).unwrap_err().field(), Some("max"));
}
