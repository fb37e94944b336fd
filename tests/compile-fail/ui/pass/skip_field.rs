//! A skipped field is no lesson field: it takes its `Default` when a lesson
//! is parsed, and needs no label.

use learnables::Learnable;

#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
    #[learnable(skip)]
    pub hits: Vec<u64>,
}

fn main() {
    let fields = &RoutingRule::descriptor().lesson_fields;
    assert_eq!(fields.len(), 1);
    assert_eq!(fields[0].name, "chapter");
    let rule = RoutingRule {
        chapter: 84,
        hits: vec![1, 2],
    };
    let parsed = RoutingRule::from_lesson_value(&rule.to_lesson_value()).unwrap();
    assert_eq!(
        parsed,
        RoutingRule {
            chapter: 84,
            hits: Vec::new()
        }
    );
}
