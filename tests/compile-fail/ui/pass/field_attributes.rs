//! `kind`, `label`, `help`, `rename` and a text `default` on fields, and an
//! optional field in `describes`.

use learnables::Learnable;

#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "holds",
    entry = "hold",
    teaches = "Until when a shipment is held",
    how = "The broker sets a date by hand",
    decided_by = "human",
    describes = "Held until {until}[{note}]"
)]
pub struct Hold {
    /// Ignored for the label
    #[learnable(kind = "date", label = "Held until", help = "A date, as YYYY-MM-DD")]
    pub until: String,
    /// Reason
    ///
    /// Why the shipment is held.
    #[learnable(rename = "reason-code", default = "7")]
    pub reason_code: u16,
    /// Note
    pub note: Option<Note>,
}

/// A note, displayed after a semicolon (which parsing takes off again).
#[derive(Debug, PartialEq)]
pub struct Note(String);

impl std::str::FromStr for Note {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> Result<Note, Self::Err> {
        Ok(Note(text.trim_start_matches("; ").to_owned()))
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "; {}", self.0)
    }
}

fn main() {
    let fields = &Hold::descriptor().lesson_fields;
    assert_eq!(fields[0].kind.as_str(), "date");
    assert_eq!(fields[0].label, "Held until");
    assert_eq!(fields[0].help.as_deref(), Some("A date, as YYYY-MM-DD"));
    assert_eq!(fields[1].name, "reason-code");
    assert_eq!(fields[1].kind.as_str(), "text");
    assert_eq!(fields[1].default.as_deref(), Some("7"));
    assert_eq!(fields[1].help.as_deref(), Some("Why the shipment is held."));
    assert!(Hold::descriptor().validate().is_ok());
    let mut hold = Hold {
        until: "2026-05-01".to_owned(),
        reason_code: 7,
        note: None,
    };
    assert_eq!(hold.describes("h1"), "Held until 2026-05-01");
    hold.note = Some(Note("ask the broker".to_owned()));
    assert_eq!(
        hold.describes("h1"),
        "Held until 2026-05-01; ask the broker"
    );
    assert_eq!(
        Hold::from_lesson_value(&hold.to_lesson_value()).unwrap(),
        hold
    );
}
