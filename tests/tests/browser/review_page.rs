//! Lessons waiting for review on the teacher's page, in a real browser
//! against the example agent (whose clearance limits are reviewed): the
//! author sees their proposal with no way to decide it; another teacher
//! approves one, which the agent then knows, and rejects another, which
//! needs a reason. The proposal's text is shown as text, never as markup.

use learnables_tests::support::agent as agent_harness;
use learnables_tests::support::browser as browser_harness;

use agent_harness::{ACTIVATED, AS_ALICE, AS_BOB, Agent};
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

/// How many proposals the paging agent holds.
const MANY: usize = 45;

/// An agent that serves the teacher's page and pages its Review listing
/// as the contract says (`{limit?, from?}` → `{proposals, next?}`); every
/// Review call's params are kept in `asked`.
fn paging_agent(asked: std::sync::Arc<std::sync::Mutex<Vec<Value>>>) -> Agent {
    use axum::Json;
    use axum::routing::{get, post};
    Agent::start_router(move |_| {
        let card = json!({"name": "Paging agent", "capabilities": {"extensions": [{
            "uri": learnables::EXTENSION_URI, "params": {
                "teachMethod": learnables::TEACH_METHOD,
                "reviewMethod": learnables::REVIEW_METHOD,
                "learnables": [{"collection": "clearance_limits", "entry": "broker",
                    "teaches": "How much a broker clears alone",
                    "how": "A table kept by the team", "decidedBy": "rules",
                    "review": {"approvals": 1},
                    "lessonFields": [{"name": "amountEur", "label": "Limit in euros",
                                      "kind": "text"}]}]}}]}});
        learnables::a2a::teaching_page::router("/learnables/")
            .route(
                "/.well-known/agent-card.json",
                get(move || {
                    let card = card.clone();
                    async move { Json(card) }
                }),
            )
            .route(
                "/",
                post(move |Json(request): Json<Value>| {
                    let asked = asked.clone();
                    async move {
                        let params = &request["params"];
                        let result = match request["method"].as_str().unwrap_or_default() {
                            learnables::TEACHER_METHOD => json!({"teacher": "bob@example.com"}),
                            learnables::REVIEW_METHOD => {
                                asked.lock().unwrap().push(params.clone());
                                let limit = params["limit"].as_u64().unwrap_or(20).clamp(1, 100);
                                let from = params["from"]
                                    .as_str()
                                    .and_then(|from| from.strip_prefix('p'))
                                    .and_then(|n| n.parse::<usize>().ok())
                                    .unwrap_or(0);
                                let end = (from + limit as usize).min(MANY);
                                let proposals: Vec<Value> = (from..end)
                                    .map(|n| {
                                        json!({"collection": "clearance_limits",
                                        "entry": format!("broker-{n}"),
                                        "proposalId": format!("p{n}"),
                                        "proposedBy": "alice@example.com",
                                        "changes": [{"label": "Limit in euros",
                                                     "before": null, "after": "25000"}],
                                        "approvedBy": [], "approvalsNeeded": 1,
                                        "mayDecide": true})
                                    })
                                    .collect();
                                let mut page = json!({"proposals": proposals});
                                if end < MANY {
                                    page["next"] = json!(format!("p{end}"));
                                }
                                page
                            }
                            _ => json!({}),
                        };
                        Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
                    }
                }),
            )
    })
}

#[test]
fn the_review_listing_is_read_a_page_at_a_time() {
    if !browser_available("the_review_listing_is_read_a_page_at_a_time") {
        return;
    }
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let agent = paging_agent(asked.clone());
    let page = format!("{}learnables/", agent.base_url);
    runtime().block_on(async {
        let browser = Browser::start(1000, 1400).await;
        signed_in_with_reviews(&browser, &page, "bob-token").await;
        let listed = "document.querySelectorAll('#review-list li').length";
        browser
            .until(&format!("{listed} > 0"), "the first page is listed")
            .await;
        assert_eq!(browser.eval(listed).await, json!(20));
        for shown in [40, MANY] {
            browser
                .click_button("Show more lessons waiting for review")
                .await;
            browser
                .until(&format!("{listed} === {shown}"), "the next page is listed")
                .await;
        }
        let last = format!("p{}", MANY - 1);
        assert_eq!(buttons_on(&browser, &last).await, json!(2));
        assert_eq!(
            browser
                .eval("document.getElementById('review-more') === null")
                .await,
            json!(true),
            "no more pages are offered after the last"
        );
        browser.close().await;
    });
    let asked = asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        [
            json!({"limit": 20}),
            json!({"limit": 20, "from": "p20"}),
            json!({"limit": 20, "from": "p40"})
        ]
    );
    agent.stop();
}

#[test]
fn the_example_agents_listing_is_paged_on_the_page() {
    if !browser_available("the_example_agents_listing_is_paged_on_the_page") {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    // As many as two teachers may have open: 20 each, two pages of 20.
    for n in 0..20 {
        for (teacher, token) in [("alice@example.com", AS_ALICE), ("bob@example.com", AS_BOB)] {
            let reply = agent.call_with(
                learnables::TEACH_METHOD,
                json!({"collection": "clearance_limits", "entry": format!("{}-{n}", &teacher[..3]),
                       "value": {"amountEur": "25000"}, "taughtBy": teacher}),
                &[ACTIVATED, token],
            );
            assert_eq!(reply.result()["learned"], false, "{}", reply.result());
        }
    }
    let page = format!("{}learnables/", agent.base_url);
    runtime().block_on(async {
        let browser = Browser::start(1000, 1400).await;
        signed_in_with_reviews(&browser, &page, "bob-token").await;
        let listed = "document.querySelectorAll('#review-list li').length";
        browser.until(&format!("{listed} === 20"), "the first page is listed").await;
        browser.click_button("Show more lessons waiting for review").await;
        browser.until(&format!("{listed} === 40"), "the second page is listed").await;
        assert_eq!(
            browser.eval("new Set([...document.querySelectorAll('#review-list li')].map(li => li.dataset.proposal)).size").await,
            json!(40),
            "every proposal once"
        );
        assert_eq!(
            browser.eval("document.getElementById('review-more') === null").await,
            json!(true)
        );
        browser.close().await;
    });
    agent.stop();
}
