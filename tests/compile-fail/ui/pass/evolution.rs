//! Aliases and a migration: stored values of earlier builds read.

use learnables::{Choice, Learnable, LessonValue};
use serde_json::{Map, Value, json};

#[derive(Choice, Debug, PartialEq)]
pub enum Desk {
    General,
    #[choice(alias = "cold chain", alias = "perishables")]
    ColdChain,
}

fn from_v1(mut old: Map<String, Value>) -> Result<Map<String, Value>, String> {
    let desk = old.remove("office").ok_or("no office")?;
    old.insert("desk".into(), desk);
    Ok(old)
}

#[derive(Learnable, Debug)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    describes = "Chapter {chapter} goes to {desk}",
    migrate = "from_v1"
)]
pub struct RoutingRule {
    /// HS chapter
    #[learnable(alias = "code", alias = "hs")]
    pub chapter: u8,
    /// Desk
    pub desk: Desk,
}

fn main() {
    let stored = |value: Value| LessonValue::try_from(value).unwrap();
    let read = RoutingRule::from_stored_value(&stored(json!({"hs": "85", "desk": "perishables"})));
    assert_eq!(read.unwrap().desk, Desk::ColdChain);
    let migrated = RoutingRule::from_stored_value(&stored(json!({"code": "12", "office": "general"})));
    assert_eq!(migrated.unwrap().chapter, 12);
}
