//! A suggestion the learnable would refuse never reaches a teacher: checked
//! by value on every path a teach block is built or attached by.

use a2a::{Message, Part, Role};
use a2a_server::ExecutorContext;
use learnables::a2a::{Activation, MessageError, SuggestionError};
use learnables::{EXTENSION_URI, Learnable, TeachBlock};
use learnables_examples::{ClearanceLimit, Desk, RoutingRule};
use serde_json::json;

fn urgent_desk() -> TeachBlock {
    let mut block = TeachBlock::new("routing_rules", ["85"]);
    block.suggested = Some(serde_json::from_value(json!({"desk": "urgent"})).unwrap());
    block
}

fn question() -> Message {
    Message::new(Role::Agent, vec![Part::text("Which desk?")])
}

fn activated() -> ExecutorContext {
    ExecutorContext {
        message: None,
        task_id: "t".into(),
        stored_task: None,
        context_id: "c".into(),
        metadata: None,
        user: None,
        tenant: None,
        service_params: [("a2a-extensions".to_owned(), vec![EXTENSION_URI.to_owned()])]
            .into_iter()
            .collect(),
    }
}

#[test]
fn a_value_that_is_no_choice_is_refused_by_validate_and_attach_checked() {
    let lines: Vec<String> = urgent_desk()
        .validate(RoutingRule::descriptor())
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            "suggested.desk: Desk: \"urgent\" is not one of the choices (general, dangerous-goods, \
          cold chain)"
        ]
    );
    let mut reply = question();
    let refused = urgent_desk()
        .attach_checked(
            RoutingRule::descriptor(),
            &Activation::from_header_values([EXTENSION_URI]),
            &mut reply,
        )
        .unwrap_err();
    assert!(matches!(refused, MessageError::Suggestion(_)), "{refused}");
    assert_eq!(TeachBlock::from_a2a_message(&reply).unwrap(), None);
}

#[test]
fn the_untyped_builder_refuses_the_value_and_keeps_what_it_had() {
    let builder = TeachBlock::builder_for(RoutingRule::descriptor(), ["85"]);
    let refused = builder.clone().suggest("desk", "urgent").unwrap_err();
    assert!(matches!(refused, SuggestionError::Refused(_)));
    assert_eq!(
        refused.to_string(),
        "the suggestion for `routing_rules` is refused: Desk: \"urgent\" is not one of the \
         choices (general, dangerous-goods, cold chain)"
    );
    let other_chapter = builder.clone().suggest("chapter", "12").unwrap_err();
    assert!(
        other_chapter
            .to_string()
            .contains("the lesson is about \"85\"")
    );
    let block = builder.suggest("desk", "cold chain").unwrap().build();
    assert_eq!(block.suggested.unwrap()["desk"], "cold chain");
}

#[test]
fn the_typed_path_checks_through_the_parser_rules_across_fields_too() {
    // A limit above EUR 100,000 needs a review date: the learnable's own
    // rule, which only its parser knows.
    let limit = ClearanceLimit {
        amount_eur: 250_000,
        review_after: None,
    };
    let block = TeachBlock::builder::<ClearanceLimit>(["broker-17"]).suggest_all(&limit);
    let refused = block.check_suggestion().unwrap_err();
    assert_eq!(refused.problems()[0].field(), Some("review_after"));
    let mut reply = question();
    let attached = block.attach_if_activated(&activated(), &mut reply);
    assert!(matches!(attached, Err(MessageError::Suggestion(_))));
    assert_eq!(TeachBlock::from_a2a_message(&reply).unwrap(), None);

    // Another entry's key, through the typed builder.
    let other = TeachBlock::builder::<RoutingRule>(["85"])
        .suggest(RoutingRule::FIELDS.chapter, "12".parse().unwrap())
        .suggest(RoutingRule::FIELDS.desk, Desk::General);
    assert!(other.attach_if_activated(&activated(), &mut reply).is_err());

    let fine = TeachBlock::builder::<RoutingRule>(["85"])
        .suggest(RoutingRule::FIELDS.desk, Desk::Perishables);
    assert_eq!(fine.attach_if_activated(&activated(), &mut reply), Ok(true));
}
