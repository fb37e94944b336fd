//! An entry's history on the teacher's page, in a real browser against the
//! example agent: each version with what it changed and the entry's own
//! version number (never an id), a retraction shown as one, and going back
//! to an earlier version, which asks for a reason and a confirmation and
//! then teaches that version's value again.

use learnables_tests::support::agent as agent_harness;
use learnables_tests::support::browser as browser_harness;

use agent_harness::{ACTIVATED, Agent};
use browser_harness::{Browser, browser_available, control, error_of, runtime, submit, type_into};
use learnables_tests::support::webdriver::Locator;
use serde_json::{Value, json};

/// Teaches chapter `entry` the `desk` as alice, saying why.
fn teach(agent: &Agent, entry: &str, desk: &str, reason: &str) -> Value {
    let reply = agent.call(
        learnables::TEACH_METHOD,
        json!({
            "collection": "routing_rules",
            "entry": entry,
            "value": {"chapter": entry, "desk": desk},
            "taughtBy": "alice@example.com",
            "reason": reason,
        }),
    );
    assert_eq!(reply.result()["learned"], true);
    reply.result().clone()
}

fn show_back(agent: &Agent) -> Value {
    agent
        .call(
            learnables::SHOW_BACK_METHOD,
            json!({"collection": "routing_rules", "entry": "85"}),
        )
        .result()
        .clone()
}

/// The entry's own version number now, asked from a thread of its own:
/// the harness's client blocks, which the browser's runtime may not.
fn entry_version_now(agent: &Agent) -> Value {
    std::thread::scope(|scope| {
        scope
            .spawn(|| show_back(agent)["entryVersion"].clone())
            .join()
            .expect("the show-back")
    })
}

/// The top-level items of the page's history list, as text.
async fn history_items(browser: &Browser) -> Vec<String> {
    let items = browser
        .eval("[...document.querySelectorAll('#show-back-history > li')].map(li => li.innerText)")
        .await;
    serde_json::from_value(items).expect("the history's items")
}

/// Clicks "Go back to this version" on the history's item `index` (0 is
/// the newest).
async fn go_back_from(browser: &Browser, index: usize) {
    let xpath = format!(
        "(//ol[@id='show-back-history']/li)[{}]//button[.='Go back to this version']",
        index + 1
    );
    browser
        .client
        .find(Locator::XPath(&xpath))
        .await
        .unwrap_or_else(|error| panic!("no button to go back on item {index}: {error}"))
        .click()
        .await
        .expect("the button clicks");
}

/// A browser on `page`, signed in as alice, showing chapter 85 back with
/// its two versions.
async fn chapter_85_shown_back(page: &str) -> Browser {
    let browser = Browser::start(1000, 1200).await;
    browser.open(page).await;
    browser.sign_in("alice-token").await;
    browser.click_button("Show a routing rule back").await;
    type_into(&control(&browser, "show-back-form", "Entry").await, "85").await;
    submit(&browser, "show-back-form").await;
    browser
        .until(
            "!document.getElementById('show-back-result').hidden && document.querySelectorAll('#show-back-history > li').length === 2",
            "chapter 85 is shown back with its two versions",
        )
        .await;
    browser
}

/// Clicks the revert form's button `text`.
async fn in_revert_form(browser: &Browser, text: &str) {
    let xpath = format!("//form[@id='revert-form']//button[.='{text}']");
    browser
        .client
        .find(Locator::XPath(&xpath))
        .await
        .unwrap_or_else(|error| panic!("no {text:?} in the revert form: {error}"))
        .click()
        .await
        .expect("the button clicks");
}

#[test]
fn a_teacher_reads_an_entrys_history_and_goes_back_to_an_earlier_version() {
    if !browser_available("a_teacher_reads_an_entrys_history_and_goes_back_to_an_earlier_version") {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    let first = teach(
        &agent,
        "85",
        "dangerous-goods",
        "Lithium batteries are dangerous goods",
    );
    // Another entry between the two: the collection counts three versions,
    // chapter 85 two.
    teach(&agent, "84", "general", "Machinery stays general");
    let second = teach(&agent, "85", "cold chain", "Batteries now ship cooled");
    let ids = [&first, &second].map(|result| result["versionId"].as_str().unwrap().to_owned());
    let page = format!("{}learnables/", agent.base_url);

    runtime().block_on(async {
        let browser = chapter_85_shown_back(&page).await;
        // The result has the focus: a screen reader reads what came back.
        assert_eq!(
            browser.eval("document.activeElement.id").await,
            json!("show-back-result")
        );
        let details = browser.text("#show-back-details").await;
        assert!(details.contains("This routing rule's 2nd version"), "{details}");
        let history = history_items(&browser).await;
        assert!(
            history[0].contains("Chapter 85 declarations now go to the cold chain desk"),
            "{history:?}"
        );
        assert!(history[0].contains("This routing rule's 2nd version, taught by alice@example.com"), "{history:?}");
        assert!(history[0].contains("Why: Batteries now ship cooled"), "{history:?}");
        assert!(history[0].contains("Desk: dangerous-goods → cold chain"), "{history:?}");
        assert!(history[1].contains("This routing rule's 1st version"), "{history:?}");
        assert!(history[1].contains("Desk: (empty) → dangerous-goods"), "{history:?}");
        // The newest is what the agent knows: nothing to go back to there.
        assert_eq!(
            browser
                .eval("document.querySelector('#show-back-history > li').querySelector('button') === null")
                .await,
            json!(true)
        );
        // No version ids and no collection id on the page.
        let shown = browser.text("#show-back").await;
        for hidden in [ids[0].as_str(), ids[1].as_str(), "routing_rules"] {
            assert!(!shown.contains(hidden), "{hidden} in {shown}");
        }
        browser.screenshot("8-history").await;

        // Going back asks first: a cancel changes nothing and gives the
        // focus back to the button.
        go_back_from(&browser, 1).await;
        browser
            .until("document.getElementById('revert-form') !== null", "the revert form opens")
            .await;
        let preview = browser.text("#revert-form").await;
        assert!(preview.contains("Go back to this routing rule's 1st version?"), "{preview}");
        assert!(preview.contains("Desk: cold chain → dangerous-goods"), "{preview}");
        assert_eq!(
            browser.eval("document.activeElement.tagName").await,
            json!("TEXTAREA"),
            "the focus is on the reason"
        );
        in_revert_form(&browser, "Cancel").await;
        assert_eq!(browser.eval("document.getElementById('revert-form')").await, Value::Null);
        assert_eq!(
            browser.eval("document.activeElement.textContent").await,
            json!("Go back to this version")
        );
        assert_eq!(entry_version_now(&agent), 2, "a cancel teaches nothing");

        // A revert needs a reason: without one it is refused on the page,
        // next to the box.
        go_back_from(&browser, 1).await;
        browser
            .until("document.getElementById('revert-form') !== null", "the revert form opens again")
            .await;
        browser.screenshot("9-revert").await;
        in_revert_form(&browser, "Yes, go back").await;
        let reason = control(&browser, "revert-form", "Why go back").await;
        assert!(
            error_of(&browser, &reason)
                .await
                .is_some_and(|error| error.contains("Say why you are going back")),
            "the missing reason is refused next to its box"
        );
        assert_eq!(entry_version_now(&agent), 2, "nothing sent without a reason");
        type_into(&reason, "The cooling rule was a mistake").await;
        in_revert_form(&browser, "Yes, go back").await;
        browser
            .until(
                "document.querySelectorAll('#show-back-history > li').length === 3",
                "the revert shows as the entry's newest version",
            )
            .await;
        assert_eq!(
            browser.text("#show-back-describes").await,
            "Chapter 85 declarations now go to the dangerous-goods desk"
        );
        let history = history_items(&browser).await;
        assert!(history[0].contains("This routing rule's 3rd version, taught by alice@example.com"), "{history:?}");
        assert!(history[0].contains("Why: The cooling rule was a mistake"), "{history:?}");
        assert!(history[0].contains("Desk: cold chain → dangerous-goods"), "{history:?}");
        browser.screenshot("10-reverted").await;
        browser.close().await;
    });

    // The agent learned the revert as a lesson from alice, with her reason.
    let shown = show_back(&agent);
    assert_eq!(shown["entryVersion"], 3);
    assert_eq!(shown["taughtBy"], "alice@example.com");
    assert_eq!(shown["reason"], "The cooling rule was a mistake");
    let desk = shown["lessonFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|field| field["name"] == "desk")
        .unwrap()
        .clone();
    assert_eq!(desk["default"], "dangerous-goods");
    // A new task routes by the reverted rule.
    let task = agent.route(85, None, &[ACTIVATED]);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
}

#[test]
fn a_retraction_shows_as_one_and_can_be_gone_back_from() {
    if !browser_available("a_retraction_shows_as_one_and_can_be_gone_back_from") {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    teach(&agent, "85", "cold chain", "Batteries ship cooled");
    let retracted = agent.call(
        learnables::RETRACT_METHOD,
        json!({
            "collection": "routing_rules",
            "entry": "85",
            "taughtBy": "alice@example.com",
            "reason": "Nobody ships batteries any more",
        }),
    );
    assert_eq!(retracted.result()["learned"], true);
    let page = format!("{}learnables/", agent.base_url);

    runtime().block_on(async {
        let browser = chapter_85_shown_back(&page).await;
        assert_eq!(
            browser.text("#show-back-describes").await,
            "The agent no longer knows this routing rule: it was retracted."
        );
        let details = browser.text("#show-back-details").await;
        assert!(details.contains("Retracted by"), "{details}");
        assert!(
            details.contains("Nobody ships batteries any more"),
            "{details}"
        );
        let history = history_items(&browser).await;
        assert!(
            history[0].starts_with("Retracted: the agent stopped using this routing rule."),
            "{history:?}"
        );
        assert!(
            history[0].contains("retracted by alice@example.com"),
            "{history:?}"
        );

        go_back_from(&browser, 1).await;
        browser
            .until(
                "document.getElementById('revert-form') !== null",
                "the revert form opens",
            )
            .await;
        let reason = control(&browser, "revert-form", "Why go back").await;
        type_into(&reason, "They do after all").await;
        in_revert_form(&browser, "Yes, go back").await;
        browser
            .until(
                "document.querySelectorAll('#show-back-history > li').length === 3",
                "the entry is taught again",
            )
            .await;
        assert_eq!(
            browser.text("#show-back-describes").await,
            "Chapter 85 declarations now go to the cold chain desk"
        );
        browser.close().await;
    });
    assert_eq!(show_back(&agent)["reason"], "They do after all");
}
