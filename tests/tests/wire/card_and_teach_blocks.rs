//! The declaration on agent cards, and teach blocks checked against the
//! learnables they are for.

use learnables::a2a::{CardDeclaration, CardError};
use learnables::{Declaration, EXTENSION_URI, Learnable, TeachBlock};
use learnables_examples::customs_agent::agent_card;
use learnables_examples::{Desk, RoutingRule, customs_declaration};
use serde_json::json;

#[test]
fn the_declaration_joins_a_card_and_replaces_an_earlier_one() {
    let mut card = serde_json::to_value(agent_card("http://127.0.0.1:1/")).unwrap();
    card["capabilities"]["extensions"] = json!([
        {"uri": "https://example.com/other/v1", "required": false},
        {"uri": EXTENSION_URI, "params": {"learnables": []}}
    ]);
    customs_declaration().add_to_card(&mut card).unwrap();
    let extensions = card["capabilities"]["extensions"].as_array().unwrap();
    assert_eq!(extensions.len(), 2);
    assert_eq!(extensions[0]["uri"], "https://example.com/other/v1");
    let declared = CardDeclaration::read(&card).unwrap().unwrap();
    assert_eq!(declared.index, 1);
    assert_eq!(declared.params, *customs_declaration().params());
}

#[test]
fn a_skill_the_card_does_not_have_is_refused() {
    let mut card = serde_json::to_value(agent_card("http://127.0.0.1:1/")).unwrap();
    card["skills"] =
        json!([{"id": "clear-declaration", "name": "n", "description": "d", "tags": []}]);
    let error = customs_declaration().add_to_card(&mut card).unwrap_err();
    let CardError::Invalid(violations) = &error else {
        panic!("{error}")
    };
    let lines: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "learnables[0].skills[0]: the card has no skill `route-declaration`; its skills are: \
             clear-declaration",
            "learnables[1].skills[1]: the card has no skill `route-declaration`; its skills are: \
             clear-declaration",
        ]
    );
    assert!(
        card["capabilities"].get("extensions").is_none(),
        "the card is left as it was"
    );
}

#[test]
fn a_card_of_the_wrong_shape_is_refused() {
    for (mut card, what) in [
        (json!([]), "body"),
        (json!({"capabilities": []}), "capabilities"),
        (
            json!({"capabilities": {"extensions": {}}}),
            "capabilities.extensions",
        ),
    ] {
        let error = Declaration::new().add_to_card(&mut card).unwrap_err();
        assert!(
            matches!(error, CardError::Shape(shape, _) if shape == what),
            "{error}"
        );
    }
}

#[test]
fn a_card_declaring_learnables_wrongly_is_reported_with_paths() {
    // `required: true` is the agent's choice, not a violation.
    let required = json!({"capabilities": {"extensions": [
        {"uri": EXTENSION_URI, "required": true, "params": {"learnables": []}}
    ]}});
    let read = CardDeclaration::read(&required).unwrap().unwrap();
    assert!(read.required);
    // A teach method that takes over a core A2A method is a violation.
    let core = json!({"capabilities": {"extensions": [
        {"uri": EXTENSION_URI, "params": {"learnables": [], "teachMethod": "SendMessage"}}
    ]}});
    assert!(
        CardDeclaration::read(&core)
            .unwrap_err()
            .to_string()
            .starts_with("teachMethod: `teachMethod` is the core A2A method `SendMessage`")
    );
    let shapeless = json!({"capabilities": {"extensions": [
        {"uri": EXTENSION_URI, "params": {"learnables": [{"collection": 1}]}}
    ]}});
    assert!(
        CardDeclaration::read(&shapeless)
            .unwrap_err()
            .to_string()
            .starts_with("params: the declaration's params do not read as the spec's shape")
    );
    assert_eq!(CardDeclaration::read(&json!({"name": "x"})), Ok(None));
}

#[test]
fn typed_blocks_are_valid_for_their_learnable() {
    let block = TeachBlock::builder::<RoutingRule>(["85", "86"])
        .suggest(RoutingRule::FIELDS.desk, Desk::Perishables)
        .suggest(RoutingRule::FIELDS.note, "Check the batteries".to_owned())
        .suggestion_label("From chapter 84")
        .with_lesson_fields()
        .build();
    block.validate(RoutingRule::descriptor()).unwrap();
    assert_eq!(
        block.suggested.as_ref().unwrap(),
        json!({"desk": "cold chain", "note": "Check the batteries"})
            .as_object()
            .unwrap()
    );
    let all = TeachBlock::builder::<RoutingRule>(["85"])
        .suggest_all(&RoutingRule {
            chapter: learnables_examples::Chapter::try_from(85).unwrap(),
            desk: Desk::General,
            note: None,
        })
        .build();
    assert_eq!(
        all.suggested.unwrap(),
        *json!({"chapter": "85", "desk": "general"})
            .as_object()
            .unwrap()
    );
}

#[test]
fn untyped_blocks_refuse_unknown_keys_and_received_blocks_are_checked() {
    let descriptor = RoutingRule::descriptor();
    let refused = TeachBlock::builder_for(descriptor, ["85"])
        .suggest("dsk", "general")
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "`dsk` is not a lesson field of `routing_rules` (did you mean `desk`?); its fields are: \
         chapter, desk, note"
    );
    let received: TeachBlock = serde_json::from_value(json!({
        "collection": "clearance_limits",
        "entries": ["85"],
        "suggested": {"desk": "general", "owner": "x"},
        "lessonFields": [{"name": "desk", "label": "Desk", "kind": "text"},
                         {"name": "secret", "label": "", "kind": "text"}]
    }))
    .unwrap();
    let lines: Vec<String> = received
        .validate(descriptor)
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            "collection: the block is for `clearance_limits`, but the learnable is `routing_rules`",
            "lessonFields[1].label: the label is empty; it needs at least one character",
            "lessonFields[1].name: `secret` is not a lesson field of `routing_rules`",
            "suggested.owner: `owner` is not one of the lesson fields: desk, secret",
        ]
    );
}

#[test]
fn reading_a_card_checks_its_skills_too() {
    let mut card = serde_json::to_value(agent_card("http://127.0.0.1:1/")).unwrap();
    customs_declaration().add_to_card(&mut card).unwrap();
    card["skills"] =
        json!([{"id": "route-declaration", "name": "n", "description": "d", "tags": []}]);
    let lines: Vec<String> = CardDeclaration::read(&card)
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            "learnables[1].skills[0]: the card has no skill `clear-declaration`; its skills are: \
          route-declaration"
        ]
    );
}
