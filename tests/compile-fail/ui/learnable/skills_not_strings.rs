//! `skills` takes a list of strings.

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    skills = "route-declaration",
    describes = "Chapter {chapter}"
)]
pub struct RoutingRule {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "desk_rules",
    entry = "desk rule",
    teaches = "Which desk handles a declaration",
    how = "A table keyed on the HS chapter",
    decided_by = "rules",
    skills(route_declaration, 3),
    describes = "Desk {desk}"
)]
pub struct DeskRule {
    /// Desk
    pub desk: String,
}

fn main() {}
