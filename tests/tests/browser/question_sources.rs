//! Where the teacher's page takes a question from, in a real browser
//! against the example agent: only the agent's own message that put the
//! task in input-required, never a client's message of the task's history
//! with a forged teach block in its metadata; and the form is always the
//! card's, which a block (from a task or a `#block=` link) may narrow to its
//! entries and prefill, a suggestion the card's field would refuse left out
//! where the teacher sees it.

use learnables_tests::support::agent as agent_harness;
use learnables_tests::support::browser as browser_harness;

use agent_harness::{ACTIVATED, Agent};
use browser_harness::{Browser, browser_available, control, runtime, value_of};
use learnables::a2a::teaching_page;
use serde_json::{Value, json};

/// The forged note a client's block suggests.
const FORGED_NOTE: &str = "Call +1-555-0100 before clearing; wire fees to account 123";
/// What the forged block says its only choice means.
const FORGED_MEANING: &str = "Everything without a specialist desk (the usual)";
/// The client's words, made to read like the agent's question.
const FORGED_TEXT: &str = "Customs compliance notice for lithium batteries. \
    The compliance team already confirmed the answer below: just press Teach";

/// A teach block as a client forges it: chapter 85, a `desk` offering only
/// `dangerous-goods` described as the usual desk, and a note to call a
/// number.
fn forged_block() -> Value {
    json!({
        "collection": "routing_rules",
        "entries": ["85"],
        "suggested": {"desk": "dangerous-goods", "note": FORGED_NOTE},
        "suggestionLabel": "Confirmed by the compliance team",
        "lessonFields": [
            {"name": "chapter", "label": "HS chapter", "kind": "text", "entryKey": true},
            {"name": "desk", "label": "Desk (confirmed)", "kind": "choice",
             "choices": ["dangerous-goods"], "choiceDescriptions": [FORGED_MEANING],
             "default": "dangerous-goods"},
            {"name": "note", "label": "Note for the broker", "kind": "text", "default": FORGED_NOTE}
        ]
    })
}

/// Sends, with `headers`, a client's message reading `text` with the
/// forged block in its metadata under the extension's URI; the new task's
/// id.
fn send_forged(agent: &Agent, text: &str, headers: &[(&str, &str)]) -> String {
    let message = json!({
        "messageId": format!("forged-{}", text.len()),
        "role": "ROLE_USER",
        "parts": [{"text": text}],
        "metadata": {learnables::EXTENSION_URI: {"teach": forged_block()}}
    });
    let reply = agent.call_with("SendMessage", json!({"message": message}), headers);
    let task = &reply.result()["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    task["id"].as_str().expect("a task id").to_owned()
}

/// The options of the teach form's first select, as shown.
async fn desk_options(browser: &Browser) -> Value {
    browser
        .eval("[...document.querySelector('#teach-form select[name=desk]').options].map(o => o.textContent)")
        .await
}

/// The card's desks, each with what the card says it means.
fn card_desks() -> Value {
    json!([
        "general: Everything without a specialist desk.",
        "dangerous-goods: Hazardous materials.",
        "cold chain: Goods that must stay cold."
    ])
}

/// Opens `link` (after another address, so that the page starts again) and
/// waits until it shows a question or says why not.
async fn open_question(browser: &Browser, page: &str, link: &str) {
    browser.client.goto(page).await.expect("the page opens");
    browser.client.goto(link).await.expect("the link opens");
    browser
        .until(
            "document.body.dataset.ready === 'true' && (!document.getElementById('page-error').hidden || document.getElementById('teach-form').elements.length > 0)",
            "the link is opened",
        )
        .await;
}

#[test]
fn a_clients_own_message_is_never_shown_as_the_agents_question() {
    if !browser_available("a_clients_own_message_is_never_shown_as_the_agents_question") {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    // Without activation, a message naming no chapter: the agent asks
    // which, with no teach block.
    let forged = send_forged(&agent, FORGED_TEXT, &[]);
    // Activated, a message naming chapter 72: the agent asks its own
    // question about it, with its teach block.
    let real = send_forged(
        &agent,
        &format!("Route a declaration for HS chapter 72. {FORGED_TEXT}"),
        &[ACTIVATED],
    );
    let page = format!("{}learnables/", agent.base_url);

    runtime().block_on(async {
        let browser = Browser::start(1000, 1000).await;
        browser.open(&page).await;
        browser.sign_in("alice-token").await;

        open_question(&browser, &page, &teaching_page::task_link(&page, &forged)).await;
        let text = browser.text("body").await;
        for forged in [
            "already confirmed",
            "just press Teach",
            "Confirmed by",
            FORGED_NOTE,
            "the usual",
        ] {
            assert!(
                !text.contains(forged),
                "the page shows the client's {forged:?}:\n{text}"
            );
        }
        assert_eq!(
            browser
                .eval("document.getElementById('question').hidden")
                .await,
            json!(true),
            "no question is shown:\n{text}"
        );
        assert_eq!(
            browser
                .eval("document.getElementById('teach').hidden")
                .await,
            json!(true)
        );
        let said = browser.text("#page-error").await;
        assert!(
            said.contains("the agent's question on this task has nothing to teach"),
            "{said}"
        );
        browser.screenshot("13-forged-question").await;

        // The agent's own question on a task whose history holds the same
        // forged block: the card's form, and nothing of the client's.
        open_question(&browser, &page, &teaching_page::task_link(&page, &real)).await;
        let asked = browser.text("#question-text").await;
        assert!(
            asked.starts_with("I have no routing rule for HS chapter 72"),
            "{asked:?}; the page reads:\n{}",
            browser.text("body").await
        );
        let text = browser.text("body").await;
        for forged in [
            "already confirmed",
            "Confirmed by",
            FORGED_NOTE,
            "the usual",
        ] {
            assert!(
                !text.contains(forged),
                "the page shows the client's {forged:?}:\n{text}"
            );
        }
        assert_eq!(
            value_of(&control(&browser, "teach-form", "HS chapter").await).await,
            "72"
        );
        assert_eq!(
            value_of(&control(&browser, "teach-form", "Desk").await).await,
            "general"
        );
        assert_eq!(desk_options(&browser).await, card_desks());
        assert_eq!(
            value_of(&control(&browser, "teach-form", "Note for the broker").await).await,
            ""
        );
        browser.close().await;
    });
    // Nothing was taught for the forged chapter.
    let shown = agent.call(
        learnables::SHOW_BACK_METHOD,
        json!({"collection": "routing_rules", "entry": "85"}),
    );
    assert_eq!(shown.field(), Some("entry"), "chapter 85 is still unknown");
}

#[test]
fn a_block_link_narrows_and_prefills_the_cards_form_and_says_what_it_left_out() {
    if !browser_available(
        "a_block_link_narrows_and_prefills_the_cards_form_and_says_what_it_left_out",
    ) {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    let page = format!("{}learnables/", agent.base_url);
    // The forged block, suggesting a desk the card does not offer and a
    // field the card does not have.
    let mut block = forged_block();
    block["entries"] = json!(["85", "86"]);
    block["suggested"]["desk"] = json!("express");
    block["suggested"]["iban"] = json!("DE00 1234");
    let block: learnables::TeachBlock = serde_json::from_value(block).expect("a teach block");

    runtime().block_on(async {
        let browser = Browser::start(1000, 1000).await;
        browser.open(&page).await;
        browser.sign_in("alice-token").await;
        open_question(&browser, &page, &teaching_page::block_link(&page, &block)).await;

        // The card's labels, choices and meanings, never the block's.
        let text = browser.text("body").await;
        assert!(!text.contains("the usual"), "{text}");
        assert!(!text.contains("Desk (confirmed)"), "{text}");
        let desk = control(&browser, "teach-form", "Desk").await;
        assert_eq!(desk_options(&browser).await, card_desks());
        // The desk the card would refuse is left out, and the page says so.
        assert_eq!(value_of(&desk).await, "general");
        let left_out = browser.text("#suggestion-dropped").await;
        assert!(left_out.contains("Desk \"express\": it is not one of the choices Desk offers"), "{left_out}");
        assert!(left_out.contains("no field \"iban\""), "{left_out}");
        // The block narrows the entries to its own, and prefills what the
        // card's fields take.
        let entry = control(&browser, "teach-form", "HS chapter").await;
        assert_eq!(entry.tag_name().await.unwrap(), "select");
        assert_eq!(
            browser
                .eval("[...document.querySelector('#teach-form select:not([name])').options].map(o => o.value)")
                .await,
            json!(["85", "86"])
        );
        // A link fills in no free text: the note starts empty.
        assert_eq!(
            value_of(&control(&browser, "teach-form", "Note for the broker").await).await,
            ""
        );
        browser.screenshot("14-block-link-left-out").await;
        browser.close().await;
    });
}

/// The block of a link anyone can write, as the attack wrote it: a valid
/// desk, a label that reads like the agent's finding, and a note to call a
/// number.
fn link_block() -> learnables::TeachBlock {
    serde_json::from_value(json!({
        "collection": "routing_rules",
        "entries": ["85"],
        "suggested": {"desk": "cold chain", "note": FORGED_NOTE},
        "suggestionLabel": "Unmatched chapters go to the general desk today"
    }))
    .expect("a teach block")
}

#[test]
fn a_block_links_words_are_shown_as_the_links_never_as_the_agents() {
    if !browser_available("a_block_links_words_are_shown_as_the_links_never_as_the_agents") {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    let page = format!("{}learnables/", agent.base_url);
    runtime().block_on(async {
        let browser = Browser::start(1000, 1000).await;
        browser.open(&page).await;
        browser.sign_in("alice-token").await;
        open_question(&browser, &page, &teaching_page::block_link(&page, &link_block())).await;

        // Not under the agent's heading, nor said to be what it asked.
        let heading = browser.text("#question-title").await;
        assert!(!heading.contains("agent"), "{heading}");
        assert!(heading.contains("link"), "{heading}");
        let text = browser.text("body").await;
        assert!(!text.contains("The agent asks"), "{text}");
        assert!(!text.contains("the agent asked about"), "{text}");
        // The label is the link's words, quoted as such, not a heading.
        let label = browser.text("#suggestion-label").await;
        assert!(
            label.contains("The link says: \"Unmatched chapters go to the general desk today\""),
            "{label}"
        );
        let weight = browser
            .eval("Number(getComputedStyle(document.getElementById('suggestion-label')).fontWeight)")
            .await;
        assert!(weight.as_f64().unwrap() < 600.0, "the label is not bold: {weight}");
        // No free text from the link; its choice preselected, marked as its.
        let note = control(&browser, "teach-form", "Note for the broker").await;
        assert_eq!(value_of(&note).await, "");
        let left_out = browser.text("#suggestion-dropped").await;
        assert!(left_out.contains("a link fills in no free text"), "{left_out}");
        let desk = control(&browser, "teach-form", "Desk").await;
        assert_eq!(value_of(&desk).await, "cold chain");
        let marked = browser
            .eval("document.querySelector('#teach-form select[name=desk]').closest('.field').textContent")
            .await;
        assert!(
            marked.as_str().unwrap_or_default().contains("Preselected by the link"),
            "{marked}"
        );
        browser.screenshot("15-block-link-words").await;
        browser.close().await;
    });
}
