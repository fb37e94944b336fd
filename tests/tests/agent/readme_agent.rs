//! The README's "Add it to your agent" is a whole agent that finishes the
//! task that asked: the README's code is `learnables_examples::refunds_agent`
//! word for word, and that agent, taught over HTTP, completes the task.

use learnables::Knowledge;
use learnables::a2a::{Principal, Tokens};
use learnables_examples::refunds_agent;
use learnables_tests::support::agent::{ACTIVATED, AS_ALICE, Agent};
use serde_json::json;

/// The README's agent, from the README itself.
fn readme_agent() -> String {
    let readme = include_str!("../../../README.md");
    let section = &readme[readme
        .find("## Add it to your agent")
        .expect("the README has its section")..];
    let code = &section[section
        .find("```rust,no_run\n")
        .expect("the section holds the agent")
        + "```rust,no_run\n".len()..];
    code[..code.find("\n```").expect("the agent's code ends") + 1].to_owned()
}

#[test]
fn the_readmes_agent_is_the_example_word_for_word() {
    let module = include_str!("../../../examples/src/refunds_agent.rs");
    let without_module_doc: String = module
        .lines()
        .filter(|line| !line.starts_with("//!"))
        .flat_map(|line| [line, "\n"])
        .collect();
    assert_eq!(
        readme_agent(),
        without_module_doc,
        "the README's agent and examples/src/refunds_agent.rs differ: copy the module's code (without its `//!` lines) into the README"
    );
}

#[test]
fn the_readmes_agent_finishes_the_task_that_asked_once_taught() {
    let agent = Agent::start_router(|_| {
        let teachers = Tokens::new().with("alice-token", Principal::human("alice@example.com"));
        refunds_agent::app(Knowledge::in_memory(), teachers).expect("the agent starts")
    });
    let message = json!({
        "messageId": "m-1",
        "role": "ROLE_USER",
        "parts": [{"text": "Who approves refunds at north?"}]
    });
    let asked = agent.call_with("SendMessage", json!({ "message": message }), &[ACTIVATED]);
    let task = &asked.result()["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let block = &task["status"]["message"]["metadata"][learnables::EXTENSION_URI]["teach"];
    assert_eq!(
        block["entries"],
        json!(["north"]),
        "the question names the shop: {task}"
    );

    let taught = agent.call(
        "rsaxb.learnables.Teach",
        json!({
            "collection": "refund_approvers",
            "entry": "north",
            "value": {"approver": "Dana"},
            "taughtBy": "alice@example.com"
        }),
    );
    assert_eq!(taught.result()["learned"], true, "{}", taught.result());

    let read = agent.call_with(
        "GetTask",
        json!({ "id": task["id"] }),
        &[ACTIVATED, AS_ALICE],
    );
    let status = &read.result()["status"];
    assert_eq!(
        status["state"], "TASK_STATE_COMPLETED",
        "the task that asked finishes: {status}"
    );
    assert_eq!(
        status["message"]["parts"][0]["text"], "Dana approves it.",
        "the resumed turn answers the request the question was about"
    );
    agent.stop();
}
