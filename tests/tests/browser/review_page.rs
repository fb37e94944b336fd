//! Lessons waiting for review on the teacher's page, in a real browser
//! against the example agent (whose clearance limits are reviewed): the
//! author sees their proposal with no way to decide it; another teacher
//! approves one, which the agent then knows, and rejects another, which
//! needs a reason. The proposal's text is shown as text, never as markup.

use learnables_tests::support::agent as agent_harness;
use learnables_tests::support::browser as browser_harness;

use agent_harness::{ACTIVATED, AS_ALICE, Agent};
use browser_harness::{Browser, browser_available, control, error_of, runtime, submit, type_into};
use learnables_tests::support::webdriver::Locator;
use serde_json::{Value, json};

/// Alice proposes a limit of `euros` for broker-17, saying `reason`: the
/// proposal's id.
fn propose(agent: &Agent, euros: u32, reason: &str) -> String {
    let reply = agent.call_with(
        learnables::TEACH_METHOD,
        json!({"collection": "clearance_limits", "entry": "broker-17",
               "value": {"amountEur": euros.to_string()},
               "taughtBy": "alice@example.com", "reason": reason}),
        &[ACTIVATED, AS_ALICE],
    );
    reply.result()["proposalId"]
        .as_str()
        .unwrap_or_else(|| panic!("not a proposal: {}", reply.result()))
        .to_owned()
}

/// What the agent says broker-17 may clear now, asked from a thread of its
/// own: the harness's client blocks, which the browser's runtime may not.
fn describes_now(agent: &Agent) -> Value {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let reply = agent.call(
                    learnables::SHOW_BACK_METHOD,
                    json!({"collection": "clearance_limits", "entry": "broker-17"}),
                );
                reply.body["result"]["describes"].clone()
            })
            .join()
            .expect("the show-back")
    })
}

/// Clicks `button` in the review item of proposal `id`.
async fn in_proposal(browser: &Browser, id: &str, button: &str) {
    let xpath = format!("//li[@data-proposal='{id}']//button[.='{button}']");
    browser
        .client
        .find(Locator::XPath(&xpath))
        .await
        .unwrap_or_else(|error| panic!("no {button:?} on proposal {id}: {error}"))
        .click()
        .await
        .expect("the button clicks");
}

/// The number of buttons in the review item of proposal `id`.
async fn buttons_on(browser: &Browser, id: &str) -> Value {
    browser
        .eval(&format!(
            "document.querySelectorAll(\"li[data-proposal='{id}'] button\").length"
        ))
        .await
}

async fn signed_in_with_reviews(browser: &Browser, page: &str, token: &str) {
    browser.open(page).await;
    browser.sign_in(token).await;
    browser
        .until(
            "!document.getElementById('review').hidden",
            "the lessons waiting for review are listed",
        )
        .await;
}

#[test]
fn another_teacher_approves_or_rejects_on_the_page_never_the_author() {
    if !browser_available("another_teacher_approves_or_rejects_on_the_page_never_the_author") {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    let hostile = "<img src=x onerror=\"document.title='owned'\"> per the letter\u{202E}";
    let first = propose(&agent, 25_000, hostile);
    let page = format!("{}learnables/", agent.base_url);

    runtime().block_on(async {
        // The author: the proposal, and no way to decide it.
        let browser = Browser::start(1000, 1400).await;
        signed_in_with_reviews(&browser, &page, "alice-token").await;
        let item = browser.text(&format!("li[data-proposal='{first}']")).await;
        assert!(item.contains("You proposed this lesson"), "{item}");
        assert_eq!(buttons_on(&browser, &first).await, json!(0));
        // The reason is text: no image, the bidi control shown escaped.
        assert!(item.contains("<img src=x"), "{item}");
        assert!(item.contains("\\u{202e}"), "{item}");
        assert_eq!(browser.eval("document.querySelectorAll('#review img').length").await, json!(0));
        assert_ne!(browser.eval("document.title").await, json!("owned"));
        browser.click_button("Sign out").await;

        // Bob approves it: the agent knows the limit.
        browser
            .until("!document.getElementById('sign-in').hidden", "signed out")
            .await;
        browser.sign_in("bob-token").await;
        browser
            .until(
                &format!("document.querySelector(\"li[data-proposal='{first}'] button\") !== null"),
                "bob is offered the decision",
            )
            .await;
        let item = browser.text(&format!("li[data-proposal='{first}']")).await;
        assert!(item.contains("Limit in euros"), "{item}");
        assert!(item.contains("25000"), "{item}");
        browser.screenshot("13-review").await;
        in_proposal(&browser, &first, "Approve").await;
        browser
            .until(
                &format!("document.querySelector(\"li[data-proposal='{first}'] .result\")?.hidden === false"),
                "the approval is answered",
            )
            .await;
        let said = browser.text(&format!("li[data-proposal='{first}'] .result")).await;
        assert!(said.starts_with("Approved and learned"), "{said}");
        assert_eq!(
            describes_now(&agent),
            "broker-17 may now clear up to EUR 25000 alone"
        );

        // A rejection needs a reason, then teaches nothing.
        let second = std::thread::scope(|scope| {
            scope.spawn(|| propose(&agent, 90_000, "a new contract")).join().unwrap()
        });
        browser.open(&page).await;
        browser
            .until(
                &format!("document.querySelector(\"li[data-proposal='{second}'] button\") !== null"),
                "the new proposal is listed",
            )
            .await;
        // Show-back lists it beside the value, and the history names who
        // approved the value.
        browser.click_button("Show a broker back").await;
        type_into(&control(&browser, "show-back-form", "Entry").await, "broker-17").await;
        submit(&browser, "show-back-form").await;
        browser
            .until("!document.getElementById('show-back-result').hidden", "broker-17 is shown back")
            .await;
        let details = browser.text("#show-back-details").await;
        assert!(details.contains("Waiting for review"), "{details}");
        assert!(details.contains("Limit in euros: 25000 → 90000"), "{details}");
        // The version shown names who approved it.
        assert!(details.contains("Approved by\nbob@example.com"), "{details}");
        let history = browser.text("#show-back-history").await;
        assert!(history.contains("Approved by bob@example.com"), "{history}");

        in_proposal(&browser, &second, "Reject").await;
        let reason = browser
            .client
            .find(Locator::Css(&format!("li[data-proposal='{second}'] input")))
            .await
            .expect("the reason's box");
        assert!(
            error_of(&browser, &reason)
                .await
                .is_some_and(|error| error.contains("Say why you reject it")),
            "the missing reason is refused next to its box"
        );
        type_into(&reason, "The contract is not signed").await;
        in_proposal(&browser, &second, "Reject").await;
        browser
            .until(
                &format!("document.querySelector(\"li[data-proposal='{second}'] .result\")?.hidden === false"),
                "the rejection is answered",
            )
            .await;
        let said = browser.text(&format!("li[data-proposal='{second}'] .result")).await;
        assert_eq!(said, "Rejected: nothing was learned.");
        assert_eq!(
            describes_now(&agent),
            "broker-17 may now clear up to EUR 25000 alone"
        );
        // The history lists the rejection: who proposed, who said no, why.
        submit(&browser, "show-back-form").await;
        browser
            .until(
                "document.getElementById('show-back-history').innerText.includes('Why not')",
                "the rejection is in the history",
            )
            .await;
        let history = browser.text("#show-back-history").await;
        assert!(history.contains("rejected by bob@example.com"), "{history}");
        assert!(history.contains("Why not: The contract is not signed"), "{history}");
        browser.close().await;
    });
}
