use learnables::{Choice, Learnable};

/// Which desk handles declarations of one HS chapter.
///
/// ```
/// use learnables::{Learnable, LessonValue};
/// use learnables_examples::{Desk, RoutingRule};
/// let value = LessonValue::try_from(serde_json::json!({"chapter": "85", "desk": "cold chain"}))
///     .unwrap();
/// let rule = RoutingRule::from_lesson_value(&value).unwrap();
/// assert_eq!(rule.desk, Desk::Perishables);
/// ```
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

/// The customs desks a declaration can go to.
#[derive(Choice, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Desk {
    /// Everything without a specialist desk.
    General,
    /// Hazardous materials.
    DangerousGoods,
    /// Goods that must stay cold.
    #[choice(rename = "cold chain")]
    Perishables,
}
