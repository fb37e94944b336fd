//! Field kinds on the teacher's page, in a real browser: a `date` field
//! (a `chrono::NaiveDate`) is a date picker whose value is sent as
//! YYYY-MM-DD, and an optional field's help says it is optional.

use learnables_tests::support::agent as agent_harness;
use learnables_tests::support::browser as browser_harness;

use agent_harness::Agent;
use browser_harness::{Browser, browser_available, control, runtime, submit, type_into};
use serde_json::json;

#[test]
fn a_date_field_is_a_date_picker_and_an_optional_field_says_so() {
    if !browser_available("a_date_field_is_a_date_picker_and_an_optional_field_says_so") {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    let page = format!("{}learnables/", agent.base_url);
    runtime().block_on(async {
        let browser = Browser::start(1000, 1000).await;
        browser.open(&page).await;
        browser.sign_in("alice-token").await;
        browser.click_button("Teach a broker").await;
        let date = control(&browser, "teach-form", "Review date").await;
        assert_eq!(date.attr("type").await.unwrap().as_deref(), Some("date"));
        let help = browser.text("#teach-form").await;
        assert!(help.contains("Optional."), "{help}");
        type_into(
            &control(&browser, "teach-form", "Broker").await,
            "broker-17",
        )
        .await;
        type_into(
            &control(&browser, "teach-form", "Limit in euros").await,
            "25000",
        )
        .await;
        // The picker's value, as a person picks it: YYYY-MM-DD.
        let id = date.attr("id").await.unwrap().unwrap();
        browser
            .eval(&format!(
                "document.getElementById('{id}').value = '2027-01-31' || true"
            ))
            .await;
        submit(&browser, "teach-form").await;
        browser
            .until(
                "!document.getElementById('teach-result').hidden",
                "the lesson is taught",
            )
            .await;
        // Clearance limits are reviewed: the lesson waits, and says so.
        assert_eq!(
            browser.text("#teach-describes").await,
            "Waiting for review: broker-17 may now clear up to EUR 25000 alone, until a review \
             on 2027-01-31"
        );
        assert!(
            browser
                .text("#teach-version")
                .await
                .starts_with("Waiting for review: another teacher must approve this lesson")
        );
        browser.screenshot("11-date-picker").await;
        browser.close().await;
    });
    let listed = agent.call(learnables::REVIEW_METHOD, json!({}));
    let approved = agent.call_with(
        learnables::REVIEW_METHOD,
        json!({"collection": "clearance_limits", "entry": "broker-17",
               "proposalId": listed.result()["proposals"][0]["proposalId"],
               "decision": "approve", "reviewedBy": "bob@example.com"}),
        &[agent_harness::ACTIVATED, agent_harness::AS_BOB],
    );
    assert_eq!(approved.result()["learned"], true);
    let shown = agent.call(
        learnables::SHOW_BACK_METHOD,
        json!({"collection": "clearance_limits", "entry": "broker-17"}),
    );
    assert_eq!(shown.result()["lessonFields"][1]["default"], "2027-01-31");
}
