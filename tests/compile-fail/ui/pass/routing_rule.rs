//! The annotated example of the `learnables` crate documentation.

use learnables::{Choice, Learnable, Lesson, LessonValue};

#[derive(Learnable, Debug, Clone, PartialEq)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter; anything unmatched goes to the general desk",
    decided_by = "rules",
    skills("route-declaration"),
    describes = "Chapter {chapter} declarations now go to the {desk} desk"
)]
pub struct RoutingRule {
    /// HS chapter
    ///
    /// Two-digit chapter of the Harmonized System.
    pub chapter: u8,
    /// Desk
    #[learnable(default = "general")]
    pub desk: Desk,
    /// Note for the broker
    pub note: Option<String>,
}

#[derive(Choice, Debug, Clone, Copy, PartialEq)]
pub enum Desk {
    General,
    DangerousGoods,
    #[choice(rename = "cold chain")]
    Perishables,
}

fn main() {
    let descriptor = RoutingRule::descriptor();
    assert_eq!(descriptor.collection, "routing_rules");
    let labels: Vec<&str> = descriptor
        .lesson_fields
        .iter()
        .map(|field| field.label.as_str())
        .collect();
    assert_eq!(labels, ["HS chapter", "Desk", "Note for the broker"]);
    assert_eq!(
        descriptor.lesson_fields[0].help.as_deref(),
        Some("Two-digit chapter of the Harmonized System.")
    );
    assert_eq!(
        descriptor.lesson_fields[1].choices.as_deref(),
        Some(
            &[
                "general".to_owned(),
                "dangerous-goods".to_owned(),
                "cold chain".to_owned()
            ][..]
        )
    );

    let taught = RoutingRule {
        chapter: 85,
        desk: Desk::Perishables,
        note: None,
    };
    let value: LessonValue = taught.to_lesson_value();
    let lesson = Lesson::new("routing_rules", "85", value, "alice@example.com");
    let rule: RoutingRule = lesson.parse().unwrap();
    assert_eq!(rule, taught);
    assert_eq!(
        rule.describes("85"),
        "Chapter 85 declarations now go to the cold chain desk"
    );
    assert_eq!(
        "dangerous-goods".parse::<Desk>().unwrap(),
        Desk::DangerousGoods
    );
    assert_eq!(Desk::Perishables.to_string(), "cold chain");
}
