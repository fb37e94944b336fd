//! A field's doc comment may come from a file: `#[doc = include_str!("...")]`.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    #[doc = include_str!("doc_include_str.md")]
    pub chapter: u8,
    /// Desk
    ///
    #[doc = include_str!("doc_include_str.md")]
    pub desk: String,
}

fn main() {
    let fields = &RoutingRule::descriptor().lesson_fields;
    assert_eq!(fields[0].label, "Chapter of the tariff");
    assert_eq!(
        fields[0].help.as_deref(),
        Some("The two-digit chapter of the Harmonized System, as printed on the declaration.")
    );
    assert_eq!(fields[1].label, "Desk");
    let rule = RoutingRule {
        chapter: 84,
        desk: "general".to_owned(),
    };
    assert_eq!(rule.describes("84"), "Chapter 84");
}
