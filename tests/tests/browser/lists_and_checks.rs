//! A list field and a range check on the teacher's page, in a real
//! browser, against the desk plan agent: `desks` (a `Vec<Desk>`) is a
//! multi-select of the desks, `limit_eur` a number input with the range as
//! its min and max and in words under it; an out-of-range limit is refused
//! next to its field, in its label's words; two desks and a good limit are
//! taught, the agent's knowledge holds them, and show-back lists the desks
//! as items.

use learnables::Knowledge;
use learnables_examples::Desk;
use learnables_examples::customs_agent;
use learnables_examples::desk_plan_agent::{self, DeskPlan};
use learnables_tests::support::agent as agent_harness;
use learnables_tests::support::browser as browser_harness;

use agent_harness::{Agent, teachers};
use browser_harness::{Browser, browser_available, control, error_of, runtime, submit, type_into};
use serde_json::json;

#[test]
fn two_desks_and_a_limit_in_range_are_taught_through_the_page() {
    if !browser_available("two_desks_and_a_limit_in_range_are_taught_through_the_page") {
        return;
    }
    let knowledge = Knowledge::in_memory();
    let served = knowledge.clone();
    let agent = Agent::start_router(move |base_url| {
        let tokens = customs_agent::tokens(&teachers()).expect("the teachers make a table");
        desk_plan_agent::router(served, tokens, base_url).expect("the agent starts")
    });
    let page = format!("{}learnables/", agent.base_url);
    runtime().block_on(async {
        let browser = Browser::start(1000, 1000).await;
        browser.open(&page).await;
        browser.sign_in("alice-token").await;
        browser.click_button("Teach a desk plan").await;
        browser
            .until(
                "!document.getElementById('teach').hidden",
                "the teach form opens",
            )
            .await;

        let desks = control(&browser, "teach-form", "Desks the chapter may go to").await;
        assert_eq!(desks.tag_name().await.unwrap(), "select");
        assert_eq!(
            desks.prop("multiple").await.unwrap().as_deref(),
            Some("true"),
            "a list of choices is a multi-select"
        );
        let id = desks.attr("id").await.unwrap().unwrap();
        assert_eq!(
            browser
                .eval(&format!(
                    "[...document.getElementById('{id}').options].map(o => o.value)"
                ))
                .await,
            json!(["general", "dangerous-goods", "cold chain"]),
            "the multi-select offers the desks"
        );
        let limit = control(&browser, "teach-form", "Limit in euros").await;
        assert_eq!(limit.attr("type").await.unwrap().as_deref(), Some("number"));
        assert_eq!(limit.attr("min").await.unwrap().as_deref(), Some("100"));
        assert_eq!(limit.attr("max").await.unwrap().as_deref(), Some("1000000"));
        let help = browser.text("#teach-form").await;
        assert!(
            help.contains("At least 100, at most 1,000,000."),
            "the range in words under the field:\n{help}"
        );

        type_into(&control(&browser, "teach-form", "HS chapter").await, "85").await;
        desks.select_by_value("general").await.unwrap();
        desks.select_by_value("cold chain").await.unwrap();
        type_into(&limit, "2000000").await;
        submit(&browser, "teach-form").await;
        browser
            .until(
                "!document.getElementById('teach-error').hidden",
                "the out-of-range limit is refused",
            )
            .await;
        let refusal = error_of(&browser, &limit)
            .await
            .expect("the refusal is next to the limit");
        assert_eq!(refusal, "Limit in euros: at most 1,000,000");
        assert!(
            error_of(&browser, &desks).await.is_none(),
            "only the field at fault is marked"
        );
        assert!(
            knowledge.pin().get::<DeskPlan>("85").is_none(),
            "nothing is learned from a refused lesson"
        );
        browser.screenshot("lists-1-refused").await;

        type_into(&limit, "5000").await;
        submit(&browser, "teach-form").await;
        browser
            .until(
                "!document.getElementById('teach-result').hidden",
                "the lesson is taught",
            )
            .await;
        assert_eq!(
            browser.text("#teach-describes").await,
            "Chapter 85 may go to the general and cold chain desks, up to EUR 5000"
        );
        browser.screenshot("lists-2-taught").await;

        // Shown back, the list reads as its items, not as the array's JSON.
        browser
            .eval("document.getElementById('teach-show-back').click() || true")
            .await;
        browser
            .until(
                "!document.getElementById('show-back-result').hidden",
                "the plan is shown back",
            )
            .await;
        let details = browser.text("#show-back-details").await;
        assert!(
            details.contains("general") && details.contains("cold chain") && !details.contains('['),
            "the desks shown back as items:\n{details}"
        );
        browser.close().await;
    });
    let plan = knowledge
        .pin()
        .get::<DeskPlan>("85")
        .expect("the agent learned the plan");
    assert_eq!(plan.desks, vec![Desk::General, Desk::Perishables]);
    assert_eq!(plan.limit_eur, 5000);
    agent.stop();
}
