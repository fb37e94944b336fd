//! Show-back after a redeploy that remapped a choice with `#[choice(alias)]`:
//! the sentence is phrased from the value as the type reads it now, so it
//! agrees with the fields shown beside it.

use axum::Router;
use learnables::a2a::{LearnablesService, Principal, Tokens};
use learnables::{Declaration, Knowledge, Lesson, LessonValue, TEACH_METHOD};
use learnables_tests::support::agent::Agent;
use serde_json::json;

mod before {
    use learnables::{Choice, Learnable};

    /// A ticket's priority, as the first build knew it.
    #[derive(Learnable, Clone, Debug)]
    #[learnable(
        collection = "tickets",
        entry = "ticket",
        teaches = "How urgent a ticket is",
        how = "A person sets it when the ticket arrives",
        decided_by = "rules",
        describes = "{priority} priority"
    )]
    pub struct Ticket {
        /// Priority
        pub priority: Priority,
    }

    #[derive(Choice, Clone, Copy, Debug)]
    pub enum Priority {
        Urgent,
        Normal,
    }
}

mod after {
    use learnables::{Choice, Learnable};

    /// The next build: what was urgent is now normal.
    #[derive(Learnable, Clone, Debug)]
    #[learnable(
        collection = "tickets",
        entry = "ticket",
        teaches = "How urgent a ticket is",
        how = "A person sets it when the ticket arrives",
        decided_by = "rules",
        describes = "{priority} priority"
    )]
    pub struct Ticket {
        /// Priority
        pub priority: Priority,
    }

    #[derive(Choice, Clone, Copy, Debug)]
    pub enum Priority {
        #[choice(alias = "urgent")]
        Normal,
        Low,
    }
}

#[test]
fn show_backs_sentence_and_fields_agree_after_a_choice_alias() {
    let dir = tempfile::tempdir().expect("a data directory");
    let knowledge = Knowledge::open(dir.path()).expect("the store opens");
    knowledge.register::<before::Ticket>().unwrap();
    let value = LessonValue::try_from(json!({"priority": "urgent"})).unwrap();
    let taught = knowledge.teach(&Lesson::new("tickets", "t-1", value, "alice@example.com"));
    assert_eq!(taught.unwrap().describes, "urgent priority");
    drop(knowledge);

    let knowledge = Knowledge::open(dir.path()).expect("the store opens again");
    let agent = Agent::start_router(move |_| {
        let declaration = Declaration::new()
            .learnable::<after::Ticket>()
            .teach_method(TEACH_METHOD);
        let teachers = Tokens::new().with("alice-token", Principal::human("alice@example.com"));
        let service = LearnablesService::try_new(knowledge, declaration, teachers).unwrap();
        let card = json!({"name": "Tickets", "capabilities": {}, "skills": []});
        service.router(card, Router::new()).unwrap()
    });
    let shown = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "tickets", "entry": "t-1"}),
    );
    let shown = shown.result();
    let priority = shown["lessonFields"]
        .as_array()
        .and_then(|fields| fields.iter().find(|field| field["name"] == "priority"))
        .expect("the priority field is shown");
    assert_eq!(priority["default"], "normal", "{shown}");
    assert_eq!(
        shown["describes"], "normal priority",
        "the sentence says what the fields say: {shown}"
    );
    agent.stop();
}
